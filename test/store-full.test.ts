/**
 * A store that cannot take writes (issue 25, item 4): a full disk, a read-only store. A
 * write it refuses answers 503 store_not_writable in the envelope naming SANDBOX_DB and
 * the cause, is logged once a minute (never a stack trace), writes nothing and leaves its
 * Idempotency-Key free; health says the store is not writable; writes work again, without
 * a restart, once space is freed.
 *
 * A full disk is SQLite's `max_page_count` on the test's own file store (SQLITE_FULL, as
 * a full disk answers); a read-only store is `query_only` (SQLITE_READONLY). Where this
 * runs as root on Linux, a real 3 MB tmpfs fills up under the CLI, which is then killed
 * (-9) and restarted (the last suite).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { packageDir } from '../src/config.js';
import { storeNotWritableMessage, UNSAVED_REPLAY_WARNING } from '../src/contract/messages.js';
import type { Logger } from '../src/sandbox.js';
import { STORE_LOG_INTERVAL_MS } from '../src/services/store-health.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  REGISTER,
  registerBody,
} from './harness.js';

const FULL = { code: 'SQLITE_FULL', cause: 'the disk is full' };

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const done of cleanups.splice(0).reverse()) await done();
});

/** Log lines, kept. */
function capture() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = {
    info: (msg, fields) => lines.push({ level: 'info', msg, fields }),
    error: (msg, fields) => lines.push({ level: 'error', msg, fields }),
  };
  return { lines, log };
}

/** A harness on a file store of its own, in a temporary folder removed after the test. */
function fileHarness(log?: Logger) {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-store-full-'));
  const db = join(dir, 'sandbox.db');
  const h = createHarness({ db }, log);
  cleanups.push(() => {
    h.sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { h, db };
}

/** The disk fills: the store may not grow past the pages it has now. */
function fill(h: Harness): void {
  const pages = h.sandbox.store.db.pragma('page_count', { simple: true }) as number;
  h.sandbox.store.db.pragma(`max_page_count = ${pages}`);
}
/** Space is freed. */
function free(h: Harness): void {
  h.sandbox.store.db.pragma('max_page_count = 1073741823');
}

/** Registers accounts until the store refuses one; returns the external IDs it acknowledged and the refusal. */
async function registerUntilRefused(partner: Awaited<ReturnType<Harness['client']>>) {
  const acknowledged: string[] = [];
  for (let i = 0; i < 500; i++) {
    const body = registerBody({ brand: `Brand ${i} ${'b'.repeat(150)}` });
    const res = await partner.register(body);
    if (res.status !== 200) return { acknowledged, refused: res, body };
    acknowledged.push(body.external_account_id);
  }
  throw new Error('the store never filled up');
}

const accountsOf = async (h: Harness) => {
  const res = await h.request('GET', '/__sandbox/partners');
  expect(res.status).toBe(200);
  return (res.body.partners as { parent_account_id: string; accounts: unknown[] }[]).find(
    (p) => p.parent_account_id === DEMO.parent,
  )!.accounts.length;
};

const domains = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ domain: `shop-${tag}-${i}.example.com`, policy: 'Block' }));

describe('a full store (SQLITE_FULL)', () => {
  it('a partnership write answers 503 store_not_writable naming SANDBOX_DB and the cause; nothing is written', async () => {
    const { lines, log } = capture();
    const { h, db } = fileHarness(log);
    const partner = await h.client();
    const before = await accountsOf(h);
    fill(h);
    const { acknowledged, refused, body } = await registerUntilRefused(partner);

    const err = expectErrorEnvelope(refused, 503, 'store_not_writable');
    expect(err.message).toBe(storeNotWritableMessage(db, FULL));
    expect(err.message).toContain(`SANDBOX_DB=${db}`);
    expect(err.message).toContain('the disk is full (SQLITE_FULL)');
    expect(err.error.details).toEqual({ setting: 'SANDBOX_DB', sqlite_code: 'SQLITE_FULL' });
    // The refused registration rolled back whole: no account, no half of one.
    expect(await accountsOf(h)).toBe(before + acknowledged.length);
    const view = await h.request('GET', `/__sandbox/requests?status=503&limit=1`);
    expect(view.body.requests[0].account_id).toBeNull();
    // Logged as what it is, without a stack trace; never as an unhandled error.
    expect(lines.filter((l) => l.msg === 'unhandled error')).toEqual([]);
    expect(lines.filter((l) => l.level === 'error')).toEqual([
      {
        level: 'error',
        msg: 'store cannot take writes',
        fields: {
          setting: 'SANDBOX_DB',
          db,
          code: 'SQLITE_FULL',
          cause: 'the disk is full',
          refused_writes: 1,
          next_log_in_seconds: 60,
        },
      },
    ]);

    // Space freed: the same registration goes through, without a restart.
    free(h);
    const again = expectOk(await partner.register(body));
    expect(typeof again.account_id).toBe('string');
    expect(await accountsOf(h)).toBe(before + acknowledged.length + 1);
  });

  it('is logged once a minute however many writes it refuses, with the count of those not logged', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { lines, log } = capture();
    const { h } = fileHarness(log);
    const partner = await h.client();
    fill(h);
    await registerUntilRefused(partner);
    for (let i = 0; i < 5; i++) expectErrorEnvelope(await partner.register(), 503, 'store_not_writable');
    const logged = () => lines.filter((l) => l.msg === 'store cannot take writes');
    expect(logged()).toHaveLength(1);

    vi.setSystemTime(Date.now() + STORE_LOG_INTERVAL_MS - 1000);
    expectErrorEnvelope(await partner.register(), 503, 'store_not_writable');
    expect(logged()).toHaveLength(1);
    vi.setSystemTime(Date.now() + 1000);
    expectErrorEnvelope(await partner.register(), 503, 'store_not_writable');
    expect(logged()).toHaveLength(2);
    // The 5 and 1 refused since the first line, and this one.
    expect(logged()[1]!.fields!.refused_writes).toBe(7);
    expect(lines.every((l) => !('stack' in (l.fields ?? {})))).toBe(true);
  });

  it('health reports the store not writable (still 200), and writable again once space is freed', async () => {
    const { lines, log } = capture();
    const { h, db } = fileHarness(log);
    const partner = await h.client();
    expect((await h.request('GET', '/__sandbox/health')).body).toEqual({
      status: 'ok',
      store: { writable: true, problem: null },
    });
    fill(h);
    await registerUntilRefused(partner);
    expectErrorEnvelope(await partner.register(), 503, 'store_not_writable');

    const down = await h.request('GET', '/__sandbox/health');
    expect(down.status).toBe(200);
    expect(down.body.status).toBe('ok');
    expect(down.body.store).toEqual({
      writable: false,
      problem: {
        code: 'SQLITE_FULL',
        cause: 'the disk is full',
        message: storeNotWritableMessage(db, FULL),
        since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        failed_writes: 2,
      },
    });
    // Asked again while still full: the probe fails again, and is not counted as a write.
    expect((await h.request('GET', '/__sandbox/health')).body.store.problem.failed_writes).toBe(2);

    free(h);
    expect((await h.request('GET', '/__sandbox/health')).body.store).toEqual({
      writable: true,
      problem: null,
    });
    expect(lines.filter((l) => l.msg === 'store takes writes again')).toHaveLength(1);
    expectOk(await partner.register());
  });

  it('a controls PUT refused leaves the list as it was and its Idempotency-Key free', async () => {
    const { h } = fileHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const read = expectOk(await partner.get(CONTROLS(accountId)));
    const hash = read.marketplace_controls_list.content_hash;
    fill(h);
    const body = { name: 'Blocks', blockedVerticals: [], domains: domains(300, 'a'), contentHash: hash };
    const key = { 'Idempotency-Key': 'full-disk-key-1' };
    expectErrorEnvelope(await partner.put(CONTROLS(accountId), body, key), 503, 'store_not_writable');
    expect(expectOk(await partner.get(CONTROLS(accountId)))).toEqual(read);

    // The same key, space freed: it executes (no replay, no 409 in progress).
    free(h);
    const res = await partner.put(CONTROLS(accountId), body, key);
    const data = expectOk(res);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(data.marketplace_controls_list.domains).toHaveLength(300);
    expect(data.marketplace_controls_list.content_hash).not.toBe(hash);
    // And now it is stored: the retry replays.
    const replay = await partner.put(CONTROLS(accountId), body, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(res.body);
  });
});

describe('a read-only store (SQLITE_READONLY)', () => {
  const READONLY = { code: 'SQLITE_READONLY', cause: 'the store is read-only' };

  it('control-plane writes answer 503 store_not_writable in the envelope, and change nothing', async () => {
    const { h, db } = fileHarness();
    h.sandbox.store.db.pragma('query_only = ON');
    const created = await h.request('POST', '/__sandbox/partners', {
      body: { parent_account_id: 'pa_read_only' },
    });
    const err = expectErrorEnvelope(created, 503, 'store_not_writable');
    expect(err.message).toBe(storeNotWritableMessage(db, READONLY));
    expect(err.error.details).toEqual({ setting: 'SANDBOX_DB', sqlite_code: 'SQLITE_READONLY' });

    // The clock is saved with each advance: a refused save leaves the clocks where they were.
    const advanced = await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 3600 } });
    expectErrorEnvelope(advanced, 503, 'store_not_writable');
    expect((await h.request('GET', '/__sandbox/clock')).body.offset_seconds).toBe(0);
    const partnerClock = await h.request('POST', `/__sandbox/partners/${DEMO.parent}/clock/advance`, {
      body: { seconds: 60 },
    });
    expectErrorEnvelope(partnerClock, 503, 'store_not_writable');
    expect((await h.request('GET', `/__sandbox/partners/${DEMO.parent}/clock`)).body.offset_seconds).toBe(0);

    h.sandbox.store.db.pragma('query_only = OFF');
    expect((await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 3600 } })).status).toBe(
      200,
    );
    expect((await h.request('GET', '/__sandbox/clock')).body.offset_seconds).toBe(3600);
    expect(
      (await h.request('POST', '/__sandbox/partners', { body: { parent_account_id: 'pa_read_only' } }))
        .status,
    ).toBe(201);
  });

  it('the token endpoint answers 503 temporarily_unavailable in its RFC 6749 body', async () => {
    const { h, db } = fileHarness();
    h.sandbox.store.db.pragma('query_only = ON');
    const res = await h.request('POST', '/oauth/token', {
      raw: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error: 'temporarily_unavailable',
      error_description: storeNotWritableMessage(db, READONLY),
    });
    h.sandbox.store.db.pragma('query_only = OFF');
    expect(typeof (await h.token())).toBe('string');
  });
  it('a write refused after its key was claimed, whose release is refused too, still leaves the key free', async () => {
    const { h, db } = fileHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const read = expectOk(await partner.get(CONTROLS(accountId)));
    const body = {
      name: 'Blocks',
      blockedVerticals: [],
      domains: domains(2, 'b'),
      contentHash: read.marketplace_controls_list.content_hash,
    };
    const key = { 'Idempotency-Key': 'read-only-key-1' };
    // The key is claimed, then the store turns read-only while the request waits (latency).
    const slow = partner.put(CONTROLS(accountId), body, { ...key, 'X-Sandbox-Scenario': 'latency=150' });
    await new Promise((r) => setTimeout(r, 50));
    h.sandbox.store.db.pragma('query_only = ON');
    const refused = expectErrorEnvelope(await slow, 503, 'store_not_writable');
    expect(refused.message).toBe(storeNotWritableMessage(db, READONLY));
    // Its reservation could not be deleted, yet the key is free: a retry meets the store, not a 409.
    expectErrorEnvelope(await partner.put(CONTROLS(accountId), body, key), 503, 'store_not_writable');

    h.sandbox.store.db.pragma('query_only = OFF');
    const res = await partner.put(CONTROLS(accountId), body, key);
    expect(expectOk(res).marketplace_controls_list.domains).toHaveLength(2);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a write that went through but whose answer the store refused to record replays from memory', async () => {
    const { h } = fileHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const read = expectOk(await partner.get(CONTROLS(accountId)));
    const body = {
      name: 'Blocks',
      blockedVerticals: [],
      domains: domains(3, 'c'),
      contentHash: read.marketplace_controls_list.content_hash,
    };
    const key = { 'Idempotency-Key': 'read-only-key-2' };
    // The store turns read-only right after the list is written, before the key's answer is.
    const db = h.sandbox.store.db;
    const put = h.sandbox.store.controls.put;
    h.sandbox.store.controls.put = (row) => {
      put(row);
      db.exec('COMMIT');
      db.pragma('query_only = ON');
      db.exec('BEGIN');
    };
    cleanups.push(() => {
      h.sandbox.store.controls.put = put;
    });
    const res = await partner.put(CONTROLS(accountId), body, key);
    const data = expectOk(res);
    h.sandbox.store.controls.put = put;
    const journal = await h.request('GET', '/__sandbox/requests?method=PUT&limit=1');
    expect(journal.body.requests[0].warnings).toContain(UNSAVED_REPLAY_WARNING);

    const replay = await partner.put(CONTROLS(accountId), body, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(res.body);
    db.pragma('query_only = OFF');
    // Written once the store takes writes: a replay still, now from the store.
    const later = await partner.put(CONTROLS(accountId), body, key);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body.data).toEqual(data);
    expect(h.sandbox.store.idempotency.get(DEMO.parent, 'read-only-key-2', Date.now())?.state).toBe('done');
  });
});

/** Root on Linux can mount a tmpfs: the real thing, through a listening server, with a restart. */
const canMount = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'sandbox-tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

/** `node dist/main.js` (built by the tests' global setup) on a free port, its stdout kept. */
async function startChild(db: string) {
  const proc = spawn(process.execPath, [join(packageDir, 'dist', 'main.js')], {
    cwd: packageDir,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SANDBOX_DB: db, SANDBOX_LOG: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => {
    out += String(d);
  });
  proc.stderr.on('data', (d) => {
    err += String(d);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /"msg":"sandbox listening".*?"url":"([^"]+)"/.exec(out);
      if (match) {
        clearInterval(timer);
        resolve(match[1]!);
      } else if (proc.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`exited: ${err}`));
      }
    }, 20);
  });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  return {
    proc,
    url,
    exited,
    log: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
  };
}

describe.runIf(canMount)('a real full disk: a 3 MB tmpfs, the CLI, kill -9', () => {
  it('refuses writes with 503, logs once, loses nothing acknowledged, and takes writes again once space is freed', async () => {
    const mountDir = mkdtempSync(join(tmpdir(), 'sandbox-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mountDir]);
    cleanups.push(() => {
      execFileSync('umount', ['-l', mountDir]);
      rmSync(mountDir, { recursive: true, force: true });
    });
    mkdirSync(join(mountDir, 'data'));
    const db = join(mountDir, 'data', 'sandbox.db');
    // Room that can be freed later.
    writeFileSync(join(mountDir, 'ballast'), Buffer.alloc(512 * 1024));
    let child = await startChild(db);
    const call = async (
      method: string,
      path: string,
      init: { headers?: Record<string, string>; body?: string } = {},
    ) => {
      const res = await fetch(`${child.url}${path}`, { method, ...init });
      // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
      return { status: res.status, body: (await res.json()) as any };
    };
    const token = (
      await call('POST', '/oauth/token', {
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
      })
    ).body.access_token as string;
    const headers = {
      Authorization: `Bearer ${token}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
      'Content-Type': 'application/json',
    };
    const register = () =>
      call('POST', REGISTER, {
        headers,
        body: JSON.stringify(registerBody({ store_identifier: `https://s.example.com/${'p'.repeat(300)}` })),
      });
    const acknowledged: string[] = [];
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 2000 && !refused; i++) {
      const res = await register();
      if (res.status === 200) acknowledged.push(res.body.data.account_id);
      else refused = res;
    }
    expect(refused?.status).toBe(503);
    expect(refused?.body.error).toEqual({
      code: 'store_not_writable',
      details: { setting: 'SANDBOX_DB', sqlite_code: 'SQLITE_FULL' },
    });
    expect(refused?.body.message).toBe(storeNotWritableMessage(db, FULL));
    expect(acknowledged.length).toBeGreaterThan(5);
    for (let i = 0; i < 5; i++) expect((await register()).status).toBe(503);
    const down = await call('GET', '/__sandbox/health');
    expect(down.status).toBe(200);
    expect(down.body.store.writable).toBe(false);
    // One line for the six refusals, no stack trace, nothing "unhandled".
    const errors = child.log().filter((l) => l.level === 'error');
    expect(errors.map((l) => l.msg)).toEqual(['store cannot take writes']);
    expect(errors[0]).not.toHaveProperty('stack');

    rmSync(join(mountDir, 'ballast'));
    expect((await call('GET', '/__sandbox/health')).body.store).toEqual({ writable: true, problem: null });
    const after = await register();
    expect(after.status).toBe(200);
    acknowledged.push(after.body.data.account_id);

    // kill -9 and a restart on the same store: every acknowledged account is there.
    child.proc.kill('SIGKILL');
    await child.exited;
    child = await startChild(db);
    for (const id of acknowledged) expect((await call('GET', `/__sandbox/accounts/${id}`)).status).toBe(200);
  });
});
