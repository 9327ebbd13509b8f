import { expect } from 'vitest';
import { CONTROLS, expectErrorEnvelope, expectOk, type Harness, pair, STATUS } from './harness.js';
import { newTenant } from './tenants.js';

export type BundleBody = {
  exported_at?: string;
  clock: { now: string; offset_seconds: number };
  accounts: { auth_ready_at: number }[];
  idempotency_keys: { expires_at: number }[];
};
/** Each deadline of a bundle as the ms left until it on its partner's clock at the export. */
export const deadlinesOf = (b: BundleBody) => {
  const now = Date.parse(b.clock.now);
  return [
    ...b.accounts.map((a) => a.auth_ready_at - now),
    ...b.idempotency_keys.map((k) => k.expires_at - now),
  ];
};
/** A bundle without what moves with real time: exported_at, its clock and its deadlines. */
export const timeless = (b: BundleBody) => ({
  ...b,
  exported_at: undefined,
  clock: undefined,
  accounts: b.accounts.map((a) => ({ ...a, auth_ready_at: undefined })),
  idempotency_keys: b.idempotency_keys.map((k) => ({ ...k, expires_at: undefined })),
});
/**
 * Equal apart from exported_at and the clock; each deadline as far from clock.now, give or take
 * the time that passed between the two exports (their exported_at) and 5 s more (the clock's
 * offset travels in whole seconds), so a slow machine does not fail it and a deadline reset or
 * moved by more than that still does.
 */
export function expectSameBundle(again: BundleBody, bundle: BundleBody) {
  expect(timeless(again)).toEqual(timeless(bundle));
  const [left, before] = [deadlinesOf(again), deadlinesOf(bundle)];
  expect(left).toHaveLength(before.length);
  const between = Date.parse(again.exported_at ?? '') - Date.parse(bundle.exported_at ?? '');
  const slack = (Number.isFinite(between) ? Math.max(0, between) : 0) + 5000;
  left.forEach((ms, i) => {
    expect(ms).toBeLessThanOrEqual(before[i]!);
    expect(before[i]! - ms).toBeLessThan(slack);
  });
  expect(Math.abs(again.clock.offset_seconds - bundle.clock.offset_seconds)).toBeLessThan(5);
}

export const exportOf = async (h: Harness, parent: string) => {
  const res = await h.request('GET', `/__sandbox/partners/${parent}/bundle`);
  expect(res.status).toBe(200);
  return res.body;
};
export const importInto = (h: Harness, bundle: unknown) =>
  h.request('POST', '/__sandbox/bundles', { body: bundle });
export const fieldsOf = (res: Awaited<ReturnType<Harness['request']>>) =>
  expectErrorEnvelope(res, 400, 'validation_error').error.details.fields.map(
    (f: { field: string }) => f.field,
  );

/** A partner with a bit of everything: accounts, a controls write, a status write, keys, armed scenarios, a clock. */
export async function busyPartner(h: Harness) {
  const t = await newTenant(h, 'busy');
  const first = await t.client.account({ brand: 'First' });
  const second = await t.client.account({
    brand: 'Second',
    pages: [{ surface: 'tracking', layout_type: 'Embedded' }],
  });
  const read = expectOk(await t.client.get(CONTROLS(first)));
  expectOk(
    await t.client.put(
      CONTROLS(first),
      {
        blockedVerticals: [pair(10, 1001)],
        domains: [{ domain: 'rival.example' }],
        contentHash: read.marketplace_controls_list.content_hash,
      },
      { 'Idempotency-Key': 'controls-key' },
    ),
  );
  expectOk(await t.client.put(STATUS(second), { status: 'paused' }, { 'Idempotency-Key': 'status-key' }));
  await h.request('POST', `/__sandbox/partners/${t.parent}/clock/advance`, { body: { seconds: 90 } });
  for (const body of [
    { scenario: 'rate-limited', value: 2, parent_account_id: t.parent, times: 3 },
    { scenario: 'flaky-network', account_id: second },
  ]) {
    const res = await h.request('PUT', '/__sandbox/scenarios', { body });
    expect(res.status, res.text).toBe(200);
  }
  return { ...t, first, second };
}

/** The demo partner's bundle with `n` copies of its one account, each with IDs of its own. */
export async function bigBundle(h: Harness, n: number, tag = 'big') {
  const base = await exportOf(h, 'pa_demo_platform');
  const [one] = base.accounts;
  const suffix = (id: string, i: number) => `${id.slice(0, 20)}-${tag}-${i}`;
  type Row = { page_id: string; layout_id?: string; variant_id?: string };
  const accounts = Array.from({ length: n }, (_, i) => ({
    ...one,
    account_id: `acct_${tag}_${i}`,
    external_account_id: `ext-${tag}-${i}`,
    pages: one.pages.map((p: Row) => ({ ...p, page_id: suffix(p.page_id, i) })),
    layouts: one.layouts.map((l: Row) => ({
      ...l,
      layout_id: suffix(l.layout_id!, i),
      page_id: suffix(l.page_id, i),
    })),
    variants: one.variants.map((v: Row) => ({
      ...v,
      variant_id: suffix(v.variant_id!, i),
      page_id: suffix(v.page_id, i),
    })),
    controls: { ...one.controls, list_id: suffix(one.controls.list_id, i) },
  }));
  return { ...base, accounts, journal: [], idempotency_keys: [] };
}
