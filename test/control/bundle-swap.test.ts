/**
 * A large import's swap by slices (SANDBOX.md section 10, docs/performance.md): in memory, the
 * partner's old rows go and the staged ones come in a slice at a time, other partners' calls
 * served between slices. Meanwhile what could see the partner half-moved waits: its own calls
 * (they then start over against the new partner) and the control plane, but health; imports go
 * one at a time. (state/bundles/swap-gate.ts; timings belong to bench/import-large.mjs.)
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleText, exportBundle, SwapGate, withinImportLimit } from '../../src/state/index.js';
import { bigBundle, expectSameBundle, exportOf, fieldsOf, importInto } from '../helpers/bundle-helpers.js';
import { CONTROLS, createHarness, expectErrorEnvelope, type Harness, MAPPINGS } from '../helpers/harness.js';
import { newTenant } from '../helpers/tenants.js';

const DEMO_PARENT = 'pa_demo_platform';
const nextTurn = () => new Promise((r) => setImmediate(r));
/** Waits (a turn at a time) until the import's swap holds this partner's calls. */
async function untilSwapping(h: Harness, parent: string, importing: Promise<unknown>) {
  let answered = false;
  void importing.then(() => (answered = true));
  while (!h.sandbox.gate.heldFor(parent)) {
    expect(answered, 'the import answered before its swap was seen').toBe(false);
    await nextTurn();
  }
}
/** A request body whose bytes come when `send` is called. */
function laterBody() {
  let send!: (text: string) => void;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      send = (text) => {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      };
    },
  });
  return { stream, send: (text: string) => send(text) };
}
type BundleOf = Awaited<ReturnType<typeof bigBundle>>;
const byId = <T extends { accounts: { account_id: string }[] }>(b: T): T => ({
  ...b,
  accounts: [...b.accounts].sort((x, y) => x.account_id.localeCompare(y.account_id)),
});

describe('a large import swapped in by slices', () => {
  it("the partner's own calls wait and then meet the new partner; other partners, health and the swap's end", async () => {
    const h = createHarness();
    const demo = await h.client();
    const oldAccount = await demo.account();
    const bundle = await bigBundle(h, 4000);
    const other = await newTenant(h, 'bystander');
    const bodyLater = laterBody();
    let swapped = true;
    const ended = () => {
      swapped &&= h.sandbox.gate.heldFor(DEMO_PARENT) === undefined;
    };
    const own = Promise.resolve(
      h.app.request(CONTROLS(oldAccount), {
        method: 'PUT',
        headers: { ...demo.headers, 'Content-Type': 'application/json', 'Idempotency-Key': 'in-flight' },
        body: bodyLater.stream,
        duplex: 'half',
      } as RequestInit),
    ).then((r) => {
      ended();
      return r;
    });
    const importing = importInto(h, bundle);
    await untilSwapping(h, DEMO_PARENT, importing);

    // Another partner's call and health answer while the swap is still under way.
    const call = await other.client.get(MAPPINGS);
    expect(call.status).toBe(200);
    const health = await h.app.request('/__sandbox/health');
    expect(health.status).toBe(200);
    expect(h.sandbox.gate.heldFor(DEMO_PARENT)).toBeDefined();

    // The partner's own call, in flight since before the swap (its body comes now), and a
    // control-plane read wait for the end of the swap.
    bodyLater.send('{"contentHash":"x","name":"n","blocked":[],"domains":[]}');
    const control = h.request('GET', '/__sandbox/accounts/acct_big_3999').then((r) => {
      ended();
      return r;
    });
    const imported = await importing;
    expect(imported.status, imported.text.slice(0, 300)).toBe(200);
    // The new partner: the old token went with the old partner; the bundle's last account is there.
    const answer = await own;
    expectErrorEnvelope(
      { status: answer.status, headers: answer.headers, body: await answer.json() } as never,
      401,
      'unauthorized',
    );
    expect((await control).status).toBe(200);
    expect(swapped).toBe(true);
    expect(h.sandbox.gate.heldFor(DEMO_PARENT)).toBeUndefined();
    expectSameBundle(byId(await exportOf(h, DEMO_PARENT)), byId(bundle));
  }, 60_000);

  it('a call with a token of the new partner, made during the swap, waits and takes one chaos position', async () => {
    const h = createHarness();
    const oldAccount = await (await h.client()).account();
    const profile = { rate: 0, seed: 7, parent_account_id: DEMO_PARENT };
    expect((await h.request('PUT', '/__sandbox/chaos', { body: profile })).status).toBe(200);
    const bundle = await bigBundle(h, 4000);
    const before = bundle.chaos.call;
    const importing = importInto(h, bundle);
    await untilSwapping(h, DEMO_PARENT, importing);
    // Once the import's transaction is written (the new partner's credentials), its slices move.
    while (h.sandbox.store.accounts.byId(oldAccount)) await nextTurn();
    expect(h.sandbox.gate.heldFor(DEMO_PARENT)).toBeDefined();
    const fresh = await h.client();
    let waited = false;
    const call = fresh.get(CONTROLS('acct_big_0')).then((r) => {
      waited = h.sandbox.gate.heldFor(DEMO_PARENT) === undefined;
      return r;
    });
    expect((await importing).status).toBe(200);
    expect((await call).status).toBe(200);
    expect(waited).toBe(true);
    expect((await exportOf(h, DEMO_PARENT)).chaos.call).toBe(before + 1);
  }, 60_000);

  it('a control-plane call whose body is slow to come holds neither the swap nor the rest of the control plane', async () => {
    const h = createHarness();
    await (await h.client()).account();
    const bundle = await bigBundle(h, 3000);
    // A control-plane write whose body has not come yet (a hostile or stalled client).
    const bodyLater = laterBody();
    const slow = Promise.resolve(
      h.app.request('/__sandbox/chaos', {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: bodyLater.stream,
        duplex: 'half',
      } as RequestInit),
    );
    await nextTurn();
    const profile = JSON.stringify({ rate: 0, seed: 3, parent_account_id: 'pa_unseeded_platform' });
    let sent = false;
    const giveUp = setTimeout(() => {
      sent = true;
      bodyLater.send(profile);
    }, 20_000);
    try {
      const imported = await importInto(h, bundle);
      const control = await h.request('GET', '/__sandbox/clock');
      expect(sent, 'the import or the control plane waited for the slow body').toBe(false);
      expect(imported.status, imported.text.slice(0, 300)).toBe(200);
      expect(imported.body.imported).toMatchObject({ accounts: 3000 });
      expect(control.status).toBe(200);
    } finally {
      clearTimeout(giveUp);
    }
    // Its body comes at last: it is served as ever.
    bodyLater.send(profile);
    const answer = await slow;
    expect(answer.status, await answer.clone().text()).toBe(200);
    const chaos = await h.request('GET', '/__sandbox/chaos');
    expect(JSON.stringify(chaos.body)).toContain('pa_unseeded_platform');
  }, 60_000);

  it('a large partner exported and imported back (every ID its own) is the same partner', async () => {
    const h = createHarness();
    await (await h.client()).account();
    expect((await importInto(h, await bigBundle(h, 3000))).status).toBe(200);
    const exported = await exportOf(h, DEMO_PARENT);
    const again = await importInto(h, exported);
    expect(again.status, again.text.slice(0, 300)).toBe(200);
    expect(again.body.imported).toMatchObject({ replaced: true, accounts: 3000 });
    expectSameBundle(await exportOf(h, DEMO_PARENT), exported);
  }, 60_000);

  it('a client_id taken while the rows were staged: a 400 naming it, nothing written', async () => {
    const h = createHarness();
    await (await h.client()).account();
    const bundle = await bigBundle(h, 3000);
    bundle.partner = { ...bundle.partner, parent_account_id: 'pa_new_here', client_id: 'cid_new_here' };
    const importing = importInto(h, bundle);
    const staging = () =>
      h.sandbox.store.db
        .prepare("SELECT name FROM sqlite_temp_master WHERE type = 'table' AND name LIKE 'import_stage_%'")
        .all().length;
    while (staging() === 0) await nextTurn();
    const taken = await h.request('POST', '/__sandbox/partners', {
      body: { parent_account_id: 'pa_quicker', client_id: 'cid_new_here' },
    });
    expect(taken.status).toBe(201);
    const refused = await importing;
    expect(fieldsOf(refused)).toEqual(['partner.client_id']);
    expectErrorEnvelope(await h.request('GET', '/__sandbox/partners/pa_new_here/bundle'), 404, 'not_found');
    expect((await h.request('GET', '/__sandbox/accounts/acct_big_0')).status).toBe(404);
    expect(staging()).toBe(0);
  }, 60_000);

  it('a large body nested too deep, checked on another thread, is the same 400 naming where', async () => {
    const h = createHarness();
    const deep = `${'['.repeat(65)}${']'.repeat(65)}`;
    const text = `{"deep":${deep},"version":2,"pad":"${'x'.repeat(1024 * 1024)}"}`;
    const small = `{"deep":${deep},"version":2}`;
    const answers = await Promise.all(
      [text, small].map((raw) =>
        h.request('POST', '/__sandbox/bundles', { raw, headers: { 'Content-Type': 'application/json' } }),
      ),
    );
    const [large, same] = answers.map((a) => expectErrorEnvelope(a, 400, 'malformed_json'));
    expect(large.error.details).toEqual({ max_depth: 64, byte_offset: 71 });
    expect(same.error.details).toEqual({ max_depth: 64, byte_offset: 71 });
    expect(large.message).toBe(same.message);
  });
});

describe('a file store killed during a large import', () => {
  /** The database as a process killed now leaves it (its file and write-ahead log, as committed). */
  function killedCopy(db: string): string {
    const copy = `${db}.killed-${Math.random().toString(36).slice(2)}`;
    copyFileSync(db, copy);
    if (existsSync(`${db}-wal`)) copyFileSync(`${db}-wal`, `${copy}-wal`);
    return copy;
  }
  const stagingLeft = (h: Harness) =>
    h.sandbox.store.db
      .prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name LIKE 'import_stage_%'")
      .all().length;

  /**
   * A file store with the demo partner and one account; `during` starts an import and returns,
   * once at the point to kill, the import and what `after` then checks on the killed copy,
   * restarted.
   */
  async function killedDuringImport(
    during: (
      h: Harness,
    ) => Promise<{ importing: Promise<{ status: number }>; after: (h: Harness) => Promise<void> }>,
  ) {
    const dir = mkdtempSync(join(tmpdir(), 'swap-kill-'));
    const h = createHarness({ db: join(dir, 'sandbox.db') });
    try {
      await (await h.client()).account();
      const { importing, after } = await during(h);
      const copy = killedCopy(join(dir, 'sandbox.db'));
      expect((await importing).status).toBe(200);
      const restarted = createHarness({ db: copy });
      try {
        expect(restarted.sandbox.store.meta.get('import_swap')).toBeUndefined();
        expect(stagingLeft(restarted)).toBe(0);
        await after(restarted);
      } finally {
        restarted.sandbox.close();
      }
    } finally {
      h.sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("during the swap: the next start-up finishes it, and the partner is the bundle's", async () => {
    await killedDuringImport(async (h) => {
      const bundle = await bigBundle(h, 3000);
      const importing = importInto(h, bundle);
      await untilSwapping(h, DEMO_PARENT, importing);
      // Its transaction written (the marker with it), then a slice of the rows, more to come.
      while (h.sandbox.store.meta.get('import_swap') === undefined) await nextTurn();
      await nextTurn();
      expect(h.sandbox.store.meta.get('import_swap')).toBeDefined();
      return {
        importing,
        after: async (restarted) =>
          expectSameBundle(byId(await exportOf(restarted, DEMO_PARENT)), byId(bundle)),
      };
    });
  }, 60_000);

  it('while the rows were staged: the next start-up drops them, and the partner is the old one', async () => {
    await killedDuringImport(async (h) => {
      const before = await exportOf(h, DEMO_PARENT);
      const importing = importInto(h, await bigBundle(h, 3000));
      while (stagingLeft(h) === 0) await nextTurn();
      await nextTurn();
      return {
        importing,
        // The store's part (the journal lives in memory: it goes with the process).
        after: async (restarted) =>
          expectSameBundle(
            { ...(await exportOf(restarted, DEMO_PARENT)), journal: [] },
            { ...before, journal: [] },
          ),
      };
    });
  }, 60_000);
});

describe('a store that refuses a slice of the swap (a full disk)', () => {
  it("a slice refused once: the rest goes in at once, and the partner is the bundle's whole", async () => {
    const h = createHarness();
    await (await h.client()).account();
    const bundle = await bigBundle(h, 4000);
    // The store refuses one write into the controls lists, the first the swap's slices make.
    let refusals = 1;
    h.sandbox.store.db.function('refuse_once', () => (refusals-- > 0 ? 1 : 0));
    h.sandbox.store.db.exec(
      "CREATE TEMP TRIGGER refuse_once BEFORE INSERT ON main.controls_lists WHEN refuse_once() BEGIN SELECT RAISE(ABORT, 'refused'); END",
    );
    const imported = await importInto(h, bundle);
    expect(refusals).toBeLessThan(0); // refused once, then it took the rest
    expect(imported.status, imported.text.slice(0, 300)).toBe(200);
    expect(h.sandbox.gate.heldFor(DEMO_PARENT)).toBeUndefined();
    expectSameBundle(byId(await exportOf(h, DEMO_PARENT)), byId(bundle));
  }, 60_000);

  /**
   * A file store with the demo partner and one account, and a large import of it whose slices
   * and then finish the store refuses (its disk fills once the swap moves): the 503, then `after`.
   */
  async function refusedMidSwap(
    after: (h: Harness, bundle: BundleOf, db: string, other: BundleOf) => Promise<void>,
  ) {
    const dir = mkdtempSync(join(tmpdir(), 'swap-full-'));
    const db = join(dir, 'sandbox.db');
    const h = createHarness({ db });
    try {
      await (await h.client()).account();
      const bundle = await bigBundle(h, 6000);
      // Another partner's large bundle, for later.
      const other = await bigBundle(h, 1000, 'other');
      other.partner = { ...other.partner, parent_account_id: 'pa_other_here', client_id: 'cid_other_here' };
      const importing = importInto(h, bundle);
      await untilSwapping(h, DEMO_PARENT, importing);
      // Its transaction written (the marker with it), then a slice of the rows; then the disk fills.
      while (h.sandbox.store.meta.get('import_swap') === undefined) await nextTurn();
      await nextTurn();
      const pages = h.sandbox.store.db.pragma('page_count', { simple: true }) as number;
      h.sandbox.store.db.pragma(`max_page_count = ${pages}`);
      expectErrorEnvelope(await importing, 503, 'store_not_writable');
      // Neither the marker nor the staged rows went: dropping them would leave the partner half
      // moved for good (its accounts without their controls lists).
      expect(h.sandbox.store.meta.get('import_swap')).toBeDefined();
      expect(h.sandbox.gate.heldFor(DEMO_PARENT)).toBeUndefined();
      await after(h, bundle, db, other);
    } finally {
      if (h.sandbox.store.db.open) h.sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const stagingTables = (h: Harness) =>
    h.sandbox.store.db.prepare("SELECT name FROM main.sqlite_master WHERE name LIKE 'import_stage_%'").all();

  it('and the rest too: a file store keeps what was staged and its marker, and the next start-up finishes the swap', async () => {
    await refusedMidSwap(async (h, bundle, db) => {
      h.sandbox.close();
      const restarted = createHarness({ db });
      try {
        expect(restarted.sandbox.store.meta.get('import_swap')).toBeUndefined();
        expect(stagingTables(restarted)).toEqual([]);
        expectSameBundle(byId(await exportOf(restarted, DEMO_PARENT)), byId(bundle));
        const fresh = await restarted.client();
        expect((await fresh.get(CONTROLS('acct_big_5999'))).status).toBe(200);
      } finally {
        restarted.sandbox.close();
      }
    });
  }, 60_000);

  it('and the rest too: a partner reset, once space is freed, finishes that swap first, so the reset outlasts a restart', async () => {
    await refusedMidSwap(async (h, _bundle, db) => {
      h.sandbox.store.db.pragma('max_page_count = 1073741823');
      const reset = await h.request('POST', `/__sandbox/partners/${DEMO_PARENT}/reset`);
      expect(reset.status, reset.text).toBe(200);
      expect(h.sandbox.store.meta.get('import_swap')).toBeUndefined();
      expect(stagingTables(h)).toEqual([]);
      expect((await exportOf(h, DEMO_PARENT)).accounts).toEqual([]);
      h.sandbox.close();
      const restarted = createHarness({ db });
      try {
        expect((await exportOf(restarted, DEMO_PARENT)).accounts).toEqual([]);
      } finally {
        restarted.sandbox.close();
      }
    });
  }, 60_000);

  it("and the rest too: the next large import, once space is freed, finishes that swap before its own (its marker would replace the other's)", async () => {
    await refusedMidSwap(async (h, bundle, _db, other) => {
      h.sandbox.store.db.pragma('max_page_count = 1073741823');
      const imported = await importInto(h, other);
      expect(imported.status, imported.text.slice(0, 300)).toBe(200);
      expect(h.sandbox.store.meta.get('import_swap')).toBeUndefined();
      expect(stagingTables(h)).toEqual([]);
      expectSameBundle(byId(await exportOf(h, DEMO_PARENT)), byId(bundle));
      expect((await exportOf(h, 'pa_other_here')).accounts).toHaveLength(1000);
    });
  }, 60_000);
});

describe('a large body of few accounts (long controls lists)', () => {
  /** The demo partner's bundle with `n` accounts whose lists hold 10,000 domains each (about 0.7 MB). */
  async function fatBundle(h: Harness, n: number) {
    const bundle = await bigBundle(h, n);
    bundle.accounts.forEach((a: { controls: { domains: unknown[] } }, i: number) => {
      a.controls.domains = Array.from({ length: 10_000 }, (_, j) => ({
        domain: `shop-${i}-${j}.a-rather-long-merchant-domain-name.example.com`,
        policy: 'Block',
      }));
    });
    return bundle;
  }

  it("goes by turns like many accounts (staged, swapped by slices); another partner's calls answer during it", async () => {
    const h = createHarness();
    await (await h.client()).account();
    const bundle = await fatBundle(h, 4);
    const other = await newTenant(h, 'bystander');
    let done = false;
    const importing = importInto(h, bundle).finally(() => (done = true));
    let staged = false;
    let swapping = false;
    while (!done) {
      await nextTurn();
      staged ||=
        h.sandbox.store.db
          .prepare("SELECT name FROM sqlite_temp_master WHERE type = 'table' AND name LIKE 'import_stage_%'")
          .all().length > 0;
      swapping ||= h.sandbox.gate.heldFor(DEMO_PARENT) !== undefined;
      expect((await other.client.get(MAPPINGS)).status).toBe(200);
    }
    const imported = await importing;
    expect(imported.status, imported.text.slice(0, 300)).toBe(200);
    expect(imported.body.imported.accounts).toBe(4);
    // Four accounts, but 2.8 MB: not the one-step import of a small bundle.
    expect(staged).toBe(true);
    expect(swapping).toBe(true);
    expectSameBundle(byId(await exportOf(h, DEMO_PARENT)), byId(bundle));
  }, 60_000);

  it('a large bundle of the earlier version (1: the secret in clear) goes by turns too; its secret works', async () => {
    const h = createHarness();
    await (await h.client()).account();
    const current = await fatBundle(h, 2);
    const { client_secret_hash: _, ...partner } = current.partner;
    const secret = 'a-secret-chosen-for-this-test-0123456789';
    const earlier = { ...current, version: 1, partner: { ...partner, client_secret: secret } };
    const importing = importInto(h, earlier);
    let swapping = false;
    let done = false;
    void importing.finally(() => (done = true));
    while (!done) {
      swapping ||= h.sandbox.gate.heldFor(DEMO_PARENT) !== undefined;
      await nextTurn();
    }
    expect((await importing).status).toBe(200);
    expect(swapping).toBe(true);
    const token = await h.request('POST', '/oauth/token', {
      raw: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: partner.client_id,
        client_secret: secret,
      }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(token.status).toBe(200);
    expect((await exportOf(h, DEMO_PARENT)).accounts).toHaveLength(2);
  }, 60_000);

  it('a bad domain in the last account is a 400 naming it at its index; the old partner is whole', async () => {
    const h = createHarness();
    await (await h.client()).account();
    const before = await exportOf(h, DEMO_PARENT);
    const bundle = await fatBundle(h, 3);
    bundle.accounts[2].controls.domains[9_999] = { domain: 'not a domain', policy: 'Block' };
    const refused = await importInto(h, bundle);
    expect(fieldsOf(refused)).toEqual(['accounts[2].controls.domains[9999].domain']);
    expectSameBundle(await exportOf(h, DEMO_PARENT), before);
  }, 60_000);
});

describe('the export of a large partner', () => {
  it("goes by turns, the partner's calls held meanwhile; the same bundle as at once; other partners served", async () => {
    const h = createHarness();
    await (await h.client()).account();
    expect((await importInto(h, await bigBundle(h, 3000))).status).toBe(200);
    const atOnce = exportBundle(h.sandbox, DEMO_PARENT);
    const other = await newTenant(h, 'bystander');
    let done = false;
    const exporting = h
      .request('GET', `/__sandbox/partners/${DEMO_PARENT}/bundle`)
      .finally(() => (done = true));
    let held = false;
    let served = 0;
    while (!done) {
      held ||= h.sandbox.gate.heldFor(DEMO_PARENT) !== undefined;
      expect((await other.client.get(MAPPINGS)).status).toBe(200);
      if (!done) served++;
      await nextTurn();
    }
    const exported = await exporting;
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/json');
    expect(exported.headers.get('content-disposition')).toBe(
      `attachment; filename="sandbox-bundle-${DEMO_PARENT}.json"`,
    );
    expect(held).toBe(true);
    expect(served).toBeGreaterThanOrEqual(5);
    expect(h.sandbox.gate.heldFor(DEMO_PARENT)).toBeUndefined();
    expectSameBundle(exported.body, atOnce);
    // It imports back.
    expect((await importInto(h, exported.body)).status).toBe(200);
  }, 60_000);
});

describe("the export's text by turns", () => {
  it('is the text of the bundle at once, its journal cut where the import limit says (escapes, non-ASCII)', async () => {
    const journal = Array.from({ length: 1200 }, (_, i) => ({ id: i, body: 'é"x\u0000'.repeat(8_000) }));
    const bundle = {
      kind: 'partnership-sandbox-bundle',
      version: 2,
      exported_at: '2026-11-26T00:00:00.000Z',
      partner: { name: 'a "name" with \u0000' },
      accounts: [{ a: 1 }, { a: 'ü' }],
      journal,
      chaos: null,
    } as never;
    const text = await bundleText(bundle);
    expect(text).toBe(JSON.stringify(withinImportLimit(bundle)));
    expect(JSON.parse(text).journal_left_out).toBeGreaterThan(0);
    const small = { ...(bundle as object), journal: journal.slice(0, 3) } as never;
    expect(await bundleText(small)).toBe(JSON.stringify(withinImportLimit(small)));
  }, 60_000);
});

describe('imports of a large body at once', () => {
  it('past three in progress, a 429 with Retry-After and nothing read; a small one still goes; a place comes back', async () => {
    const h = createHarness();
    await (await h.client()).account();
    const bundle = await bigBundle(h, 1000);
    const text = JSON.stringify(bundle);
    expect(text.length).toBeGreaterThan(1024 * 1024);
    // Three bodies that are still coming hold the three places.
    const pending = [0, 1, 2].map(() => laterBody());
    const holding = pending.map((b) =>
      Promise.resolve(
        h.app.request('/__sandbox/bundles', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Content-Length': String(text.length) },
          body: b.stream,
          duplex: 'half',
        } as RequestInit),
      ),
    );
    await nextTurn();
    const refused = await h.request('POST', '/__sandbox/bundles', {
      raw: text,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(text.length) },
    });
    const body = expectErrorEnvelope(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(body.error.details).toEqual({ retry_after_seconds: 2 });
    expect(body.message).toMatch(/^3 imports of a large bundle are in progress already: retry after 2 s\./);
    // A small bundle (its length stated) is not one of them.
    const small = JSON.stringify(await exportOf(h, DEMO_PARENT));
    const smallAnswer = await h.request('POST', '/__sandbox/bundles', {
      raw: small,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(small)) },
    });
    expect(smallAnswer.status, smallAnswer.text.slice(0, 200)).toBe(200);
    // The held ones go through once their bodies come; then a large one is taken again.
    for (const b of pending) b.send(text);
    for (const answer of await Promise.all(holding)) expect(answer.status).toBe(200);
    expect(
      (
        await h.request('POST', '/__sandbox/bundles', {
          raw: text,
          headers: { 'Content-Type': 'application/json' },
        })
      ).status,
    ).toBe(200);
  }, 60_000);
});

describe('the swap gate', () => {
  it('a swap starts once the control-plane calls in flight are done; new ones wait for its end', async () => {
    const gate = new SwapGate();
    const order: string[] = [];
    let finishSlow!: () => void;
    const slow = gate.control(
      () =>
        new Promise<void>((resolve) => {
          finishSlow = () => {
            order.push('slow done');
            resolve();
          };
        }),
    );
    const closing = gate.close('pa_a').then((open) => {
      order.push('swap');
      return open;
    });
    await nextTurn();
    expect(order).toEqual([]);
    expect(gate.heldFor('pa_a')).toBeUndefined(); // its calls wait once the swap really starts
    const late = gate.control(() => order.push('late'));
    finishSlow();
    await slow;
    const open = await closing;
    expect(gate.heldFor('pa_a')).toBeInstanceOf(Promise);
    expect(gate.heldFor('pa_b')).toBeUndefined();
    await nextTurn();
    expect(order).toEqual(['slow done', 'swap']);
    open();
    await late;
    expect(order).toEqual(['slow done', 'swap', 'late']);
    expect(gate.heldFor('pa_a')).toBeUndefined();
  });

  it('imports go one at a time, in the order they came, a failed one not stopping the next', async () => {
    const gate = new SwapGate();
    const order: string[] = [];
    const run =
      (name: string, fail = false) =>
      async () => {
        order.push(`${name} starts`);
        await nextTurn();
        order.push(`${name} ends`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      gate.oneImport(run('a', true)),
      gate.oneImport(run('b')),
      gate.oneImport(run('c')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(order).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
  });
});
