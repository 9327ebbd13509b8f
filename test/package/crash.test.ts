/**
 * Crash safety of the production build (`node dist/main.js`) on a file database
 * (SANDBOX_DB=path): a SIGKILL in the middle of a write load loses no write that had
 * been answered 200 and leaves a database that passes `PRAGMA integrity_check`; a
 * SIGTERM drains the requests in flight (all answered 200) and exits 0.
 */
import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';
import { CONTROLS, DEMO, REGISTER, registerBody } from '../helpers/harness.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Json = any;

const MAIN = join(packageDir, 'dist', 'main.js');

beforeAll(() => {
  if (!existsSync(MAIN)) execSync('npm run build', { cwd: packageDir, stdio: 'ignore' });
}, 120_000);

const dirs: string[] = [];
const procs: ChildProcess[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-crash-'));
  dirs.push(dir);
  return join(dir, 'sandbox.db');
}

interface Child {
  proc: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node dist/main.js` on a free port and resolves once it logged its URL. */
function startChild(db: string): Promise<Child> {
  const proc = spawn(process.execPath, [MAIN], {
    cwd: packageDir,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SANDBOX_DB: db, SANDBOX_LOG: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no start-up line in 15 s: ${out} ${err}`)), 15_000);
    proc.stderr!.on('data', (d) => {
      err += String(d);
    });
    proc.stdout!.on('data', (d) => {
      out += String(d);
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const parsed = JSON.parse(line) as { msg?: string; url?: string };
          if (parsed.msg === 'sandbox listening' && parsed.url) {
            clearTimeout(timer);
            resolve({ proc, url: parsed.url, exited });
            return;
          }
        } catch {
          // partial line
        }
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`exited before listening (${code}/${signal}): ${err}`));
    });
  });
}

async function grant(url: string): Promise<string> {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEMO.clientId,
      client_secret: DEMO.clientSecret,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Json };
}

function integrity(db: string): string {
  const conn = new Database(db);
  try {
    return conn.pragma('integrity_check', { simple: true }) as string;
  } finally {
    conn.close();
  }
}

const PAIRS: [number, number][] = [
  [10, 1001],
  [10, 1002],
  [20, 2001],
  [20, 2003],
  [30, 3001],
  [40, 4001],
  [40, 4004],
  [50, 5001],
];

interface AckedAccount {
  accountId: string;
  external: string;
  /** content_hash of the last PUT answered 200, or the register-time hash. */
  hash: string;
  /** How many PUTs were answered 200 (the list's version after them). */
  version: number;
  /** The domains of the last acknowledged PUT. */
  domains: string[];
}

describe('SIGKILL in the middle of a write load', () => {
  it('every write answered 200 before the kill is there after a restart, and the database passes integrity_check', async () => {
    const db = tempDb();
    const first = await startChild(db);
    const token = await grant(first.url);
    const headers = { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent };

    const acked = new Map<string, AckedAccount>();
    let stop = false;
    let requests = 0;
    let keySeq = 0;

    async function worker(w: number) {
      let account: AckedAccount | undefined;
      let n = 0;
      while (!stop) {
        try {
          // every 8th step (and the first) registers a fresh account; the rest rewrite its list
          if (!account || n % 8 === 0) {
            const external = `crash-${w}-${n}`;
            requests++;
            const res = await send(
              first.url,
              'POST',
              REGISTER,
              headers,
              registerBody({ external_account_id: external }),
            );
            if (res.status !== 200) throw new Error(`register answered ${res.status}`);
            const accountId: string = res.body.data.account_id;
            const read = await send(first.url, 'GET', CONTROLS(accountId), headers);
            if (read.status !== 200) throw new Error(`controls GET answered ${read.status}`);
            account = {
              accountId,
              external,
              hash: read.body.data.marketplace_controls_list.content_hash,
              version: 0,
              domains: [],
            };
            acked.set(accountId, account);
          } else {
            const [v, s] = PAIRS[n % PAIRS.length]!;
            const domains = [`w${w}-n${n}.example.com`];
            requests++;
            const res = await send(
              first.url,
              'PUT',
              CONTROLS(account.accountId),
              { ...headers, 'Idempotency-Key': `crash-key-${w}-${++keySeq}` },
              {
                blockedVerticals: [{ partnerVerticalId: v, partnerSubVerticalId: s }],
                domains: domains.map((domain) => ({ domain })),
                contentHash: account.version === 0 ? null : account.hash,
              },
            );
            if (res.status !== 200) throw new Error(`controls PUT answered ${res.status}`);
            account.hash = res.body.data.marketplace_controls_list.content_hash;
            account.version += 1;
            account.domains = domains;
          }
          n++;
        } catch (e) {
          // after the kill, requests in flight fail; before it, nothing may fail
          if (!stop) throw e;
          return;
        }
      }
    }

    const workers = Array.from({ length: 10 }, (_, w) => worker(w));
    await new Promise((r) => setTimeout(r, 1500));
    stop = true;
    first.proc.kill('SIGKILL');
    const outcome = await first.exited;
    await Promise.all(workers);
    expect(outcome.signal).toBe('SIGKILL');
    // the load was real: many accounts and many list writes acknowledged
    expect(requests).toBeGreaterThan(100);
    expect(acked.size).toBeGreaterThanOrEqual(10);
    const ackedPuts = [...acked.values()].reduce((sum, a) => sum + a.version, 0);
    expect(ackedPuts).toBeGreaterThan(50);

    // the file left by the killed process is consistent
    expect(integrity(db)).toBe('ok');

    const second = await startChild(db);
    try {
      const fresh = await grant(second.url);
      const h2 = { Authorization: `Bearer ${fresh}`, 'X-Platform-Parent-Account-Id': DEMO.parent };
      for (const a of acked.values()) {
        const detail = await send(second.url, 'GET', `/__sandbox/accounts/${a.accountId}`, {});
        expect(detail.status, `account ${a.accountId} lost`).toBe(200);
        expect(detail.body.account.external_account_id).toBe(a.external);
        const c = detail.body.controls;
        if (c.content_hash === a.hash) {
          expect(c.version).toBe(a.version);
          if (a.version > 0) expect(c.domains.map((d: Json) => d.domain)).toEqual(a.domains);
        } else {
          // one later write (sent, not yet answered when the process died) landed on top
          expect(c.version, `account ${a.accountId}: acknowledged version ${a.version} lost`).toBe(
            a.version + 1,
          );
        }
        // and the partnership API agrees with the control plane
        const read = await send(second.url, 'GET', CONTROLS(a.accountId), h2);
        expect(read.status).toBe(200);
        expect(read.body.data.marketplace_controls_list.content_hash).toBe(c.content_hash);
      }
      // register still matches on external_account_id after the crash
      const some = [...acked.values()][0]!;
      const again = await send(
        second.url,
        'POST',
        REGISTER,
        h2,
        registerBody({ external_account_id: some.external }),
      );
      expect(again.status).toBe(200);
      expect(again.body.data.account_id).toBe(some.accountId);
    } finally {
      second.proc.kill('SIGTERM');
      expect(await second.exited).toEqual({ code: 0, signal: null });
    }
    expect(integrity(db)).toBe('ok');
  }, 60_000);
});

describe('SIGKILL during a write that holds an Idempotency-Key', () => {
  it('after a restart the key is free: the retry executes (200), not 409 idempotency_key_in_progress', async () => {
    const db = tempDb();
    const first = await startChild(db);
    const token = await grant(first.url);
    const headers = { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent };
    const reg = await send(first.url, 'POST', REGISTER, headers, registerBody());
    expect(reg.status).toBe(200);
    const accountId: string = reg.body.data.account_id;
    const body = { blockedVerticals: [], domains: [{ domain: 'stuck.example.com' }], contentHash: null };
    const key = { ...headers, 'Idempotency-Key': 'held-when-killed' };
    // The write sleeps in the latency scenario with its key reserved, and the process dies.
    void send(
      first.url,
      'PUT',
      CONTROLS(accountId),
      { ...key, 'X-Sandbox-Scenario': 'latency=5000' },
      body,
    ).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    const busy = await send(first.url, 'PUT', CONTROLS(accountId), key, body);
    expect(busy.status).toBe(409);
    first.proc.kill('SIGKILL');
    await first.exited;

    const second = await startChild(db);
    const token2 = await grant(second.url);
    const retry = await send(
      second.url,
      'PUT',
      CONTROLS(accountId),
      { ...key, Authorization: `Bearer ${token2}` },
      body,
    );
    expect(retry.status).toBe(200);
    expect(retry.body.data.marketplace_controls_list.domains).toEqual([
      { domain: 'stuck.example.com', policy: 'Block' },
    ]);
    second.proc.kill('SIGTERM');
    await second.exited;
  }, 60_000);
});

describe('SIGKILL with snapshots saved', () => {
  it("the killed process's snapshot files are removed at the next start-up; none is listed", async () => {
    const db = tempDb();
    const first = await startChild(db);
    for (const name of ['before-kill-1', 'before-kill-2'])
      expect((await send(first.url, 'POST', '/__sandbox/snapshots', {}, { name })).status).toBe(201);
    first.proc.kill('SIGKILL');
    await first.exited;
    expect(readdirSync(`${db}.snapshots`).sort()).toEqual(['before-kill-1.db', 'before-kill-2.db']);

    const second = await startChild(db);
    expect(existsSync(`${db}.snapshots`)).toBe(false);
    expect((await send(second.url, 'GET', '/__sandbox/snapshots', {})).body.snapshots).toEqual([]);
    second.proc.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 60_000);
});

describe('SIGTERM under load', () => {
  it('requests in flight (latency=500) all complete with 200, the process exits 0, and their writes are stored', async () => {
    const db = tempDb();
    const child = await startChild(db);
    const token = await grant(child.url);
    const headers = { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent };
    const reg = await send(
      child.url,
      'POST',
      REGISTER,
      headers,
      registerBody({ external_account_id: 'drain-1' }),
    );
    expect(reg.status).toBe(200);
    const accountId: string = reg.body.data.account_id;
    const slow = { ...headers, 'X-Sandbox-Scenario': 'latency=500' };

    const inFlight = [
      ...Array.from({ length: 5 }, () => send(child.url, 'GET', CONTROLS(accountId), slow)),
      ...Array.from({ length: 4 }, (_, i) =>
        send(child.url, 'POST', REGISTER, slow, registerBody({ external_account_id: `drain-slow-${i}` })),
      ),
      send(
        child.url,
        'PUT',
        CONTROLS(accountId),
        { ...slow, 'Idempotency-Key': 'drain-put' },
        { blockedVerticals: [], domains: [{ domain: 'drained.example.com' }], contentHash: null },
      ),
    ];
    // let them reach the server and start sleeping, then ask it to stop
    await new Promise((r) => setTimeout(r, 200));
    const termAt = Date.now();
    child.proc.kill('SIGTERM');
    const answers = await Promise.all(inFlight);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body.status).toBe(200);
    }
    // they were still in flight when SIGTERM arrived (latency 500 ms, signal at ~200 ms)
    expect(Date.now() - termAt).toBeGreaterThan(150);
    expect(await child.exited).toEqual({ code: 0, signal: null });

    // the drained write and registrations were committed before the database closed
    expect(integrity(db)).toBe('ok');
    const conn = new Database(db, { readonly: true });
    try {
      const externals = conn
        .prepare('SELECT external_account_id FROM accounts WHERE external_account_id LIKE ? ORDER BY 1')
        .pluck()
        .all('drain-slow-%');
      expect(externals).toEqual(['drain-slow-0', 'drain-slow-1', 'drain-slow-2', 'drain-slow-3']);
    } finally {
      conn.close();
    }
    const restarted = await startChild(db);
    try {
      const d = await send(restarted.url, 'GET', `/__sandbox/accounts/${accountId}`, {});
      expect(d.status).toBe(200);
      expect(d.body.controls.version).toBe(1);
      expect(d.body.controls.domains.map((x: Json) => x.domain)).toEqual(['drained.example.com']);
    } finally {
      restarted.proc.kill('SIGTERM');
      expect((await restarted.exited).code).toBe(0);
    }
  }, 60_000);
});
