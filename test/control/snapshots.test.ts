/**
 * Snapshots (docs/parallel-tests.md, issue 15 item 3): save, list, restore, delete through HTTP;
 * a restore puts back the store, the clocks, the armed scenarios and the journal, and is
 * atomic with respect to requests: a request in flight sees the state before it or after
 * it, and nothing acknowledged after the restore is lost.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  REGISTER,
  registerBody,
  STATUS,
} from '../helpers/harness.js';
import { count, newTenant, sleep } from '../helpers/tenants.js';

const save = (h: Harness, name: string) => h.request('POST', '/__sandbox/snapshots', { body: { name } });
const restore = (h: Harness, name: string) => h.request('POST', `/__sandbox/snapshots/${name}/restore`);
const accountCount = (h: Harness) =>
  (h.sandbox.store.db.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number }).n;

describe('snapshots: save, list, restore, delete', () => {
  it('a restore puts back accounts, clocks, armed scenarios and the journal as they were at the save', async () => {
    const h = createHarness();
    const a = await newTenant(h, 'a');
    const kept = await a.client.account();
    const saved = await save(h, 'seeded');
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ replaced: false, snapshot: { name: 'seeded' } });
    expect(saved.body.snapshot.size_bytes).toBeGreaterThan(0);
    const journalAtSave = await count(h, {});

    const dropped = await a.client.account();
    expectOk(await a.client.put(STATUS(kept), { status: 'paused' }));
    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 600 } });
    await h.request('POST', `/__sandbox/partners/${a.parent}/clock/advance`, { body: { seconds: 3600 } });
    await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'rate-limited', parent_account_id: a.parent },
    });

    const restored = await restore(h, 'seeded');
    expect(restored.status).toBe(200);
    expect(restored.body.restored.name).toBe('seeded');
    expect(restored.body.clock.offset_seconds).toBe(0);
    expectErrorEnvelope(await h.request('GET', `/__sandbox/accounts/${dropped}`), 404, 'account_not_found');
    const view = await h.request('GET', `/__sandbox/accounts/${kept}`);
    expect(view.body.status).toBe('active');
    expect((await h.request('GET', `/__sandbox/partners/${a.parent}/clock`)).body.offset_seconds).toBe(0);
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toEqual([]);
    expect(await count(h, {})).toBe(journalAtSave);
    // The token issued before the save is valid in the restored state.
    expectOk(await a.client.get(STATUS(kept)));
  });

  it('restores the clocks and armed scenarios saved with it, and the same snapshot restores twice', async () => {
    const h = createHarness();
    const a = await newTenant(h, 'a');
    await h.request('POST', `/__sandbox/partners/${a.parent}/clock/advance`, { body: { seconds: 120 } });
    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 60 } });
    await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'server-error', value: 503, parent_account_id: a.parent, times: 1 },
    });
    await save(h, 'armed');
    const c = a.client; // its token was issued before the save
    for (let round = 0; round < 2; round++) {
      // The armed scenario's one use is spent, then the restore brings it back.
      expectErrorEnvelope(await c.get('/v1/partnership/vertical-mappings'), 503, 'service_unavailable');
      expectOk(await c.get('/v1/partnership/vertical-mappings'));
      await c.account();
      expect((await restore(h, 'armed')).status).toBe(200);
      expect(accountCount(h)).toBe(0);
      const clock = (await h.request('GET', `/__sandbox/partners/${a.parent}/clock`)).body;
      expect(clock).toMatchObject({ offset_seconds: 120, global_offset_seconds: 60 });
    }
  });

  it('lists snapshots with size and time; saving a name again replaces it; delete drops it', async () => {
    const h = createHarness();
    expect((await save(h, 'one')).status).toBe(201);
    await h.client().then((c) => c.account());
    expect((await save(h, 'two')).status).toBe(201);
    const again = await save(h, 'one');
    expect(again.status).toBe(200);
    expect(again.body.replaced).toBe(true);
    const list = await h.request('GET', '/__sandbox/snapshots');
    expect(list.status).toBe(200);
    expect(list.body.snapshots.map((s: { name: string }) => s.name).sort()).toEqual(['one', 'two']);
    for (const s of list.body.snapshots) {
      expect(s.size_bytes).toBeGreaterThan(4096);
      expect(Date.parse(s.saved_at)).not.toBeNaN();
      expect(Date.parse(s.clock)).not.toBeNaN();
    }
    const deleted = await h.request('DELETE', '/__sandbox/snapshots/two');
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted.name).toBe('two');
    expectErrorEnvelope(await restore(h, 'two'), 404, 'not_found');
    expectErrorEnvelope(await h.request('DELETE', '/__sandbox/snapshots/two'), 404, 'not_found');
    expect((await h.request('GET', '/__sandbox/snapshots')).body.snapshots).toHaveLength(1);
  });

  it('a bad name is 400 naming it; the count is bounded', async () => {
    const h = createHarness();
    for (const name of ['', '../etc', 'a b', '.hidden', 'x'.repeat(65), 7]) {
      const res = await h.request('POST', '/__sandbox/snapshots', { body: { name } });
      expect(expectErrorEnvelope(res, 400, 'validation_error').error.details.fields[0].field).toBe('name');
    }
    expect((await h.request('POST', '/__sandbox/snapshots', { body: {} })).status).toBe(400);
    for (let i = 0; i < 32; i++) expect((await save(h, `s${i}`)).status).toBe(201);
    const over = expectErrorEnvelope(await save(h, 's32'), 400, 'validation_error');
    expect(over.error.details.fields[0].field).toBe('name');
    expect((await save(h, 's0')).status).toBe(200); // replacing one is fine
  });

  it('the global reset keeps snapshots (they are saved states, not state)', async () => {
    const h = createHarness();
    await h.client().then((c) => c.account());
    await save(h, 'with-account');
    await h.request('POST', '/__sandbox/reset');
    expect(accountCount(h)).toBe(0);
    await restore(h, 'with-account');
    expect(accountCount(h)).toBe(1);
  });
});

describe('a restore is atomic with respect to requests', () => {
  it('writes in flight across a restore start over against the restored state: acknowledged after it means kept, nothing half-applied, no key left in progress', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    await save(h, 'base');
    const before = await partner.account(); // acknowledged before the restore: gone after it
    let restoredAt = Number.POSITIVE_INFINITY;
    const answeredAt = new Map<string, number>();
    const registers = Array.from({ length: 12 }, (_, i) => {
      const external = `racing-${i}`;
      return partner
        .call('POST', REGISTER, {
          body: registerBody({ external_account_id: external }),
          headers: { 'X-Sandbox-Scenario': `latency=${i * 10}` },
        })
        .then((res) => {
          answeredAt.set(external, performance.now());
          return { external, res };
        });
    });
    const statusWrite = partner.put(
      STATUS(accountId),
      { status: 'paused' },
      { 'X-Sandbox-Scenario': 'latency=80', 'Idempotency-Key': 'racing-key' },
    );
    await sleep(55);
    const res = await restore(h, 'base');
    restoredAt = performance.now();
    expect(res.status).toBe(200);
    const answers = await Promise.all(registers);
    expect(expectOk(await statusWrite).status).toBe('paused');

    let kept = 0;
    let lost = 0;
    for (const { external, res } of answers) {
      const data = expectOk(res);
      const row = h.sandbox.store.db
        .prepare('SELECT account_id FROM accounts WHERE external_account_id = ?')
        .get(external) as { account_id: string } | undefined;
      if (row) {
        kept++;
        expect(row.account_id).toBe(data.account_id);
        // Whole: its pages, layouts, variants and controls list.
        const view = await h.request('GET', `/__sandbox/accounts/${row.account_id}`);
        expect(view.body.pages.length).toBe(data.pages.length);
        expect(view.body.layouts.length).toBe(data.pages.length);
        expect(view.body.variants.length).toBe(data.pages.length);
        expect(view.body.controls.version).toBe(0);
      } else {
        lost++;
        // Only a register answered before the restore may be missing.
        expect(answeredAt.get(external)!).toBeLessThan(restoredAt);
      }
    }
    expect(kept).toBeGreaterThan(0);
    expect(lost).toBeGreaterThan(0);
    expectErrorEnvelope(await h.request('GET', `/__sandbox/accounts/${before}`), 404, 'account_not_found');
    // The status write held across the restore landed in the restored state and stored its key.
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.status).toBe('paused');
    const retry = await partner.put(
      STATUS(accountId),
      { status: 'paused' },
      { 'Idempotency-Key': 'racing-key' },
    );
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(
      h.sandbox.store.db
        .prepare("SELECT count(*) AS n FROM idempotency_keys WHERE state = 'in_progress'")
        .get(),
    ).toEqual({ n: 0 });
    expect(h.sandbox.store.db.pragma('foreign_key_check')).toEqual([]);
  });

  it('a reservation saved in a snapshot (a request in flight at the save) does not block the key after a restore', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const held = partner.put(
      STATUS(accountId),
      { status: 'paused' },
      { 'X-Sandbox-Scenario': 'latency=100', 'Idempotency-Key': 'held-key' },
    );
    await sleep(40);
    await save(h, 'mid-request');
    expectOk(await held);
    await restore(h, 'mid-request');
    const again = await partner.put(
      STATUS(accountId),
      { status: 'paused' },
      { 'Idempotency-Key': 'held-key' },
    );
    expectOk(again);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('snapshots of a file store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-snapshots-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are written beside the database (VACUUM INTO), restored into the same file, dropped on delete and on close', async () => {
    const db = join(dir, 'sandbox.db');
    const h = createHarness({ db });
    const partner = await h.client(DEMO);
    const kept = await partner.account();
    expect((await save(h, 'file-one')).status).toBe(201);
    const file = join(`${db}.snapshots`, 'file-one.db');
    expect(existsSync(file)).toBe(true);
    const dropped = await partner.account();
    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 30 } });
    expect((await restore(h, 'file-one')).status).toBe(200);
    expect(h.sandbox.store.db.name).toBe(db); // still the file
    expectErrorEnvelope(await h.request('GET', `/__sandbox/accounts/${dropped}`), 404, 'account_not_found');
    expectOk(await partner.get(STATUS(kept)));
    expect((await h.request('GET', '/__sandbox/clock')).body.offset_seconds).toBe(0);
    // A write after the restore is durable in the file.
    const later = await partner.account();
    h.sandbox.close();
    const reopened = createHarness({ db });
    expect((await reopened.request('GET', `/__sandbox/accounts/${later}`)).status).toBe(200);
    expect(existsSync(file)).toBe(false); // the process's snapshots went with it
    await save(reopened, 'file-two');
    expect((await reopened.request('DELETE', '/__sandbox/snapshots/file-two')).status).toBe(200);
    expect(existsSync(join(`${db}.snapshots`, 'file-two.db'))).toBe(false);
    reopened.sandbox.close();
  });

  it("a killed process's snapshot files (never closed) are removed at the next start-up, and none is listed", async () => {
    const db = join(dir, 'killed.db');
    const h = createHarness({ db });
    expect((await save(h, 'left-behind')).status).toBe(201);
    const file = join(`${db}.snapshots`, 'left-behind.db');
    expect(existsSync(file)).toBe(true);
    // A SIGKILL closes nothing: the store's file and the snapshot files stay as they are
    // (test/package/crash.test.ts kills a real process). The next start opens the same file.
    const next = createHarness({ db });
    expect(existsSync(`${db}.snapshots`)).toBe(false);
    expect((await next.request('GET', '/__sandbox/snapshots')).body.snapshots).toEqual([]);
    expectErrorEnvelope(await restore(next, 'left-behind'), 404, 'not_found');
    next.sandbox.close();
    h.sandbox.store.db.close();
  });
});
