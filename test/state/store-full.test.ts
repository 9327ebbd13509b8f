/**
 * A store that cannot take writes (issue 25, item 4): a full disk, a read-only store. A
 * write it refuses answers 503 store_not_writable in the envelope naming SANDBOX_DB and
 * the cause, is logged once a minute (never a stack trace), writes nothing and leaves its
 * Idempotency-Key free; health says the store is not writable; writes work again, without
 * a restart, once space is freed.
 *
 * A full disk is SQLite's `max_page_count` on the test's own file store (SQLITE_FULL, as
 * a full disk answers); a read-only store is `query_only` (SQLITE_READONLY). A real 3 MB
 * tmpfs under the built command line is test/state/store-full-disk.test.ts (a release test).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { storeNotWritableMessage, UNSAVED_REPLAY_WARNING } from '../../src/contract/api/messages.js';
import { STORE_LOG_INTERVAL_MS } from '../../src/core/store-health.js';
import type { Logger } from '../../src/state/index.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  registerBody,
} from '../helpers/harness.js';

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

/** A partner's new account and a controls PUT body for it: n domains, the current hash. */
async function blocksWrite(h: Harness, n: number, tag: string) {
  const partner = await h.client();
  const accountId = await partner.account();
  const read = expectOk(await partner.get(CONTROLS(accountId)));
  const body = {
    name: 'Blocks',
    blockedVerticals: [],
    domains: domains(n, tag),
    contentHash: read.marketplace_controls_list.content_hash,
  };
  return { partner, accountId, body };
}

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
  it("a snapshot restore whose last write (releasing the image's reservations) the store refuses stands whole: store, armed scenarios and journal are the snapshot's", async () => {
    const { h } = fileHarness();
    const partner = await h.client();
    await partner.account();
    const armed = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'latency', value: 1, parent_account_id: DEMO.parent, times: 5 },
    });
    expect(armed.status, armed.text).toBe(200);
    expect((await h.request('POST', '/__sandbox/snapshots', { body: { name: 's1' } })).status).toBe(201);
    const journalAt = (await h.request('GET', '/__sandbox/requests')).body.requests.length;
    const accountsAt = (await h.request('GET', '/__sandbox/partners')).body;

    expect((await h.request('DELETE', '/__sandbox/scenarios')).status).toBe(200);
    await partner.account();
    // The store refuses the restore's one write after the image is back (a disk that just filled).
    h.sandbox.store.idempotency.releaseAbandoned = () => {
      throw new Database.SqliteError('attempt to write a readonly database', 'SQLITE_READONLY');
    };
    const restored = await h.request('POST', '/__sandbox/snapshots/s1/restore');
    expect(restored.status, restored.text).toBe(200);
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toHaveLength(1);
    expect((await h.request('GET', '/__sandbox/requests')).body.requests).toHaveLength(journalAt);
    expect((await h.request('GET', '/__sandbox/partners')).body).toEqual(accountsAt);
  });

  it('a write refused after its key was claimed, whose release is refused too, still leaves the key free', async () => {
    const { h, db } = fileHarness();
    const { partner, accountId, body } = await blocksWrite(h, 2, 'b');
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
    const { partner, accountId, body } = await blocksWrite(h, 3, 'c');
    const key = { 'Idempotency-Key': 'read-only-key-2' };
    // The store turns read-only right after the list is written, before the key's answer is.
    const db = h.sandbox.store.db;
    const put = h.sandbox.store.controls.put;
    h.sandbox.store.controls.put = (row) => {
      const bytes = put(row);
      db.exec('COMMIT');
      db.pragma('query_only = ON');
      db.exec('BEGIN');
      return bytes;
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
