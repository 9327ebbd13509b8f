/**
 * Export then import, always (SANDBOX.md section 10, "A tenant holds under volume"; issue 30
 * item 2): whatever traffic the sandbox answered, a partner's bundle imports with 200 and gives
 * the same state and the same journal count. Per-partner lists are bounded where requests come
 * in instead (arming past 1,000 for one partner is a 400 naming the limit).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bigBundle as demoCopies } from '../helpers/bundle-helpers.js';
import {
  CONTROLS,
  createHarness,
  expectErrorEnvelope,
  type Harness,
  MAPPINGS,
  REGISTER,
  registerBody,
  STATUS,
} from '../helpers/harness.js';
import { count, newTenant } from '../helpers/tenants.js';

type Tenant = Awaited<ReturnType<typeof newTenant>>;

/** One call a partner's client might make, by kind, with the sizes fast-check picks. */
type Step =
  | { kind: 'register'; valid: boolean }
  | { kind: 'longHeaderName'; length: number }
  | { kind: 'longHeaderValue'; length: number }
  | { kind: 'longPath'; length: number }
  | { kind: 'longQuery'; key: number; value: number }
  | { kind: 'layoutPatch'; idLength: number }
  | { kind: 'statusPut'; status: 'active' | 'paused' }
  | { kind: 'controlsGet' }
  | { kind: 'arm'; times: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('register' as const), valid: fc.boolean() }),
  fc.record({ kind: fc.constant('longHeaderName' as const), length: fc.integer({ min: 1, max: 3000 }) }),
  fc.record({ kind: fc.constant('longHeaderValue' as const), length: fc.integer({ min: 1, max: 15_000 }) }),
  fc.record({ kind: fc.constant('longPath' as const), length: fc.integer({ min: 1, max: 6000 }) }),
  fc.record({
    kind: fc.constant('longQuery' as const),
    key: fc.integer({ min: 1, max: 3000 }),
    value: fc.integer({ min: 0, max: 12_000 }),
  }),
  fc.record({ kind: fc.constant('layoutPatch' as const), idLength: fc.integer({ min: 1, max: 4000 }) }),
  fc.record({
    kind: fc.constantFrom('statusPut' as const),
    status: fc.constantFrom('active' as const, 'paused' as const),
  }),
  fc.record({ kind: fc.constant('controlsGet' as const) }),
  fc.record({ kind: fc.constant('arm' as const), times: fc.integer({ min: 1, max: 5 }) }),
);

async function run(h: Harness, t: Tenant, account: string, s: Step, i: number): Promise<void> {
  const c = t.client;
  switch (s.kind) {
    case 'register':
      await c.call('POST', REGISTER, {
        body: s.valid
          ? registerBody({
              platform_parent_account_id: t.parent,
              external_account_id: `ext-${i}-${Date.now()}`,
            })
          : { brand: 1 },
        headers: { 'Idempotency-Key': `rt-${i}-${Math.random()}` },
      });
      return;
    case 'longHeaderName':
      await raw(h, c.headers, 'GET', CONTROLS(account), { [`x-${'n'.repeat(s.length)}`]: 'v' });
      return;
    case 'longHeaderValue':
      await raw(h, c.headers, 'GET', CONTROLS(account), { 'x-long-value': 'v'.repeat(s.length) });
      return;
    case 'longPath':
      await raw(h, c.headers, 'GET', `/v1/partnership/accounts/${'a'.repeat(s.length)}/controls`);
      return;
    case 'longQuery':
      await raw(h, c.headers, 'GET', `${MAPPINGS}?${'k'.repeat(s.key)}=${'v'.repeat(s.value)}`);
      await raw(h, c.headers, 'POST', `/oauth/token?${'k'.repeat(s.key)}=${'v'.repeat(s.value)}`);
      return;
    case 'layoutPatch':
      await raw(
        h,
        c.headers,
        'PATCH',
        `/v1/partnership/accounts/${account}/layouts/${'l'.repeat(s.idLength)}`,
        {
          'Idempotency-Key': `rt-layout-${i}`,
        },
        JSON.stringify({ name: 'x' }),
      );
      return;
    case 'statusPut':
      await c.put(STATUS(account), { status: s.status });
      return;
    case 'controlsGet':
      await c.get(CONTROLS(account));
      return;
    case 'arm': {
      const res = await h.request('PUT', '/__sandbox/scenarios', {
        body: { scenario: 'latency', value: 0, parent_account_id: t.parent, times: s.times },
      });
      expect(res.status).toBe(200);
    }
  }
}

/** A request straight to the app (no contract check: these are the requests a contract refuses). */
async function raw(
  h: Harness,
  auth: Record<string, string>,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const res = await h.app.request(path, {
    method,
    headers: { ...auth, ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
    body,
  });
  await res.arrayBuffer();
}

/**
 * The bundle as state: what must be the same after an import. Times kept as epoch milliseconds
 * (a propagation deadline, a key's expiry) move with the clock (an import re-bases them on its
 * own moment), so they are compared as whole seconds from the partner's clock; the export's
 * time is left aside.
 */
function stateOf(bundle: Record<string, unknown>) {
  const {
    exported_at: _,
    clock,
    ...rest
  } = bundle as {
    exported_at: string;
    clock: { now: string; offset_seconds: number };
  };
  const now = Date.parse(clock.now);
  const relative = (value: unknown, key = ''): unknown => {
    if (Array.isArray(value)) return value.map((v) => relative(v));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, relative(v, k)]));
    if (typeof value === 'number' && key.endsWith('_at')) return Math.round((value - now) / 1000) || 0;
    return value;
  };
  return { ...(relative(rest) as object), offset: Math.round(clock.offset_seconds) };
}

describe('export then import, always', () => {
  it('random traffic of one partner (long names, paths, queries, chaos-failed calls, armed scenarios): its bundle imports with 200, the same state and journal count', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 14 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 1_000_000 }),
        async (steps, rate, seed) => {
          const h = createHarness();
          const t = await newTenant(h, 'rt');
          const account = await t.client.account();
          const chaos = await h.request('PUT', '/__sandbox/chaos', {
            body: { rate, seed, parent_account_id: t.parent },
          });
          expect(chaos.status).toBe(200);
          for (const [i, s] of steps.entries()) await run(h, t, account, s, i);

          const exported = await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`);
          expect(exported.status).toBe(200);
          const laptop = createHarness();
          const imported = await laptop.request('POST', '/__sandbox/bundles', { body: exported.body });
          expect(imported.status, imported.text.slice(0, 2000)).toBe(200);
          const again = await laptop.request('GET', `/__sandbox/partners/${t.parent}/bundle`);
          expect(stateOf(again.body)).toEqual(stateOf(exported.body));
          const journalCount = exported.body.journal.length;
          expect(await count(laptop, { parent_account_id: t.parent })).toBe(
            await count(h, { parent_account_id: t.parent }),
          );
          expect(imported.body.imported.journal).toBe(journalCount);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('a chaos-failed layout PATCH with a 3,000-character layout_id: the owed pass is kept, bounded, and the bundle round-trips', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'owed');
    const account = await t.client.account();
    await h.request('PUT', '/__sandbox/chaos', {
      body: { rate: 1, seed: 5, scenarios: ['server-error'], parent_account_id: t.parent },
    });
    const path = `/v1/partnership/accounts/${account}/layouts/${'l'.repeat(3000)}`;
    const patch = () =>
      h.app.request(path, {
        method: 'PATCH',
        headers: {
          ...t.client.headers,
          'Idempotency-Key': `k-${Math.random()}`,
          'Content-Type': 'application/json',
        },
        body: '{"name":"x"}',
      });
    expect((await patch()).status).toBe(503);
    // Its retry is owed its pass: it reaches validation (400), not chaos.
    expect((await patch()).status).toBe(400);
    expect((await patch()).status).toBe(503);
    const bundle = await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`);
    expect(bundle.body.chaos.owed).toHaveLength(1);
    expect(bundle.body.chaos.owed[0].length).toBeLessThanOrEqual(2200);
    const laptop = createHarness();
    expect((await laptop.request('POST', '/__sandbox/bundles', { body: bundle.body })).status).toBe(200);
    // The replay keeps the owed pass: the same PATCH gets through chaos there too.
    // Its token call may meet chaos (rate 1); the next one gets through.
    const token = await laptop
      .token(t.clientId, t.clientSecret)
      .catch(() => laptop.token(t.clientId, t.clientSecret));
    const there = await laptop.app.request(path, {
      method: 'PATCH',
      headers: {
        Authorization: `Bearer ${token}`,
        'X-Platform-Parent-Account-Id': t.parent,
        'Idempotency-Key': 'k-there',
        'Content-Type': 'application/json',
      },
      body: '{"name":"x"}',
    });
    expect(there.status).toBe(400);
  });
});

describe('per-partner lists are bounded where requests come in', () => {
  it('arming past 1,000 for one partner is a 400 naming the limit; other partners and the sandbox-wide list are not held to it', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'armed');
    const account = await t.client.account();
    for (let i = 0; i < 1000; i++) {
      const body =
        i % 2
          ? { scenario: 'latency', value: 0, account_id: account }
          : { scenario: 'latency', value: 0, parent_account_id: t.parent };
      const res = await h.app.request('/__sandbox/scenarios', {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    for (const body of [
      { scenario: 'latency', value: 0, parent_account_id: t.parent },
      { scenario: 'server-error', value: 503, account_id: account },
    ]) {
      const refused = await h.request('PUT', '/__sandbox/scenarios', { body });
      const error = expectErrorEnvelope(refused, 400, 'validation_error');
      expect(refused.body.message).toContain(
        `at most 1000 scenarios are armed at once for partner ${t.parent}`,
      );
      expect(error.error.details.fields[0].field).toBe(
        'account_id' in body ? 'account_id' : 'parent_account_id',
      );
    }
    const other = await newTenant(h, 'other');
    expect(
      (
        await h.request('PUT', '/__sandbox/scenarios', {
          body: { scenario: 'latency', value: 0, parent_account_id: other.parent },
        })
      ).status,
    ).toBe(200);
    // The bundle carries all 1,000 and imports.
    const bundle = await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`);
    expect(bundle.body.armed).toHaveLength(1000);
    expect((await createHarness().request('POST', '/__sandbox/bundles', { body: bundle.body })).status).toBe(
      200,
    );
  });

  it('a bundle past what an import reads keeps its newest journal entries and says how many it left out', async () => {
    const h = createHarness({ journalBodyBytes: 64 * 1024 });
    const t = await newTenant(h, 'big');
    // 600 registrations refused with a 60 KiB body of quotes (each escaped twice over in JSON).
    const body = JSON.stringify({ brand: '"'.repeat(60 * 1024) });
    for (let i = 0; i < 600; i++) {
      const res = await h.app.request(REGISTER, {
        method: 'POST',
        headers: { ...t.client.headers, 'Content-Type': 'application/json', 'Idempotency-Key': `big-${i}` },
        body,
      });
      await res.arrayBuffer();
    }
    const bundle = await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`);
    expect(bundle.status).toBe(200);
    expect(Buffer.byteLength(bundle.text)).toBeLessThanOrEqual(32 * 1024 * 1024);
    expect(bundle.body.journal_left_out).toBeGreaterThan(0);
    expect(bundle.body.journal.length + bundle.body.journal_left_out).toBe(601);
    const laptop = createHarness({ journalBodyBytes: 64 * 1024 });
    const imported = await laptop.request('POST', '/__sandbox/bundles', { body: bundle.body });
    expect(imported.status, imported.text.slice(0, 500)).toBe(200);
  }, 60_000);
});

describe('a large import is validated by turns, then swapped at once', () => {
  /** The demo partner's bundle (with an account registered first to copy) of `n` accounts. */
  async function bigBundle(h: Harness, n: number) {
    await (await h.client()).account();
    return demoCopies(h, n);
  }

  it('other calls are answered while a 1,000-account bundle is validated; the partner then has all of them', async () => {
    const h = createHarness();
    const bundle = await bigBundle(h, 1000);
    const order: string[] = [];
    const importing = h.request('POST', '/__sandbox/bundles', { body: bundle }).then((r) => {
      order.push('import');
      return r;
    });
    await new Promise((r) => setImmediate(r));
    const health = Promise.resolve(h.app.request('/__sandbox/health')).then((r) => {
      order.push('health');
      return r;
    });
    const [imported, healthy] = await Promise.all([importing, health]);
    expect(imported.status, imported.text.slice(0, 300)).toBe(200);
    expect(healthy.status).toBe(200);
    expect(order).toEqual(['health', 'import']);
    expect(imported.body.imported.accounts).toBe(1000);
    const view = await h.request('GET', '/__sandbox/accounts/acct_big_999');
    expect(view.status).toBe(200);
  }, 60_000);

  it('a bad account deep in a large bundle is a 400 naming it, and nothing is loaded', async () => {
    const h = createHarness();
    const bundle = await bigBundle(h, 1000);
    bundle.accounts[737].country_code = 'not a country';
    const refused = await h.request('POST', '/__sandbox/bundles', { body: bundle });
    const body = expectErrorEnvelope(refused, 400, 'validation_error');
    expect(body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([
      'accounts[737].country_code',
    ]);
    expect((await h.request('GET', '/__sandbox/accounts/acct_big_0')).status).toBe(404);
  }, 60_000);
});
