/**
 * Partnership status (spec §2.6, §3, §4 rules 6-7; docs/fault-injection.md status-partial-failure, docs/where-the-spec-is-silent.md):
 * the aggregate derived from non-archived variants, the cascading PUT, dry runs,
 * idempotency, the partial-failure drill and the 405 on PATCH.
 */
import { describe, expect, it } from 'vitest';
import { partialFailureMessage } from '../../src/contract/api/messages.js';
import { WARNING_CUT, WARNING_HEADER_MAX } from '../../src/http/request-context.js';
import {
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  type Reply,
  STATUS,
} from '../helpers/harness.js';

type Partner = Awaited<ReturnType<Harness['client']>>;

interface AdminVariant {
  variant_id: string;
  page_id: string;
  name: string;
  enabled: boolean;
  archived: boolean;
}

const PARTIAL = 'status-partial-failure';
const SCENARIO = 'X-Sandbox-Scenario';
const APPLIED = 'x-sandbox-scenario-applied';

/** Registers an account (default pages unless given) and returns its ID and pages. */
async function registerAccount(
  partner: Partner,
  pages?: { surface: string; layout_type: string }[],
): Promise<{ accountId: string; pageIds: string[] }> {
  const data = expectOk(await partner.register(pages === undefined ? {} : { pages }));
  return { accountId: data.account_id, pageIds: data.pages.map((p: { page_id: string }) => p.page_id) };
}

async function adminVariants(h: Harness, accountId: string): Promise<AdminVariant[]> {
  const res = await h.request('GET', `/__sandbox/accounts/${accountId}`);
  expect(res.status).toBe(200);
  return res.body.variants;
}

async function addVariant(
  h: Harness,
  accountId: string,
  pageId: string,
  name: string,
  enabled: boolean,
): Promise<AdminVariant> {
  const res = await h.request('POST', `/__sandbox/accounts/${accountId}/variants`, {
    body: { page_id: pageId, name, enabled },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function patchVariant(
  h: Harness,
  variantId: string,
  change: { enabled?: boolean; archived?: boolean },
) {
  const res = await h.request('PATCH', `/__sandbox/variants/${variantId}`, { body: change });
  expect(res.status).toBe(200);
  return res.body as AdminVariant;
}

async function readStatus(partner: Partner, accountId: string) {
  return expectOk(await partner.get(STATUS(accountId)));
}

/**
 * A partner answer's variants carry the spec §2.6 fields only ({page_id, name, status}):
 * a variant is identified by page and name, and the control plane gives its ID.
 */
const states = (variants: { page_id: string; name: string; status: string }[]) =>
  variants.map((v) => [`${v.page_id}/${v.name}`, v.status] as const);
const key = (v: AdminVariant) => `${v.page_id}/${v.name}`;

/** Asserts the partial-failure envelope (HTTP 200, error partial_failure) and returns the body. */
function expectPartialFailure(res: Reply) {
  expect(res.status).toBe(200);
  expect(res.body.status).toBe(200);
  expect(res.body.error.code).toBe('partial_failure');
  expect(typeof res.body.request_id).toBe('string');
  expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
  expect(res.body.message).toContain(res.body.request_id);
  expect(res.body.message).toContain('contact support');
  return res.body;
}

/** An account with the default pages plus two extra variants: 4 enabled variants. */
async function fourVariantAccount(h: Harness, partner: Partner) {
  const { accountId, pageIds } = await registerAccount(partner);
  await addVariant(h, accountId, pageIds[0]!, 'confirmation B', true);
  await addVariant(h, accountId, pageIds[1]!, 'tracking B', true);
  return accountId;
}

describe('status aggregate (spec §3, first table)', () => {
  it('status: every non-archived variant enabled -> active', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, pageIds } = await registerAccount(partner);
    await addVariant(h, accountId, pageIds[0]!, 'extra', true);
    const data = await readStatus(partner, accountId);
    expect(data.account_id).toBe(accountId);
    expect(data.status).toBe('active');
    expect(data.variants).toHaveLength(3);
    for (const v of data.variants) {
      expect(v.status).toBe('active');
      expect(pageIds).toContain(v.page_id);
      expect(typeof v.name).toBe('string');
      expect(Object.keys(v).sort()).toEqual(['name', 'page_id', 'status']);
    }
  });

  it('status: every non-archived variant disabled -> paused', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    for (const v of await adminVariants(h, accountId))
      await patchVariant(h, v.variant_id, { enabled: false });
    const data = await readStatus(partner, accountId);
    expect(data.status).toBe('paused');
    expect(data.variants.map((v: { status: string }) => v.status)).toEqual(['paused', 'paused']);
  });

  it('status: no variants exist (registered with pages: []) -> paused', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, pageIds } = await registerAccount(partner, []);
    expect(pageIds).toEqual([]);
    const data = await readStatus(partner, accountId);
    expect(data).toEqual({ account_id: accountId, status: 'paused', variants: [] });
  });

  it('status: some enabled and some disabled -> mixed', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const [first, second] = await adminVariants(h, accountId);
    await patchVariant(h, second!.variant_id, { enabled: false });
    const data = await readStatus(partner, accountId);
    expect(data.status).toBe('mixed');
    expect(states(data.variants)).toEqual([
      [key(first!), 'active'],
      [key(second!), 'paused'],
    ]);
  });

  it('status: archiving the only disabled variant makes the aggregate active (archived variants are ignored)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const [first, second] = await adminVariants(h, accountId);
    await patchVariant(h, second!.variant_id, { enabled: false });
    expect((await readStatus(partner, accountId)).status).toBe('mixed');
    await patchVariant(h, second!.variant_id, { archived: true });
    const data = await readStatus(partner, accountId);
    expect(data.status).toBe('active');
    expect(states(data.variants)).toEqual([[key(first!), 'active']]);
  });

  it('status: archiving every variant makes the aggregate paused (none non-archived exist)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    for (const v of await adminVariants(h, accountId))
      await patchVariant(h, v.variant_id, { archived: true });
    const data = await readStatus(partner, accountId);
    expect(data.status).toBe('paused');
    expect(data.variants).toEqual([]);
  });
});

describe('status PUT (endpoint 5, rule 6)', () => {
  it('status PUT paused cascades to every non-archived variant and skips archived ones', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, pageIds } = await registerAccount(partner);
    const archived = await addVariant(h, accountId, pageIds[0]!, 'old campaign', true);
    await patchVariant(h, archived.variant_id, { archived: true });

    const res = await partner.put(STATUS(accountId), { status: 'paused' });
    const data = expectOk(res);
    expect(data.account_id).toBe(accountId);
    expect(data.status).toBe('paused');
    expect(data.variants).toHaveLength(2);
    for (const v of data.variants) {
      expect(v.status).toBe('paused');
      expect(`${v.page_id}/${v.name}`).not.toBe(key(archived));
      expect(v).not.toHaveProperty('variant_id');
      expect(v).not.toHaveProperty('result');
    }

    const after = await adminVariants(h, accountId);
    const stored = after.find((v) => v.variant_id === archived.variant_id)!;
    expect(stored).toMatchObject({ archived: true, enabled: true });
    expect(after.filter((v) => !v.archived).every((v) => !v.enabled)).toBe(true);
    expect((await readStatus(partner, accountId)).status).toBe('paused');
  });

  it('status PUT active cascades enabled to every non-archived variant and leaves an archived disabled one disabled', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, pageIds } = await registerAccount(partner);
    const variants = await adminVariants(h, accountId);
    for (const v of variants) await patchVariant(h, v.variant_id, { enabled: false });
    const archived = await addVariant(h, accountId, pageIds[1]!, 'retired', false);
    await patchVariant(h, archived.variant_id, { archived: true });

    const data = expectOk(await partner.put(STATUS(accountId), { status: 'active' }));
    expect(data.status).toBe('active');
    expect(states(data.variants)).toEqual(variants.map((v) => [key(v), 'active']));
    expect(data.variants.every((v: { status: string }) => v.status === 'active')).toBe(true);

    const stored = (await adminVariants(h, accountId)).find((v) => v.variant_id === archived.variant_id)!;
    expect(stored).toMatchObject({ archived: true, enabled: false });
  });

  it('status PUT has no merge: the body status is applied to all variants of a mixed account', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const [first, second] = await adminVariants(h, accountId);
    await patchVariant(h, second!.variant_id, { enabled: false });

    const data = expectOk(await partner.put(STATUS(accountId), { status: 'active' }));
    expect(data.status).toBe('active');
    expect(states(data.variants)).toEqual([
      [key(first!), 'active'],
      [key(second!), 'active'],
    ]);
    // Per-variant results are sandbox detail: the control plane's last_status_write.
    const record = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.last_status_write;
    expect(
      record.variants.map((v: { variant_id: string; result: string }) => [v.variant_id, v.result]),
    ).toEqual([
      [first!.variant_id, 'unchanged'],
      [second!.variant_id, 'updated'],
    ]);
    const read = await readStatus(partner, accountId);
    expect(read.status).toBe('active');
    expect(states(read.variants)).toEqual([
      [key(first!), 'active'],
      [key(second!), 'active'],
    ]);
  });

  for (const [label, body] of [
    ["status 'mixed'", { status: 'mixed' }],
    ["status 'ACTIVE' (wrong case)", { status: 'ACTIVE' }],
    ['status missing', {}],
    ['status a number', { status: 1 }],
  ] as const) {
    it(`status PUT with ${label} is 400 validation_error naming status and the allowed values`, async () => {
      const h = createHarness();
      const partner = await h.client();
      const { accountId } = await registerAccount(partner);
      const before = await adminVariants(h, accountId);
      const res = await partner.put(STATUS(accountId), body);
      const err = expectErrorEnvelope(res, 400, 'validation_error');
      expect(err.message).toContain('status');
      expect(err.message).toContain('"active"');
      expect(err.message).toContain('"paused"');
      const field = err.error.details.fields.find((f: { field: string }) => f.field === 'status');
      expect(field).toBeDefined();
      expect(field.message).toContain('active');
      expect(field.message).toContain('paused');
      expect(await adminVariants(h, accountId)).toEqual(before);
    });
  }

  it('status PUT dry_run=true shows the result with dry_run:true and changes nothing', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const before = await readStatus(partner, accountId);
    expect(before.status).toBe('active');

    const res = await partner.put(`${STATUS(accountId)}?dry_run=true`, { status: 'paused' });
    const data = expectOk(res);
    expect(res.body.dry_run).toBe(true);
    expect(data.status).toBe('paused');
    expect(data.variants.map((v: { status: string }) => v.status)).toEqual(['paused', 'paused']);

    expect(await readStatus(partner, accountId)).toEqual(before);
  });

  it('status PUT with the same Idempotency-Key replays the stored response and does not execute again', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const key = 'status-replay-key-1';
    const first = await partner.put(STATUS(accountId), { status: 'paused' }, { 'Idempotency-Key': key });
    const firstData = expectOk(first);
    expect(firstData.status).toBe('paused');
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // Someone re-enables a variant; a replay must not cascade again.
    const [v1] = await adminVariants(h, accountId);
    await patchVariant(h, v1!.variant_id, { enabled: true });

    const again = await partner.put(STATUS(accountId), { status: 'paused' }, { 'Idempotency-Key': key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.body.request_id).toBe(first.body.request_id);
    expect((await readStatus(partner, accountId)).status).toBe('mixed');
  });

  it('status PUT without X-Platform-Parent-Account-Id is 422 missing_parent_account_header', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const res = await h.request('PUT', STATUS(accountId), {
      body: { status: 'paused' },
      headers: { Authorization: `Bearer ${partner.token}`, 'Idempotency-Key': 'no-parent-1' },
    });
    expectErrorEnvelope(res, 422, 'missing_parent_account_header');
    expect((await readStatus(partner, accountId)).status).toBe('active');
  });

  it('status PUT without Idempotency-Key is 400 missing_idempotency_key', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const res = await partner.call('PUT', STATUS(accountId), { body: { status: 'paused' } });
    const err = expectErrorEnvelope(res, 400, 'missing_idempotency_key');
    expect(err.message).toContain('Idempotency-Key');
    expect((await readStatus(partner, accountId)).status).toBe('active');
  });

  it('status PUT on an account with no non-archived variants reports paused and changes nothing', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    for (const v of await adminVariants(h, accountId))
      await patchVariant(h, v.variant_id, { archived: true });
    const before = await adminVariants(h, accountId);
    expect(before.every((v) => v.enabled && v.archived)).toBe(true);

    const data = expectOk(await partner.put(STATUS(accountId), { status: 'active' }));
    expect(data).toEqual({ account_id: accountId, status: 'paused', variants: [] });
    expect(await adminVariants(h, accountId)).toEqual(before);
  });

  it('status PUT on an account registered with pages: [] reports paused', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner, []);
    const data = expectOk(await partner.put(STATUS(accountId), { status: 'active' }));
    expect(data).toEqual({ account_id: accountId, status: 'paused', variants: [] });
    expect((await readStatus(partner, accountId)).status).toBe('paused');
  });

  it('PATCH on the status path is 405 method_not_allowed with Allow naming GET and PUT', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const res = await partner.patch(STATUS(accountId), { status: 'paused' });
    expectErrorEnvelope(res, 405, 'method_not_allowed');
    const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
    expect(allow).toContain('GET');
    expect(allow).toContain('PUT');
    expect(allow).not.toContain('PATCH');
    expect((await readStatus(partner, accountId)).status).toBe('active');
  });
});

describe('status-partial-failure scenario (docs/fault-injection.md)', () => {
  /** The spec fields of a variant (spec §2.6), for comparing answers with the control plane. */
  const specView = (v: { page_id: string; name: string; status?: string; enabled?: boolean }) => ({
    page_id: v.page_id,
    name: v.name,
    status: v.status ?? (v.enabled ? 'active' : 'paused'),
  });

  async function pauseAll(h: Harness, accountId: string) {
    for (const v of await adminVariants(h, accountId))
      await patchVariant(h, v.variant_id, { enabled: false });
  }

  it('status-partial-failure activating a paused account (2 variants): 200 partial_failure, the failed variant stays paused, aggregate mixed, GET agrees', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    await pauseAll(h, accountId);
    const variants = await adminVariants(h, accountId);

    const res = await partner.put(STATUS(accountId), { status: 'active' }, { [SCENARIO]: PARTIAL });
    const body = expectPartialFailure(res);
    expect(res.headers.get(APPLIED)).toBe(PARTIAL);
    expect(body.message).toBe(partialFailureMessage(1, 2, 'active', 'mixed', body.request_id));
    expect(body.message).toContain('kept their previous state');
    expect(body.error).toEqual({ code: 'partial_failure', details: { failed_count: 1, variant_count: 2 } });
    expect(body.data.account_id).toBe(accountId);
    expect(body.data.status).toBe('mixed');
    expect(body.data.variants.map(specView)).toEqual([
      specView({ ...variants[0]!, status: 'paused' }),
      specView({ ...variants[1]!, status: 'active' }),
    ]);

    const stored = await adminVariants(h, accountId);
    expect(stored.map((v) => v.enabled)).toEqual([false, true]);
    const read = await readStatus(partner, accountId);
    expect(read.status).toBe('mixed');
    expect(read.variants.map(specView)).toEqual(body.data.variants.map(specView));
  });

  it('status-partial-failure never flips: an all-active account asked to become active stays active (the failed variant unchanged)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const before = await adminVariants(h, accountId);
    expect(before.every((v) => v.enabled)).toBe(true);

    const res = await partner.put(STATUS(accountId), { status: 'active' }, { [SCENARIO]: PARTIAL });
    const body = expectPartialFailure(res);
    expect(body.message).toBe(partialFailureMessage(1, 2, 'active', 'active', body.request_id));
    expect(body.data.status).toBe('active');
    expect(body.data.variants.map((v: { status: string }) => v.status)).toEqual(['active', 'active']);
    expect(await adminVariants(h, accountId)).toEqual(before);
    expect((await readStatus(partner, accountId)).status).toBe('active');
  });

  it('status-partial-failure pausing an active account with 2 variants: the failed one stays active, mixed', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const res = await partner.put(STATUS(accountId), { status: 'paused' }, { [SCENARIO]: PARTIAL });
    const body = expectPartialFailure(res);
    expect(body.message).toBe(partialFailureMessage(1, 2, 'paused', 'mixed', body.request_id));
    expect(body.data.status).toBe('mixed');
    expect(body.data.variants.map((v: { status: string }) => v.status)).toEqual(['active', 'paused']);
    expect((await adminVariants(h, accountId)).map((v) => v.enabled)).toEqual([true, false]);
  });

  it('status-partial-failure=2 on 4 paused variants fails exactly 2 (the first two in creation order), which keep paused', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await fourVariantAccount(h, partner);
    await pauseAll(h, accountId);
    expect(await adminVariants(h, accountId)).toHaveLength(4);

    const res = await partner.put(STATUS(accountId), { status: 'active' }, { [SCENARIO]: `${PARTIAL}=2` });
    const body = expectPartialFailure(res);
    expect(res.headers.get(APPLIED)).toBe(`${PARTIAL}=2`);
    expect(body.message).toBe(partialFailureMessage(2, 4, 'active', 'mixed', body.request_id));
    expect(body.data.status).toBe('mixed');
    expect(body.data.variants.map((v: { status: string }) => v.status)).toEqual([
      'paused',
      'paused',
      'active',
      'active',
    ]);
    const read = await readStatus(partner, accountId);
    expect(read.status).toBe('mixed');
    expect(read.variants.map((v: { status: string }) => v.status)).toEqual([
      'paused',
      'paused',
      'active',
      'active',
    ]);
  });

  it('status-partial-failure with a value of N fails N variants: 3 of 4, and all 4 for a value of 4 or more (nothing changes)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const three = await fourVariantAccount(h, partner);
    const some = await partner.put(STATUS(three), { status: 'paused' }, { [SCENARIO]: `${PARTIAL}=3` });
    const partial = expectPartialFailure(some);
    expect(partial.error.details).toEqual({ failed_count: 3, variant_count: 4 });
    expect(partial.message).toBe(partialFailureMessage(3, 4, 'paused', 'mixed', partial.request_id));
    expect(partial.data.variants.map((v: { status: string }) => v.status)).toEqual([
      'active',
      'active',
      'active',
      'paused',
    ]);

    const all = await fourVariantAccount(h, partner);
    const before = expectOk(await partner.get(STATUS(all)));
    const res = await partner.put(STATUS(all), { status: 'paused' }, { [SCENARIO]: `${PARTIAL}=9` });
    expect(res.headers.get('x-sandbox-scenario-applied')).toBe(`${PARTIAL}=9`);
    const body = expectPartialFailure(res);
    expect(body.error.details).toEqual({ failed_count: 4, variant_count: 4 });
    expect(body.message).toBe(partialFailureMessage(4, 4, 'paused', 'active', body.request_id));
    expect(body.data.status).toBe('active');
    expect(expectOk(await partner.get(STATUS(all)))).toEqual(before);
  });

  it('status-partial-failure is deterministic: two identically shaped accounts fail the same positions', async () => {
    const h = createHarness();
    const partner = await h.client();
    const positions: number[][] = [];
    for (const _ of [1, 2]) {
      const accountId = await fourVariantAccount(h, partner);
      const res = await partner.put(STATUS(accountId), { status: 'paused' }, { [SCENARIO]: PARTIAL });
      const body = expectPartialFailure(res);
      // A failed variant kept its old state (active) while the others were paused.
      positions.push(
        body.data.variants.flatMap((v: { status: string }, i: number) => (v.status === 'active' ? [i] : [])),
      );
    }
    // Default N = half of 4 = 2, the first two in variant order.
    expect(positions[0]).toEqual([0, 1]);
    expect(positions[1]).toEqual(positions[0]);
  });

  it('status-partial-failure with a single variant fails that variant: nothing changes', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner, [
      { surface: 'confirmation', layout_type: 'Overlay' },
    ]);
    const [only] = await adminVariants(h, accountId);

    const res = await partner.put(STATUS(accountId), { status: 'paused' }, { [SCENARIO]: PARTIAL });
    const body = expectPartialFailure(res);
    expect(res.headers.get(APPLIED)).toBe(PARTIAL);
    expect(body.message).toBe(partialFailureMessage(1, 1, 'paused', 'active', body.request_id));
    expect(body.data.variants.map(specView)).toEqual([specView(only!)]);
    expect(body.data.status).toBe('active');
    expect(await adminVariants(h, accountId)).toEqual([only]);
    expect((await readStatus(partner, accountId)).status).toBe('active');
  });

  it('a body naming "status" twice keeps the last (as every JSON body: docs/where-the-spec-is-silent.md)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const res = await partner.call('PUT', STATUS(accountId), {
      raw: '{"status":"active","status":"paused"}',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'twice-1' },
    });
    expect(expectOk(res).status).toBe('paused');
  });

  it('X-Sandbox-Warning is cut at 4 KiB (clients refuse headers over 16 KiB); the journal keeps every failed variant', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await fourVariantAccount(h, partner);
    const page = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.pages[0].page_id;
    for (let i = 0; i < 60; i++) {
      const added = await h.request('POST', `/__sandbox/accounts/${accountId}/variants`, {
        body: { page_id: page, name: `variant number ${i} with a long enough name`, enabled: false },
      });
      expect(added.status, added.text).toBe(201);
    }
    const res = await partner.put(STATUS(accountId), { status: 'active' }, { [SCENARIO]: `${PARTIAL}=50` });
    const body = expectPartialFailure(res);
    const warning = res.headers.get('x-sandbox-warning') ?? '';
    expect(warning.length).toBe(WARNING_HEADER_MAX);
    expect(warning.endsWith(WARNING_CUT)).toBe(true);
    const journal = await h.request('GET', `/__sandbox/requests?account_id=${accountId}&method=PUT`);
    const entry = journal.body.requests.find((e: { request_id: string }) => e.request_id === body.request_id);
    const failed = (
      await h.request('GET', `/__sandbox/accounts/${accountId}`)
    ).body.last_status_write.variants.filter((v: { result: string }) => v.result === 'failed');
    expect(failed).toHaveLength(50);
    for (const v of failed) expect(entry.warnings.join(' ')).toContain(v.variant_id);
    // The partner's bundle holds the warning cut to what a bundle carries, and loads elsewhere.
    const bundle = await h.request('GET', `/__sandbox/partners/${DEMO.parent}/bundle`);
    expect(bundle.status, bundle.text).toBe(200);
    const carried = bundle.body.journal.find((e: { request_id: string }) => e.request_id === body.request_id);
    expect(carried.warnings.some((w: string) => w.endsWith(' ... (cut in the bundle)'))).toBe(true);
    const imported = await createHarness().request('POST', '/__sandbox/bundles', { body: bundle.body });
    expect(imported.status, imported.text).toBe(200);
  });

  it('which variants failed: X-Sandbox-Warning, the journal and the control plane account view (last_status_write) name them', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await fourVariantAccount(h, partner);
    await pauseAll(h, accountId);
    const variants = await adminVariants(h, accountId);
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.last_status_write).toBeNull();

    const res = await partner.put(STATUS(accountId), { status: 'active' }, { [SCENARIO]: `${PARTIAL}=2` });
    const body = expectPartialFailure(res);
    const failed = variants.slice(0, 2);
    const warning = res.headers.get('x-sandbox-warning') ?? '';
    for (const v of failed) expect(warning).toContain(v.variant_id);
    for (const v of variants.slice(2)) expect(warning).not.toContain(v.variant_id);

    const journal = await h.request('GET', `/__sandbox/requests?account_id=${accountId}&method=PUT`);
    const entry = journal.body.requests.find((e: { request_id: string }) => e.request_id === body.request_id);
    expect(entry.status).toBe(200);
    expect(entry.scenarios_applied).toEqual([`${PARTIAL}=2`]);
    expect(entry.warnings.join(' ')).toContain(failed[0]!.variant_id);
    expect(entry.warnings.join(' ')).toContain(failed[1]!.variant_id);

    const view = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.last_status_write;
    expect(view).toMatchObject({ request_id: body.request_id, requested: 'active', status: 'mixed' });
    expect(
      view.variants.map((v: { variant_id: string; result: string }) => [v.variant_id, v.result]),
    ).toEqual([
      [variants[0]!.variant_id, 'failed'],
      [variants[1]!.variant_id, 'failed'],
      [variants[2]!.variant_id, 'updated'],
      [variants[3]!.variant_id, 'updated'],
    ]);
    expect(view.variants.map((v: { status: string }) => v.status)).toEqual([
      'paused',
      'paused',
      'active',
      'active',
    ]);

    // A clean write replaces the record.
    expectOk(await partner.put(STATUS(accountId), { status: 'active' }));
    const next = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.last_status_write;
    expect(next.variants.map((v: { result: string }) => v.result)).toEqual([
      'updated',
      'updated',
      'unchanged',
      'unchanged',
    ]);
  });

  it('status-partial-failure on a dry run changes nothing and is not reported as applied', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const before = await adminVariants(h, accountId);

    const res = await partner.put(
      `${STATUS(accountId)}?dry_run=true`,
      { status: 'paused' },
      { [SCENARIO]: PARTIAL },
    );
    const data = expectOk(res);
    expect(res.body.dry_run).toBe(true);
    expect(res.headers.get(APPLIED)).toBeNull();
    expect(data.variants.map((v: { status: string }) => v.status)).toEqual(['paused', 'paused']);
    expect(await adminVariants(h, accountId)).toEqual(before);
    expect((await readStatus(partner, accountId)).status).toBe('active');
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.last_status_write).toBeNull();
  });

  it('status-partial-failure does not apply to an account with no non-archived variants', async () => {
    const h = createHarness();
    const partner = await h.client({ ...DEMO });
    const { accountId } = await registerAccount(partner, []);
    const res = await partner.put(STATUS(accountId), { status: 'active' }, { [SCENARIO]: PARTIAL });
    const data = expectOk(res);
    expect(data.status).toBe('paused');
    expect(res.headers.get(APPLIED)).toBeNull();
  });
});
