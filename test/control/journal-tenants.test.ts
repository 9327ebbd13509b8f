/**
 * The journal per partner (SANDBOX.md section 10, "A tenant holds under volume"; issue 30
 * item 1): each partner keeps its own last SANDBOX_JOURNAL_MAX entries whatever other
 * partners send or import, calls of no known partner have a ring of their own, and all rings
 * stay within SANDBOX_JOURNAL_BUDGET_MB, the partner holding the most bytes losing its oldest
 * first (issue 37 item 11), one call larger than a partner's share cut rather than emptying others.
 */
import { describe, expect, it } from 'vitest';
import {
  CONTROLS,
  createHarness,
  DEMO,
  type Harness,
  MAPPINGS,
  REGISTER,
  registerBody,
} from '../helpers/harness.js';
import { count, newTenant } from '../helpers/tenants.js';

/** A quiet partner's traffic: a register, a read, a write refused by validation, one more read. */
async function quietTraffic(h: Harness) {
  const quiet = await newTenant(h, 'quiet');
  const account = await quiet.client.account();
  await quiet.client.get(CONTROLS(account));
  await quiet.client.put(CONTROLS(account), { blockedVerticals: 'not a list' });
  await quiet.client.get(MAPPINGS);
  return quiet;
}

/** What a partner sees of its journal: the list, the count and the report (its time aside). */
async function view(h: Harness, parent: string) {
  const list = await h.request('GET', `/__sandbox/requests?parent_account_id=${parent}`);
  const report = await h.request('GET', `/__sandbox/report?parent_account_id=${parent}`);
  expect([list.status, report.status]).toEqual([200, 200]);
  const { generated_at: _, ...rest } = report.body;
  return {
    requests: list.body.requests,
    count: await count(h, { parent_account_id: parent }),
    report: rest,
  };
}

/** `n` partnership calls of one partner, straight to the app (the answers are not the point). */
async function noise(h: Harness, headers: Record<string, string>, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await h.app.request(MAPPINGS, { headers });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
}

describe('each partner keeps its own journal', () => {
  it("after another partner's 10,000 calls and 1,500 calls of no known partner, a quiet partner's list, count and report are unchanged", async () => {
    const h = createHarness();
    const quiet = await quietTraffic(h);
    const before = await view(h, quiet.parent);
    expect(before.count).toBe(5); // the token call, then the four above
    expect(before.report.requests_analyzed).toBe(4);

    const noisy = await newTenant(h, 'noisy');
    await noise(h, noisy.client.headers, 10_000);
    for (let i = 0; i < 1_500; i++) {
      const res = await h.app.request(MAPPINGS, { headers: { Authorization: `Bearer nobody-${i}` } });
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }

    expect(await view(h, quiet.parent)).toEqual(before);
    // The noisy partner keeps its own last 1,000; calls of no partner their own ring.
    expect(await count(h, { parent_account_id: noisy.parent })).toBe(1_000);
    expect(await count(h, { path: MAPPINGS, status: 401 })).toBe(1_000);
    // The whole journal, newest first across partners: the newest are the unknown clients' calls.
    const all = await h.request('GET', '/__sandbox/requests?limit=3');
    expect(all.body.requests.map((e: { status: number }) => e.status)).toEqual([401, 401, 401]);
  }, 60_000);

  it("after another partner's 1,000-entry bundle is imported, a quiet partner's list, count and report are unchanged", async () => {
    const h = createHarness();
    const quiet = await quietTraffic(h);
    const busy = await newTenant(h, 'busy');
    await noise(h, busy.client.headers, 1_200);
    const before = await view(h, quiet.parent);
    const bundle = await h.request('GET', `/__sandbox/partners/${busy.parent}/bundle`);
    expect(bundle.body.journal).toHaveLength(1_000);

    const imported = await h.request('POST', '/__sandbox/bundles', { body: bundle.body });
    expect(imported.status, imported.text).toBe(200);
    expect(await view(h, quiet.parent)).toEqual(before);
    expect(await count(h, { parent_account_id: busy.parent })).toBe(1_000);
    // Imported into a sandbox of its own too: the same 1,000.
    const laptop = createHarness();
    expect((await laptop.request('POST', '/__sandbox/bundles', { body: bundle.body })).status).toBe(200);
    expect(await count(laptop, { parent_account_id: busy.parent })).toBe(1_000);
  }, 60_000);

  it('a partner reset drops its own ring only', async () => {
    const h = createHarness();
    const quiet = await quietTraffic(h);
    const before = await view(h, quiet.parent);
    const other = await newTenant(h, 'other');
    await noise(h, other.client.headers, 20);
    expect((await h.request('POST', `/__sandbox/partners/${other.parent}/reset`)).status).toBe(200);
    expect(await count(h, { parent_account_id: other.parent })).toBe(0);
    expect(await view(h, quiet.parent)).toEqual(before);
  });
});

describe('the memory budget across partners (SANDBOX_JOURNAL_BUDGET_MB)', () => {
  it('past the budget the partner holding the most bytes loses its oldest; a quiet one keeps all of its own', async () => {
    const h = createHarness({ journalBudgetMb: 1 });
    const quiet = await quietTraffic(h);
    const before = await view(h, quiet.parent);
    const noisy = await h.client(DEMO);
    await noise(h, noisy.headers, 3_000);

    expect(h.sandbox.journal.bytes).toBeLessThanOrEqual(1024 * 1024);
    const kept = await count(h, { parent_account_id: DEMO.parent });
    expect(kept).toBeGreaterThan(100);
    expect(kept).toBeLessThan(1_000); // the budget, not SANDBOX_JOURNAL_MAX, bound it
    // What it lost is its oldest: its newest entry is its last call.
    const newest = await h.request('GET', `/__sandbox/requests?parent_account_id=${DEMO.parent}&limit=1`);
    expect(newest.body.requests[0]).toMatchObject({ method: 'GET', path: MAPPINGS, status: 200 });
    expect(await view(h, quiet.parent)).toEqual(before);
  }, 60_000);

  it('is a setting: SANDBOX_JOURNAL_BUDGET_MB, 256 MiB by default (a quarter of the heap when less), 1 at least', async () => {
    const { defaultJournalBudgetMb, loadConfig } = await import('../../src/core/config.js');
    const { getHeapStatistics } = await import('node:v8');
    const quarter = Math.floor(getHeapStatistics().heap_size_limit / 4 / 1024 / 1024);
    expect(defaultJournalBudgetMb()).toBe(Math.min(256, quarter));
    expect(loadConfig([], {}).journalBudgetMb).toBe(defaultJournalBudgetMb());
    expect(loadConfig([], { SANDBOX_JOURNAL_BUDGET_MB: '64' }).journalBudgetMb).toBe(64);
    expect(() => loadConfig([], { SANDBOX_JOURNAL_BUDGET_MB: '0' })).toThrow(/SANDBOX_JOURNAL_BUDGET_MB/);
  });
});

/** `n` registers of one partner with a request body of about `chars` characters, straight to the app. */
async function heavy(h: Harness, headers: Record<string, string>, n: number, chars: number, char = 'b') {
  const statuses = new Set<number>();
  for (let i = 0; i < n; i++) {
    const res = await h.app.request(REGISTER, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(registerBody({ brand: char.repeat(chars) })),
    });
    statuses.add(res.status);
    await res.arrayBuffer();
  }
  return statuses;
}

/** A quiet partner with `n` small entries (a mappings read each, after its token call). */
async function quietOf(h: Harness, n: number) {
  const quiet = await newTenant(h, 'quiet');
  await noise(h, quiet.client.headers, n - 1);
  return quiet;
}

describe('the budget is shared by bytes, not entries (issue 37 item 11)', () => {
  it("a partner's many calls with large bodies cut its own oldest, never a quiet partner with more (small) entries", async () => {
    const h = createHarness({ journalBudgetMb: 1 });
    const quiet = await quietOf(h, 60);
    const before = await view(h, quiet.parent);
    expect(before.count).toBe(60);

    const noisy = await newTenant(h, 'noisy');
    // Bodies of 100 KB, kept to 16 KiB (SANDBOX_JOURNAL_BODY_BYTES): ~22 KB an entry, 15 times a quiet one.
    await heavy(h, noisy.client.headers, 150, 100_000);

    expect(h.sandbox.journal.bytes).toBeLessThanOrEqual(1024 * 1024);
    // By entries, the quiet partner (60) would have lost first: the noisy one keeps fewer than it.
    const kept = await count(h, { parent_account_id: noisy.parent });
    expect(kept).toBeGreaterThan(5);
    expect(kept).toBeLessThan(60);
    const newest = await h.request('GET', `/__sandbox/requests?parent_account_id=${noisy.parent}&limit=1`);
    expect(newest.body.requests[0]).toMatchObject({ method: 'POST', path: REGISTER });
    expect(newest.body.requests[0].request_body_truncated).toEqual({ original_bytes: expect.any(Number) });
    expect(await view(h, quiet.parent)).toEqual(before);
  }, 60_000);

  it('a body past ASCII counts twice (V8 keeps it in two bytes a character): its partner keeps about half the entries', async () => {
    const h = createHarness({ journalBudgetMb: 1 });
    const ascii = await newTenant(h, 'ascii');
    const cjk = await newTenant(h, 'cjk');
    // 5,000 characters each, kept whole (CJK: 15,000 bytes of UTF-8, within the 16 KiB cut).
    for (let round = 0; round < 10; round++) {
      expect(await heavy(h, ascii.client.headers, 20, 5_000)).toEqual(new Set([400]));
      expect(await heavy(h, cjk.client.headers, 20, 5_000, '中')).toEqual(new Set([400]));
    }
    expect(h.sandbox.journal.bytes).toBeLessThanOrEqual(1024 * 1024);
    const asciiKept = await count(h, { parent_account_id: ascii.parent });
    const cjkKept = await count(h, { parent_account_id: cjk.parent });
    expect(asciiKept).toBeLessThan(201);
    // Counted at one byte a character both would keep as many.
    expect(cjkKept).toBeGreaterThan(asciiKept * 0.4);
    expect(cjkKept).toBeLessThan(asciiKept * 0.7);
  }, 60_000);

  it('one call larger than the whole budget has its body cut to its share, marked so; no other entry goes, nor its own', async () => {
    const h = createHarness({
      journalBudgetMb: 1,
      journalBodyBytes: 1024 * 1024,
      bodyLimitBytes: 2 * 1024 * 1024,
    });
    const quiet = await quietOf(h, 20);
    const other = await quietOf(h, 10);
    const before = [await view(h, quiet.parent), await view(h, other.parent)];

    const big = await newTenant(h, 'big');
    const sent = JSON.stringify(registerBody({ brand: 'b'.repeat(1_000_000) }));
    const res = await h.app.request(REGISTER, {
      method: 'POST',
      headers: { ...big.client.headers, 'Content-Type': 'application/json' },
      body: sent,
    });
    await res.arrayBuffer();

    expect(h.sandbox.journal.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect([await view(h, quiet.parent), await view(h, other.parent)]).toEqual(before);
    const list = await h.request('GET', `/__sandbox/requests?parent_account_id=${big.parent}`);
    expect(list.body.requests.map((e: { method: string }) => e.method)).toEqual(['POST', 'POST']); // the call, its token call
    const entry = list.body.requests[0];
    expect(entry).toMatchObject({ path: REGISTER, status: res.status });
    // Cut (a quarter of the budget or so: its share of four partners), said so with its whole length.
    expect(entry.request_body_truncated).toEqual({ original_bytes: Buffer.byteLength(sent) });
    expect(entry.request_body.length).toBeGreaterThan(50_000);
    expect(entry.request_body.length).toBeLessThan(300_000);
    expect(sent.startsWith(entry.request_body)).toBe(true);
    // What it kept is searched as any entry's: the count says the body was cut.
    const counted = await h.request('POST', '/__sandbox/requests/count', {
      body: { parent_account_id: big.parent, body_contains: 'bbbb' },
    });
    expect(counted.body).toEqual({ count: 1, bodies_truncated: 1 });
  }, 60_000);

  it("an imported journal of large bodies cuts the importer's own oldest, and its largest entry to its share; a quiet partner keeps all", async () => {
    const big = { journalBodyBytes: 1024 * 1024, bodyLimitBytes: 2 * 1024 * 1024 };
    const ci = createHarness(big);
    const importer = await newTenant(ci, 'importer');
    await heavy(ci, importer.client.headers, 40, 30_000);
    await heavy(ci, importer.client.headers, 1, 900_000); // its newest: a 900 KB body
    const bundle = await ci.request('GET', `/__sandbox/partners/${importer.parent}/bundle`);
    expect(bundle.status).toBe(200);
    expect(bundle.body.journal).toHaveLength(42);

    const h = createHarness({ ...big, journalBudgetMb: 1 });
    const quiet = await quietOf(h, 60);
    const before = await view(h, quiet.parent);
    const imported = await h.request('POST', '/__sandbox/bundles', { body: bundle.body });
    expect(imported.status, imported.text).toBe(200);

    expect(h.sandbox.journal.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(await view(h, quiet.parent)).toEqual(before);
    const kept = await h.request('GET', `/__sandbox/requests?parent_account_id=${importer.parent}`);
    expect(kept.body.requests.length).toBeGreaterThan(0);
    expect(kept.body.requests.length).toBeLessThan(42);
    const [newest] = kept.body.requests;
    expect(newest.request_body_truncated).toEqual({
      original_bytes:
        bundle.body.journal[0].request_body_truncated?.original_bytes ??
        Buffer.byteLength(bundle.body.journal[0].request_body),
    });
    expect(newest.request_body.length).toBeLessThan(bundle.body.journal[0].request_body.length);
  }, 60_000);
});

describe('SANDBOX_JOURNAL_BUDGET_MB is a whole number as its message says', () => {
  it.each(['0x10', '1e3', ' 16', '16.0', '+16'])('%s stops start-up naming it', async (value) => {
    const { loadConfig } = await import('../../src/core/config.js');
    expect(() => loadConfig([], { SANDBOX_JOURNAL_BUDGET_MB: value })).toThrow(
      `invalid configuration: SANDBOX_JOURNAL_BUDGET_MB=${JSON.stringify(value)}: must be a whole number from 1 to 1048576`,
    );
  });
});
