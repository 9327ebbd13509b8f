/**
 * A cell's heap and the journal's budget, through a real listening server with a small heap (as
 * a 512 MiB container gives Node 259 MB): partners sending 16 KiB bodies of CJK text, which V8
 * keeps in two bytes a character, filled a 256 MiB budget's worth of entries counted at one byte
 * and ran the process out of heap (SIGABRT) with the journal 140 MiB into its budget. The budget
 * when none is set is now at most a quarter of the heap, and such a body counts twice: the
 * process serves on, the journal stops growing, and a quiet partner keeps every entry of its own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';

const MAIN = join(packageDir, 'dist', 'main.js');
/** V8's old space in MiB for the server: with it, 7,200 such calls held about 100 MB. */
const HEAP_MB = 64;
const PARTNERS = 8;
const CALLS_EACH = 900;
/** 5,400 CJK characters: 16,200 bytes of UTF-8, within the journal's 16 KiB cut, 10.8 KB in V8. */
const BODY = JSON.stringify({ brand: '中'.repeat(5400) });

const env = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^(PORT|HOST|SANDBOX_)/.test(name)),
);

let server: ChildProcess;
let url = '';
let stderr = '';

beforeAll(async () => {
  // A young generation as small as V8 gives a 512 MiB container (semi-spaces of 1 MiB): V8's
  // heap limit is then the old space's, of which the journal's default budget takes a quarter.
  const heap = [`--max-old-space-size=${HEAP_MB}`, '--max-semi-space-size=1'];
  server = spawn(process.execPath, [...heap, MAIN, '--port', '0'], {
    env: { ...env, SANDBOX_LOG: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stderr!.on('data', (d) => {
    stderr += d;
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (d) => {
      out += d;
      const found = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (found) resolve(found[0]);
    });
    server.once('exit', (code, signal) =>
      reject(new Error(`exited before listening (${code ?? signal}): ${stderr}`)),
    );
  });
});

afterAll(() => {
  server?.kill();
});

async function json(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url + path, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A partner made on the control plane, with a token. */
async function partner(): Promise<{ parent: string; token: string }> {
  const made = await json('/__sandbox/partners', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
  expect(made.status).toBe(201);
  const creds = made.body as { parent_account_id: string; client_id: string; client_secret: string };
  const token = await json('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: creds.client_id,
      client_secret: creds.client_secret,
    }).toString(),
  });
  expect(token.status).toBe(200);
  return { parent: creds.parent_account_id, token: token.body.access_token as string };
}

/** A registration with the CJK body: refused (400, the envelope naming a field), journaled whole. */
async function send(p: { parent: string; token: string }): Promise<void> {
  const res = await json('/v1/accounts/register/partnership', {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${p.token}`,
      'X-Platform-Parent-Account-Id': p.parent,
      'Content-Type': 'application/json',
    },
    body: BODY,
  });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({
    status: 400,
    error: { code: 'validation_error' },
    message: expect.stringContaining('vertical_id: is required'),
    data: null,
  });
}

async function count(filter: Record<string, unknown>): Promise<number> {
  const res = await json('/__sandbox/requests/count', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(filter),
  });
  expect(res.status).toBe(200);
  return res.body.count as number;
}

describe(`the journal within a ${HEAP_MB} MiB heap`, () => {
  it('serves on past a budget of bodies V8 keeps in two bytes; a quiet partner keeps all of its own', async () => {
    const quiet = await partner();
    for (let i = 0; i < 3; i++) await send(quiet);
    const noisy = await Promise.all(Array.from({ length: PARTNERS }, partner));
    await Promise.all(
      noisy.map(async (p) => {
        for (let i = 0; i < CALLS_EACH; i++) await send(p);
      }),
    );
    expect(server.exitCode, stderr).toBeNull();
    expect(server.signalCode, stderr).toBeNull();
    const health = await fetch(`${url}/__sandbox/health`);
    expect(health.status).toBe(200);
    // The budget, not SANDBOX_JOURNAL_MAX (1000 each: 7,200 in all), bound the journal.
    const all = await count({});
    expect(all).toBeLessThan(PARTNERS * CALLS_EACH);
    // The quiet partner's three calls and its token call are all still there.
    expect(await count({ parent_account_id: quiet.parent })).toBe(4);
  }, 180_000);
});
