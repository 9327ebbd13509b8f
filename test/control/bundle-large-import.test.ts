/**
 * Large imports (issue 30 item 6, SANDBOX.md section 10): a large bundle is validated, checked
 * and written by slices between other requests, its rows staged where no reader sees them, then
 * the partner is swapped at once. Other partners' calls and health keep answering during it; a
 * request in flight sees the old partner or the new one, never a mix; a failed import leaves
 * the old partner whole and nothing written. (Timings belong to bench/import-large.mjs.)
 */
import { describe, expect, it } from 'vitest';
import { bigBundle, expectSameBundle, exportOf, fieldsOf, importInto } from '../helpers/bundle-helpers.js';
import { createHarness, expectErrorEnvelope, type Harness, MAPPINGS } from '../helpers/harness.js';
import { newTenant } from '../helpers/tenants.js';

/** The demo partner with one account of its own (registered through the API). */
async function demoWithAccount(h: Harness) {
  const demo = await h.client();
  return demo.account();
}

/** The import's staging tables left in the store (none once an import answered). */
const stagingTables = (h: Harness) =>
  h.sandbox.store.db
    .prepare("SELECT name FROM sqlite_temp_master WHERE type = 'table' AND name LIKE 'import_stage_%'")
    .all();

/** A turn of the event loop, as a request arriving over a socket would wait for (app.request alone never leaves the microtasks). */
const nextTurn = () => new Promise((r) => setImmediate(r));

/** Its accounts in ID order (the export orders accounts of one creation time by ID). */
const byId = <T extends { accounts: { account_id: string }[] }>(b: T): T => ({
  ...b,
  accounts: [...b.accounts].sort((x, y) => x.account_id.localeCompare(y.account_id)),
});

const status = async (h: Harness, path: string) => (await h.app.request(path)).status;

describe('a large import by slices, swapped at once', () => {
  it("another partner's calls and health keep answering during it; the partner is then the bundle's", async () => {
    const h = createHarness();
    await demoWithAccount(h);
    const bundle = await bigBundle(h, 3000);
    const other = await newTenant(h, 'bystander');
    let done = false;
    const importing = importInto(h, bundle).finally(() => (done = true));
    let calls = 0;
    let healthy = 0;
    while (!done) {
      await nextTurn();
      const [call, health] = await Promise.all([
        other.client.get(MAPPINGS),
        h.app.request('/__sandbox/health'),
      ]);
      expect(call.status).toBe(200);
      expect(health.status).toBe(200);
      if (!done) {
        calls++;
        healthy++;
      }
    }
    const imported = await importing;
    expect(imported.status, imported.text.slice(0, 300)).toBe(200);
    expect(imported.body).toEqual({
      imported: {
        parent_account_id: 'pa_demo_platform',
        replaced: true,
        accounts: 3000,
        idempotency_keys: 0,
        armed: 0,
        journal: 0,
      },
    });
    // Served while it ran: far more than the one turn a single-step import would leave.
    expect(calls).toBeGreaterThanOrEqual(10);
    expect(healthy).toBeGreaterThanOrEqual(10);
    expectSameBundle(byId(await exportOf(h, 'pa_demo_platform')), byId(bundle));
    expect(stagingTables(h)).toEqual([]);
  }, 60_000);

  it('a request in flight sees the old partner or the new one, never a mix', async () => {
    const h = createHarness();
    const old = await demoWithAccount(h);
    const bundle = await bigBundle(h, 2000);
    let done = false;
    const importing = importInto(h, bundle).finally(() => (done = true));
    const seen = new Set<string>();
    while (!done) {
      await nextTurn();
      // The new partner's first account read first: once it is there, its last one is too and
      // the old partner's account is gone.
      const first = await status(h, '/__sandbox/accounts/acct_big_0');
      const last = await status(h, '/__sandbox/accounts/acct_big_1999');
      const gone = await status(h, `/__sandbox/accounts/${old}`);
      if (first === 200) {
        expect(last).toBe(200);
        expect(gone).toBe(404);
        seen.add('new');
      } else {
        expect(first).toBe(404);
        expect(last === 404 || last === 200).toBe(true);
        seen.add('old');
      }
    }
    expect((await importing).status).toBe(200);
    expect(seen.has('old')).toBe(true);
    expect(await status(h, `/__sandbox/accounts/${old}`)).toBe(404);
    expect(await status(h, '/__sandbox/accounts/acct_big_1999')).toBe(200);
  }, 60_000);

  it('a bad row at the end is a 400 naming it: the old partner is whole, nothing written', async () => {
    const h = createHarness();
    await demoWithAccount(h);
    const before = await exportOf(h, 'pa_demo_platform');
    const bundle = await bigBundle(h, 2000);
    // Past the schema (each account is valid alone), found by the check: a repeated page ID.
    bundle.accounts[1999].pages[1].page_id = bundle.accounts[0].pages[0].page_id;
    const refused = await importInto(h, bundle);
    expect(fieldsOf(refused)).toContain('accounts[1999].pages[1].page_id');
    expectSameBundle(await exportOf(h, 'pa_demo_platform'), before);
    expect(await status(h, '/__sandbox/accounts/acct_big_0')).toBe(404);
    expect(stagingTables(h)).toEqual([]);
  }, 60_000);

  it('two imports racing for the same account IDs: one lands, the other is a 400 naming the ID; that partner is left whole', async () => {
    const h = createHarness();
    await demoWithAccount(h);
    const demoBefore = await exportOf(h, 'pa_demo_platform');
    const first = await bigBundle(h, 1500);
    const rival = await newTenant(h, 'rival');
    const rivalAccount = await rival.client.account();
    const rivalBefore = await exportOf(h, rival.parent);
    // The rival's bundle claims the same account IDs (with its own credentials and other IDs).
    const second = await bigBundle(h, 1500, 'other');
    second.partner = rivalBefore.partner;
    second.vertical_mappings = rivalBefore.vertical_mappings;
    second.accounts = second.accounts.map((a: { account_id: string }, i: number) => ({
      ...a,
      account_id: `acct_big_${i}`,
    }));
    const [a, b] = await Promise.all([importInto(h, first), importInto(h, second)]);
    // Imports go one at a time, whichever body was read and parsed first going first.
    const [won, lost] = a.status === 200 ? [a, b] : [b, a];
    expect(won.status, won.text.slice(0, 300)).toBe(200);
    expect(fieldsOf(lost)).toContain('accounts[0].account_id');
    if (won === a) {
      expectSameBundle(await exportOf(h, rival.parent), rivalBefore);
      expect(await status(h, `/__sandbox/accounts/${rivalAccount}`)).toBe(200);
    } else {
      expectSameBundle(await exportOf(h, 'pa_demo_platform'), demoBefore);
      expect(await status(h, `/__sandbox/accounts/${rivalAccount}`)).toBe(404);
    }
    expect(stagingTables(h)).toEqual([]);
  }, 60_000);

  it('a snapshot restored while the rows are staged: the import still lands whole, on the restored store', async () => {
    const h = createHarness();
    await demoWithAccount(h);
    expect((await h.request('POST', '/__sandbox/snapshots', { body: { name: 'before' } })).status).toBe(201);
    const bundle = await bigBundle(h, 3000);
    const importing = importInto(h, bundle);
    // Once the rows are being staged (its tables exist), the store is put back under them.
    while (stagingTables(h).length === 0) await nextTurn();
    expect((await h.request('POST', '/__sandbox/snapshots/before/restore')).status).toBe(200);
    const imported = await importing;
    expect(imported.status, imported.text.slice(0, 300)).toBe(200);
    expectSameBundle(byId(await exportOf(h, 'pa_demo_platform')), byId(bundle));
  }, 60_000);

  it('a large body that is not JSON, parsed on another thread, is the same 400 malformed_json; nothing written', async () => {
    const h = createHarness();
    await demoWithAccount(h);
    const bundle = await bigBundle(h, 1000);
    const text = JSON.stringify(bundle);
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const cut = await h.request('POST', '/__sandbox/bundles', {
      raw: text.slice(0, -10),
      headers: { 'Content-Type': 'application/json' },
    });
    const body = expectErrorEnvelope(cut, 400, 'malformed_json');
    expect(body.message).toMatch(/^Request body is not valid JSON: /);
    expect(await status(h, '/__sandbox/accounts/acct_big_0')).toBe(404);
  }, 60_000);
});
