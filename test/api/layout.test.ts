/**
 * Layout edit (spec §4 endpoint 7; request and response are the sandbox's documented
 * assumption): PATCH /v1/partnership/accounts/{account_id}/layouts/{layout_id}.
 */
import { describe, expect, it } from 'vitest';
import {
  DIFFERENT_PAYLOAD_WARNING,
  layoutNotFoundMessage,
  MISSING_PARENT_HEADER_MESSAGE,
} from '../../src/contract/api/messages.js';
import {
  CONTROLS,
  createHarness,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  LAYOUT,
} from '../helpers/harness.js';

type Partner = Awaited<ReturnType<Harness['client']>>;

interface AdminLayout {
  layout_id: string;
  page_id: string;
  account_id: string;
  layout_type: string;
  name: string;
  updated_at: string;
}

/** Registers an account with the default pages (confirmation/Overlay, tracking/Embedded). */
async function registerAccount(partner: Partner) {
  const data = expectOk(await partner.register());
  const pages = data.pages as { surface: string; page_id: string; layout_id: string }[];
  const confirmation = pages.find((p) => p.surface === 'confirmation')!;
  return { accountId: data.account_id as string, pages, confirmation };
}

async function adminLayouts(h: Harness, accountId: string): Promise<AdminLayout[]> {
  const res = await h.request('GET', `/__sandbox/accounts/${accountId}`);
  expect(res.status).toBe(200);
  return res.body.layouts;
}

async function adminLayout(h: Harness, accountId: string, layoutId: string): Promise<AdminLayout> {
  const layout = (await adminLayouts(h, accountId)).find((l) => l.layout_id === layoutId);
  expect(layout).toBeDefined();
  return layout!;
}

describe('layout PATCH (endpoint 7)', () => {
  it('layout PATCH changes layout_type and name and answers {layout_id, page_id, surface, layout_type} (spec-named fields only)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, confirmation } = await registerAccount(partner);
    const before = await adminLayout(h, accountId, confirmation.layout_id);
    expect(before.layout_type).toBe('Overlay');

    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 60 } });
    const res = await partner.patch(LAYOUT(accountId, confirmation.layout_id), {
      layout_type: 'Embedded',
      name: 'Checkout thank-you',
    });
    const data = expectOk(res);
    expect(res.body.dry_run).toBeUndefined();
    expect(data).toEqual({
      layout_id: confirmation.layout_id,
      page_id: confirmation.page_id,
      surface: 'confirmation',
      layout_type: 'Embedded',
    });

    const after = await adminLayout(h, accountId, confirmation.layout_id);
    expect(after).toMatchObject({ layout_type: 'Embedded', name: 'Checkout thank-you' });
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
  });

  it('layout PATCH with only name changes the name and keeps layout_type', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, confirmation } = await registerAccount(partner);

    const data = expectOk(
      await partner.patch(LAYOUT(accountId, confirmation.layout_id), { name: 'Renamed' }),
    );
    expect(data.layout_type).toBe('Overlay');

    const after = await adminLayout(h, accountId, confirmation.layout_id);
    expect(after.name).toBe('Renamed');
    expect(after.layout_type).toBe('Overlay');
  });

  it('layout PATCH dry_run=true shows the edit with dry_run:true and leaves the layout unchanged', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, confirmation } = await registerAccount(partner);
    const before = await adminLayouts(h, accountId);

    const res = await partner.patch(`${LAYOUT(accountId, confirmation.layout_id)}?dry_run=true`, {
      layout_type: 'Embedded',
      name: 'Would be',
    });
    const data = expectOk(res);
    expect(res.body.dry_run).toBe(true);
    expect(data).toMatchObject({ layout_id: confirmation.layout_id, layout_type: 'Embedded' });

    expect(await adminLayouts(h, accountId)).toEqual(before);
  });

  it('layout PATCH with an empty body {} is 400 validation_error', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, confirmation } = await registerAccount(partner);
    const before = await adminLayouts(h, accountId);
    const err = expectErrorEnvelope(
      await partner.patch(LAYOUT(accountId, confirmation.layout_id), {}),
      400,
      'validation_error',
    );
    expect(err.message).toContain('layout_type');
    expect(err.message).toContain('name');
    expect(await adminLayouts(h, accountId)).toEqual(before);
  });

  it('layout PATCH with an invalid layout_type is 400 naming layout_type and the allowed values', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, confirmation } = await registerAccount(partner);
    const before = await adminLayouts(h, accountId);
    const err = expectErrorEnvelope(
      await partner.patch(LAYOUT(accountId, confirmation.layout_id), { layout_type: 'Popup' }),
      400,
      'validation_error',
    );
    const field = err.error.details.fields.find((f: { field: string }) => f.field === 'layout_type');
    expect(field).toBeDefined();
    expect(field.message).toContain('"Overlay"');
    expect(field.message).toContain('"Embedded"');
    expect(err.message).toContain('layout_type');
    expect(await adminLayouts(h, accountId)).toEqual(before);
  });

  it('layout PATCH with an unknown field is 400 naming that field', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, confirmation } = await registerAccount(partner);
    const before = await adminLayouts(h, accountId);
    const err = expectErrorEnvelope(
      await partner.patch(LAYOUT(accountId, confirmation.layout_id), { name: 'x', colour: 'blue' }),
      400,
      'validation_error',
    );
    const field = err.error.details.fields.find((f: { field: string }) => f.field === 'colour');
    expect(field).toBeDefined();
    expect(field.message).toContain('unknown field');
    expect(err.message).toContain('colour');
    expect(await adminLayouts(h, accountId)).toEqual(before);
  });

  it('layout PATCH on an unknown layout is 404 layout_not_found', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const err = expectErrorEnvelope(
      await partner.patch(LAYOUT(accountId, 'lay_does_not_exist'), { name: 'x' }),
      404,
      'layout_not_found',
    );
    expect(err.message).toBe(layoutNotFoundMessage('lay_does_not_exist'));
  });

  it("layout PATCH on another account's layout (same parent) is 404 layout_not_found and changes nothing", async () => {
    const h = createHarness();
    const partner = await h.client();
    const a = await registerAccount(partner);
    const b = await registerAccount(partner);
    const before = await adminLayouts(h, b.accountId);

    const err = expectErrorEnvelope(
      await partner.patch(LAYOUT(a.accountId, b.confirmation.layout_id), { name: 'Hijacked' }),
      404,
      'layout_not_found',
    );
    expect(err.message).toBe(layoutNotFoundMessage(b.confirmation.layout_id));
    expect(await adminLayouts(h, b.accountId)).toEqual(before);
  });

  it('layout PATCH without Idempotency-Key is 400 missing_idempotency_key', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, confirmation } = await registerAccount(partner);
    const before = await adminLayouts(h, accountId);
    const res = await partner.call('PATCH', LAYOUT(accountId, confirmation.layout_id), {
      body: { name: 'x' },
    });
    const err = expectErrorEnvelope(res, 400, 'missing_idempotency_key');
    expect(err.message).toContain('Idempotency-Key');
    expect(await adminLayouts(h, accountId)).toEqual(before);
  });

  it('layout PATCH without X-Platform-Parent-Account-Id is 422 missing_parent_account_header', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, confirmation } = await registerAccount(partner);
    const before = await adminLayouts(h, accountId);
    const res = await h.request('PATCH', LAYOUT(accountId, confirmation.layout_id), {
      body: { name: 'x' },
      headers: { Authorization: `Bearer ${partner.token}`, 'Idempotency-Key': 'layout-no-parent' },
    });
    const err = expectErrorEnvelope(res, 422, 'missing_parent_account_header');
    expect(err.message).toBe(MISSING_PARENT_HEADER_MESSAGE);
    expect(await adminLayouts(h, accountId)).toEqual(before);
  });

  it('layout PATCH with a reused Idempotency-Key replays the first response and does not apply the new payload', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId, confirmation } = await registerAccount(partner);
    const key = 'layout-replay-key';
    const first = await partner.patch(
      LAYOUT(accountId, confirmation.layout_id),
      { name: 'First' },
      { 'Idempotency-Key': key },
    );
    expect(expectOk(first).layout_id).toBe(confirmation.layout_id);

    const same = await partner.patch(
      LAYOUT(accountId, confirmation.layout_id),
      { name: 'First' },
      { 'Idempotency-Key': key },
    );
    expect(same.status).toBe(200);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    expect(same.body).toEqual(first.body);

    const different = await partner.patch(
      LAYOUT(accountId, confirmation.layout_id),
      { name: 'Second' },
      { 'Idempotency-Key': key },
    );
    expect(different.status).toBe(200);
    expect(different.headers.get('idempotent-replayed')).toBe('true');
    expect(different.body).toEqual(first.body);
    expect(different.body.request_id).toBe(first.body.request_id);
    expect(different.headers.get('x-sandbox-warning')).toBe(DIFFERENT_PAYLOAD_WARNING);

    expect((await adminLayout(h, accountId, confirmation.layout_id)).name).toBe('First');
  });

  it('PATCH on the controls path is 405 method_not_allowed with Allow naming GET and PUT', async () => {
    const h = createHarness();
    const partner = await h.client();
    const { accountId } = await registerAccount(partner);
    const res = await partner.patch(CONTROLS(accountId), { name: 'x' });
    expectErrorEnvelope(res, 405, 'method_not_allowed');
    const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
    expect(allow).toContain('GET');
    expect(allow).toContain('PUT');
    expect(allow).not.toContain('PATCH');
  });
});
