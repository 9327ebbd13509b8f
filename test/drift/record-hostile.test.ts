/**
 * `record` against bodies and upstreams built to break it (docs/drift.md, "What it does with
 * each exchange"), as the built bin runs it, in front of a test upstream that answers each
 * path its own way:
 *
 * - a body nested 10,000 deep (a request's, an answer's) holding a secret or a `\u` escape is
 *   passed on and recorded without the secret, and the recorder goes on (no stack trace, no exit).
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startRecord } from './record-bin.js';

let dir: string;
let hostile: Server;
let hostileUrl: string;
const procs: ChildProcess[] = [];

const DEPTH = 10_000;
/** A JSON value nested DEPTH objects deep around `inner`. */
const nested = (inner: string) => `${'{"a":'.repeat(DEPTH)}${inner}${'}'.repeat(DEPTH)}`;

/** What the test upstream answers, by path. */
const ANSWERS: Record<string, (req: IncomingMessage, body: Buffer, res: ServerResponse) => void> = {
  '/echo': (req, body, res) => {
    res.writeHead(200, { 'Content-Type': req.headers['content-type'] ?? 'application/json' }).end(body);
  },
  '/deep-answer': (_req, _body, res) => {
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(nested('{"access_token":"deep-token-1","note":"\\u0041"}'));
  },
};

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'record-hostile-'));
  hostile = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = ANSWERS[new URL(req.url ?? '/', 'http://x').pathname];
      if (answer) answer(req, Buffer.concat(chunks), res);
      else res.writeHead(404).end();
    });
  });
  hostile.listen(0, '127.0.0.1');
  await once(hostile, 'listening');
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
}, 120_000);
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});
afterAll(async () => {
  hostile.closeAllConnections();
  await new Promise<void>((resolve) => hostile.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** The file's entries (it must be whole HAR). */
function entriesOf(file: string): { request: { url: string }; response: { status: number } }[] {
  return JSON.parse(readFileSync(file, 'utf8')).log.entries;
}

describe('a body nested 10,000 deep', () => {
  it('with a secret field or a \\u escape, in a request or an answer: passed on, recorded without the secret, and record goes on', async () => {
    const out = join(dir, 'deep.har');
    const rec = await startRecord(['--upstream', hostileUrl, '--out', out], procs);
    const post = (body: string) =>
      fetch(`${rec.url}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const secret = nested('{"client_secret":"deep-secret-1"}');
    const escaped = nested('"\\u0041"');
    for (const body of [secret, escaped]) {
      const r = await post(body);
      expect(r.status).toBe(200);
      expect(await r.text()).toBe(body);
    }
    const deep = await fetch(`${rec.url}/deep-answer`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('deep-token-1');
    const after = await post('{"ok":true}');
    expect(after.status).toBe(200);
    rec.proc.kill('SIGTERM');
    expect(await rec.exited).toBe(0);
    expect(rec.stderr()).not.toMatch(/\n\s+at /);
    const text = readFileSync(out, 'utf8');
    expect(entriesOf(out).map((e) => e.response.status)).toEqual([200, 200, 200, 200]);
    expect(text).not.toContain('deep-secret-1');
    expect(text).not.toContain('deep-token-1');
  });
});
