/**
 * The control plane (docs/control-plane.md): plain JSON, errors in the envelope; health, reset,
 * partners, vertical mappings, the account view, variants, clock, journal, scenarios,
 * and the admin token.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  accountNotFoundMessage,
  mappingNotSeededMessage,
  UNKNOWN_QUERY_PARAMETER_MESSAGE,
} from '../../src/contract/api/messages.js';
import { CONTROL_ROUTES } from '../../src/contract/control/control-routes-all.js';
import { PATH_SEGMENT_MESSAGE } from '../../src/contract/control/control-schemas.js';
import { Clock } from '../../src/core/clock.js';
import { BUILT_IN_NAMES } from '../helpers/fixed-names.js';
import {
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  MAPPINGS,
  REGISTER,
  STATUS,
} from '../helpers/harness.js';
import { newTenant } from '../helpers/tenants.js';

const PRESETS_DIR = join(import.meta.dirname, '..', '..', 'scenarios');
const presetNames = () =>
  readdirSync(PRESETS_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => (JSON.parse(readFileSync(join(PRESETS_DIR, f), 'utf8')) as { name: string }).name);

const mappingRow = (sub: number, overrides: Record<string, unknown> = {}) => ({
  partner_vertical_id: 7,
  partner_vertical_name: 'Garden',
  partner_sub_vertical_id: sub,
  partner_sub_vertical_name: `Garden ${sub}`,
  vertical_name: `internal-garden-${sub}`,
  ...overrides,
});

async function registerAccount(h: Harness) {
  const partner = await h.client();
  const data = expectOk(await partner.register());
  return { partner, accountId: data.account_id as string, pages: data.pages as { page_id: string }[] };
}

const clock = async (h: Harness) => {
  const res = await h.request('GET', '/__sandbox/clock');
  expect(res.status).toBe(200);
  return res.body as { now: string; offset_seconds: number };
};

describe('control plane: health and reset', () => {
  it('GET /__sandbox/health is 200 {status: "ok", store: {writable: true}}', async () => {
    const h = createHarness();
    const res = await h.request('GET', '/__sandbox/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', store: { writable: true, problem: null } });
  });

  it('POST /__sandbox/reset wipes accounts, reloads fixtures and resets the clock', async () => {
    const h = createHarness();
    const { accountId } = await registerAccount(h);
    const created = await h.request('POST', '/__sandbox/partners', {
      body: { parent_account_id: 'pa_gone' },
    });
    expect(created.status).toBe(201);
    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 500 } });
    expect((await clock(h)).offset_seconds).toBe(500);
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).status).toBe(200);

    const reset = await h.request('POST', '/__sandbox/reset');
    expect(reset.status).toBe(200);

    const gone = await h.request('GET', `/__sandbox/accounts/${accountId}`);
    const err = expectErrorEnvelope(gone, 404, 'account_not_found');
    expect(err.message).toBe(accountNotFoundMessage(accountId));
    expect((await clock(h)).offset_seconds).toBe(0);
    // Fixtures again: demo credentials work; the partner created before the reset is gone.
    const token = await h.token(DEMO.clientId, DEMO.clientSecret);
    expect(token.length).toBeGreaterThan(0);
    const again = await h.request('POST', '/__sandbox/partners', { body: { parent_account_id: 'pa_gone' } });
    expect(again.status).toBe(201);
    // The demo mapping is seeded again.
    const partner = await h.client();
    expect(expectOk(await partner.get(MAPPINGS)).vertical_mappings.length).toBeGreaterThan(0);
  });
});

describe('control plane: partners and vertical mappings', () => {
  it('POST /__sandbox/partners with no body is 201 with generated credentials that can get a token', async () => {
    const h = createHarness();
    const res = await h.request('POST', '/__sandbox/partners');
    expect(res.status).toBe(201);
    const { parent_account_id, client_id, client_secret } = res.body;
    for (const v of [parent_account_id, client_id, client_secret]) {
      expect(typeof v).toBe('string');
      expect(v.length).toBeGreaterThan(0);
    }
    expect(parent_account_id).not.toBe(DEMO.parent);
    const partner = await h.client({
      parent: parent_account_id,
      clientId: client_id,
      clientSecret: client_secret,
    });
    expect(partner.token.length).toBeGreaterThan(0);
    // A new partner has no mapping yet.
    expect(expectOk(await partner.get(MAPPINGS)).vertical_mappings).toEqual([]);
  });

  it('POST /__sandbox/partners with given values answers exactly those values', async () => {
    const h = createHarness();
    const wanted = {
      parent_account_id: 'pa_acme',
      client_id: 'acme-client',
      client_secret: 'acme-secret-123',
    };
    const res = await h.request('POST', '/__sandbox/partners', { body: wanted });
    expect(res.status).toBe(201);
    expect(res.body).toEqual(wanted);
    expect((await h.token('acme-client', 'acme-secret-123')).length).toBeGreaterThan(0);
  });

  it('POST /__sandbox/partners with an existing parent_account_id is 400', async () => {
    const h = createHarness();
    const res = await h.request('POST', '/__sandbox/partners', { body: { parent_account_id: DEMO.parent } });
    const err = expectErrorEnvelope(res, 400, 'validation_error');
    expect(err.message).toContain('parent_account_id');
    // The fixture partner's credentials are untouched.
    expect((await h.token(DEMO.clientId, DEMO.clientSecret)).length).toBeGreaterThan(0);
  });

  it('POST /__sandbox/partners with a taken client_id (a new parent) is 400 naming client_id, not parent_account_id; nothing is created', async () => {
    const h = createHarness();
    const res = await h.request('POST', '/__sandbox/partners', {
      body: { parent_account_id: 'pa_new_one', client_id: DEMO.clientId },
    });
    const err = expectErrorEnvelope(res, 400, 'validation_error');
    expect(err.error.details.fields).toEqual([
      { field: 'client_id', message: 'a partner with this client_id exists already' },
    ]);
    expect(err.message).toBe('Invalid request: client_id: a partner with this client_id exists already');
    const partners = await h.request('GET', '/__sandbox/partners');
    expect(
      partners.body.partners.map((p: { parent_account_id: string }) => p.parent_account_id),
    ).not.toContain('pa_new_one');
    // Both taken: both named.
    const both = await h.request('POST', '/__sandbox/partners', {
      body: { parent_account_id: DEMO.parent, client_id: DEMO.clientId },
    });
    expect(
      expectErrorEnvelope(both, 400, 'validation_error').error.details.fields.map(
        (f: { field: string }) => f.field,
      ),
    ).toEqual(['parent_account_id', 'client_id']);
  });

  it("PUT vertical-mappings replaces the partner's mapping, visible with created_at on GET /v1/partnership/vertical-mappings", async () => {
    const h = createHarness();
    const created = (
      await h.request('POST', '/__sandbox/partners', { body: { parent_account_id: 'pa_new' } })
    ).body;
    const path = '/__sandbox/partners/pa_new/vertical-mappings';
    const first = await h.request('PUT', path, {
      body: { vertical_mappings: [mappingRow(71), mappingRow(72)] },
    });
    expect(first.status).toBe(200);
    const second = await h.request('PUT', path, { body: { vertical_mappings: [mappingRow(73)] } });
    expect(second.status).toBe(200);

    const partner = await h.client({
      parent: 'pa_new',
      clientId: created.client_id,
      clientSecret: created.client_secret,
    });
    const rows = expectOk(await partner.get(MAPPINGS)).vertical_mappings;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject(mappingRow(73));
    expect(Number.isNaN(Date.parse(rows[0].created_at))).toBe(false);

    // The demo partner's mapping is not affected.
    const demo = await h.client();
    const demoRows = expectOk(await demo.get(MAPPINGS)).vertical_mappings;
    expect(
      demoRows.some((r: { partner_sub_vertical_id: number }) => r.partner_sub_vertical_id === 1001),
    ).toBe(true);
  });

  it('PUT vertical-mappings with an invalid body is 400 naming the field', async () => {
    const h = createHarness();
    const res = await h.request('PUT', `/__sandbox/partners/${DEMO.parent}/vertical-mappings`, {
      body: { vertical_mappings: [mappingRow(71, { partner_vertical_id: 'seven' })] },
    });
    const err = expectErrorEnvelope(res, 400, 'validation_error');
    expect(err.error.details.fields.map((f: { field: string }) => f.field)).toContain(
      'vertical_mappings[0].partner_vertical_id',
    );
    // Nothing replaced.
    const demo = await h.client();
    expect(expectOk(await demo.get(MAPPINGS)).vertical_mappings.length).toBeGreaterThan(1);
  });

  it('PUT vertical-mappings with a duplicate partner_sub_vertical_id is 400 naming it', async () => {
    const h = createHarness();
    const res = await h.request('PUT', `/__sandbox/partners/${DEMO.parent}/vertical-mappings`, {
      body: { vertical_mappings: [mappingRow(71), mappingRow(71, { vertical_name: 'other' })] },
    });
    const err = expectErrorEnvelope(res, 400, 'validation_error');
    expect(err.error.details.fields.map((f: { field: string }) => f.field)).toContain(
      'vertical_mappings[1].partner_sub_vertical_id',
    );
    const demo = await h.client();
    const rows = expectOk(await demo.get(MAPPINGS)).vertical_mappings;
    expect(rows.some((r: { partner_sub_vertical_id: number }) => r.partner_sub_vertical_id === 71)).toBe(
      false,
    );
  });

  it('PUT vertical-mappings for an unknown partner is 404', async () => {
    const h = createHarness();
    const res = await h.request('PUT', '/__sandbox/partners/pa_nobody/vertical-mappings', {
      body: { vertical_mappings: [mappingRow(71)] },
    });
    const err = expectErrorEnvelope(res, 404, 'not_found');
    expect(err.message).toContain('pa_nobody');
  });

  it('DELETE vertical-mappings un-seeds: GET returns [] and register is 400 vertical_mapping_not_seeded', async () => {
    const h = createHarness();
    const res = await h.request('DELETE', `/__sandbox/partners/${DEMO.parent}/vertical-mappings`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ vertical_mappings: [] });

    const partner = await h.client();
    expect(expectOk(await partner.get(MAPPINGS)).vertical_mappings).toEqual([]);
    const err = expectErrorEnvelope(await partner.register(), 400, 'vertical_mapping_not_seeded');
    expect(err.message).toBe(mappingNotSeededMessage(DEMO.parent));
  });

  it('DELETE vertical-mappings for an unknown partner is 404', async () => {
    const h = createHarness();
    expectErrorEnvelope(
      await h.request('DELETE', '/__sandbox/partners/pa_nobody/vertical-mappings'),
      404,
      'not_found',
    );
  });
});

describe('control plane: accounts and variants', () => {
  it('GET /__sandbox/accounts/{id} shows pages, layouts, variants (archived too), controls and propagation', async () => {
    const h = createHarness();
    const { partner, accountId, pages } = await registerAccount(h);
    const added = await h.request('POST', `/__sandbox/accounts/${accountId}/variants`, {
      body: { page_id: pages[0]!.page_id, name: 'Archived one', enabled: false },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      page_id: pages[0]!.page_id,
      account_id: accountId,
      name: 'Archived one',
      enabled: false,
      archived: false,
    });
    const archived = await h.request('PATCH', `/__sandbox/variants/${added.body.variant_id}`, {
      body: { archived: true },
    });
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({
      variant_id: added.body.variant_id,
      archived: true,
      enabled: false,
    });

    const res = await h.request('GET', `/__sandbox/accounts/${accountId}`);
    expect(res.status).toBe(200);
    const view = res.body;
    expect(view.account.account_id).toBe(accountId);
    expect(view.account.parent_account_id).toBe(DEMO.parent);
    expect(view.pages.map((p: { page_id: string; surface: string }) => [p.page_id, p.surface])).toEqual([
      [pages[0]!.page_id, 'confirmation'],
      [pages[1]!.page_id, 'tracking'],
    ]);
    expect(view.layouts.map((l: { layout_type: string }) => l.layout_type)).toEqual(['Overlay', 'Embedded']);
    expect(view.variants).toHaveLength(3);
    expect(view.variants[2]).toMatchObject({
      variant_id: added.body.variant_id,
      archived: true,
      enabled: false,
    });
    expect(view.status).toBe('active');
    expect(view.propagation).toMatchObject({ pending: false });
    expect(typeof view.propagation.ready_at).toBe('string');

    const controls = expectOk(
      await partner.get(`/v1/partnership/accounts/${accountId}/marketplacecontrolslists`),
    );
    expect(view.controls.content_hash).toBe(controls.marketplace_controls_list.content_hash);
    expect(view.controls.list_id).toBe(controls.marketplace_controls_list.marketplace_controls_list_id);
    expect(view.controls.translated).toEqual(controls);

    // The partner's taxonomy names the account's IDs: the same rows the partnership GET answers.
    const mappings = expectOk(
      await partner.get(`/v1/partnership/vertical-mappings?parent_account_id=${DEMO.parent}`),
    );
    expect(view.vertical_mappings).toEqual(mappings.vertical_mappings);
    expect(
      view.vertical_mappings.some(
        (m: { partner_sub_vertical_id: number }) =>
          m.partner_sub_vertical_id === view.account.sub_vertical_id,
      ),
    ).toBe(true);
    expect((await h.request('DELETE', `/__sandbox/partners/${DEMO.parent}/vertical-mappings`)).status).toBe(
      200,
    );
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.vertical_mappings).toEqual([]);
  });

  it('GET /__sandbox/accounts/{id} for an unknown account is 404 account_not_found', async () => {
    const h = createHarness();
    const err = expectErrorEnvelope(
      await h.request('GET', '/__sandbox/accounts/acc_nope'),
      404,
      'account_not_found',
    );
    expect(err.message).toBe(accountNotFoundMessage('acc_nope'));
  });

  it('POST /__sandbox/accounts/{id}/variants: a name with a blank at either end or a control character is 400 naming name (the API rule for names), nothing added', async () => {
    const h = createHarness();
    const a = await registerAccount(h);
    for (const name of [' 1', 'x ', 'nul\u0000name', '', 'line\nbreak']) {
      const res = await h.request('POST', `/__sandbox/accounts/${a.accountId}/variants`, {
        body: { page_id: a.pages[0]!.page_id, name, enabled: true },
      });
      const err = expectErrorEnvelope(res, 400, 'validation_error');
      expect(
        err.error.details.fields.map((f: { field: string }) => f.field),
        JSON.stringify(name),
      ).toEqual(['name']);
    }
    expect((await h.request('GET', `/__sandbox/accounts/${a.accountId}`)).body.variants).toHaveLength(2);
  });

  it("POST /__sandbox/accounts/{id}/variants with another account's page is 400 naming page_id", async () => {
    const h = createHarness();
    const a = await registerAccount(h);
    const b = await registerAccount(h);
    const res = await h.request('POST', `/__sandbox/accounts/${a.accountId}/variants`, {
      body: { page_id: b.pages[0]!.page_id, name: 'wrong page', enabled: true },
    });
    const err = expectErrorEnvelope(res, 400, 'validation_error');
    expect(err.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['page_id']);
    for (const id of [a.accountId, b.accountId]) {
      expect((await h.request('GET', `/__sandbox/accounts/${id}`)).body.variants).toHaveLength(2);
    }
  });

  it('PATCH /__sandbox/variants/{id} for an unknown variant is 404', async () => {
    const h = createHarness();
    const res = await h.request('PATCH', '/__sandbox/variants/var_nope', { body: { enabled: false } });
    const err = expectErrorEnvelope(res, 404, 'not_found');
    expect(err.message).toContain('var_nope');
  });
});

describe('control plane: clock', () => {
  it('GET /__sandbox/clock starts at offset 0 and POST /__sandbox/clock/advance grows it by the seconds', async () => {
    const h = createHarness();
    const start = await clock(h);
    expect(start.offset_seconds).toBe(0);
    const advanced = await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 90 } });
    expect(advanced.status).toBe(200);
    expect(advanced.body.offset_seconds).toBe(90);
    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 30 } });
    const now = await clock(h);
    expect(now.offset_seconds).toBe(120);
    expect(Date.parse(now.now) - Date.parse(start.now)).toBeGreaterThanOrEqual(120_000);
  });

  for (const [label, body] of [
    ['negative seconds', { seconds: -5 }],
    ['zero seconds', { seconds: 0 }],
    ['seconds as a string', { seconds: 'ten' }],
    ['missing seconds', {}],
  ] as const) {
    it(`POST /__sandbox/clock/advance with ${label} is 400 naming seconds`, async () => {
      const h = createHarness();
      const res = await h.request('POST', '/__sandbox/clock/advance', { body });
      const err = expectErrorEnvelope(res, 400, 'validation_error');
      expect(err.error.details.fields.map((f: { field: string }) => f.field)).toContain('seconds');
      expect((await clock(h)).offset_seconds).toBe(0);
    });
  }
});

describe('control plane: the clock stays inside the Date range (issue 14 B12)', () => {
  it('advances that add up past 100 years are 400 naming seconds and the headroom; reads and writes keep working', async () => {
    const h = createHarness();
    const tenYears = 10 * 365 * 86_400;
    for (let i = 0; i < 10; i++) {
      expect(
        (await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: tenYears } })).status,
      ).toBe(200);
    }
    const res = await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: tenYears } });
    const err = expectErrorEnvelope(res, 400, 'validation_error');
    expect(err.error.details.fields).toEqual([
      {
        field: 'seconds',
        message:
          'would move the sandbox clock more than 100 years ahead in all; it can move 0 more seconds (POST /__sandbox/reset sets it back)',
      },
    ]);
    expect((await clock(h)).offset_seconds).toBe(10 * tenYears);
    // Everything still answers.
    const partner = await h.client();
    const accountId = await partner.account();
    expect((await partner.get(STATUS(accountId))).status).toBe(200);
  });

  it('a durable store holding an offset beyond the bound starts with it clamped', () => {
    expect(new Clock(Number.MAX_SAFE_INTEGER).offsetMs).toBe(Clock.MAX_OFFSET_MS);
    expect(new Clock(Number.NaN).offsetMs).toBe(0);
  });
});

describe('control plane: partner credentials (issue 14 A10)', () => {
  for (const [label, body, field] of [
    ['a client secret with a non-ASCII character', { client_secret: 'geheimnis-\u00fc' }, 'client_secret'],
    ['a client secret with a control character', { client_secret: 'secret\u0007bell' }, 'client_secret'],
    ['a client_id with a space', { client_id: 'my client' }, 'client_id'],
    ['a parent_account_id with a trailing space', { parent_account_id: 'pa_x ' }, 'parent_account_id'],
  ] as const) {
    it(`POST /__sandbox/partners with ${label} is 400 naming ${field}; nothing is created`, async () => {
      const h = createHarness();
      const res = await h.request('POST', '/__sandbox/partners', { body });
      const err = expectErrorEnvelope(res, 400, 'validation_error');
      expect(err.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
      const list = await h.request('GET', '/__sandbox/partners');
      expect(list.body.partners).toHaveLength(2);
    });
  }

  it('a secret of printable ASCII with spaces and symbols is accepted, and a token is granted with it', async () => {
    const h = createHarness();
    const res = await h.request('POST', '/__sandbox/partners', { body: { client_secret: 'a b+c%d:e/f' } });
    expect(res.status).toBe(201);
    expect(await h.token(res.body.client_id, 'a b+c%d:e/f')).toMatch(/.{20,}/);
  });
});

describe('control plane: partner IDs are URL path segments', () => {
  for (const value of ['.', '..', 'a/b', '%2E%2E', 'pa?x', 'pa#x']) {
    for (const field of ['parent_account_id', 'client_id'] as const) {
      it(`POST /__sandbox/partners with ${field} ${JSON.stringify(value)} is 400 naming it; nothing is created`, async () => {
        const h = createHarness();
        const res = await h.request('POST', '/__sandbox/partners', { body: { [field]: value } });
        const err = expectErrorEnvelope(res, 400, 'validation_error');
        expect(err.error.details.fields).toEqual([{ field, message: PATH_SEGMENT_MESSAGE }]);
        expect(err.message).toContain('not "." or ".."');
        expect((await h.request('GET', '/__sandbox/partners')).body.partners).toHaveLength(2);
      });
    }
  }

  it('every unreserved character is accepted, and the partner is addressable on its own routes', async () => {
    const h = createHarness();
    const parent = 'pa.A-z_0~9..x';
    const res = await h.request('POST', '/__sandbox/partners', {
      body: { parent_account_id: parent, client_id: '...' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ parent_account_id: parent, client_id: '...' });
    const advanced = await h.request('POST', `/__sandbox/partners/${parent}/clock/advance`, {
      body: { seconds: 60 },
    });
    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({
      parent_account_id: parent,
      offset_seconds: 60,
      global_offset_seconds: 0,
    });
    const reset = await h.request('POST', `/__sandbox/partners/${parent}/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ reset: true, parent_account_id: parent });
    expect((await h.request('GET', '/__sandbox/clock')).body.offset_seconds).toBe(0);
  });
});

describe('control plane: request journal', () => {
  it('GET /__sandbox/requests lists entries newest first and filters by method, status and account_id', async () => {
    const h = createHarness();
    const { partner, accountId } = await registerAccount(h);
    const other = await partner.account();
    await partner.get(STATUS(accountId));
    await partner.get(STATUS(other));
    await partner.get(STATUS('acc_missing'));

    const all = await h.request('GET', '/__sandbox/requests');
    expect(all.status).toBe(200);
    const entries = all.body.requests as {
      id: number;
      method: string;
      path: string;
      status: number;
      account_id: string | null;
    }[];
    // token, register, register, GET, GET, GET 404
    expect(entries.map((e) => [e.method, e.path, e.status])).toEqual([
      ['GET', STATUS('acc_missing'), 404],
      ['GET', STATUS(other), 200],
      ['GET', STATUS(accountId), 200],
      ['POST', REGISTER, 200],
      ['POST', REGISTER, 200],
      ['POST', '/oauth/token', 200],
    ]);
    const ids = entries.map((e) => e.id);
    expect([...ids].sort((x, y) => y - x)).toEqual(ids);

    const gets = (await h.request('GET', '/__sandbox/requests?method=GET')).body.requests;
    expect(gets).toHaveLength(3);
    expect(gets.every((e: { method: string }) => e.method === 'GET')).toBe(true);

    const posts = (await h.request('GET', '/__sandbox/requests?method=post')).body.requests;
    expect(posts.map((e: { path: string }) => e.path)).toEqual([REGISTER, REGISTER, '/oauth/token']);

    const notFound = (await h.request('GET', '/__sandbox/requests?status=404')).body.requests;
    expect(notFound.map((e: { path: string }) => e.path)).toEqual([STATUS('acc_missing')]);

    const forAccount = (await h.request('GET', `/__sandbox/requests?account_id=${accountId}`)).body.requests;
    expect(forAccount.map((e: { path: string; account_id: string }) => [e.path, e.account_id])).toEqual([
      [STATUS(accountId), accountId],
      [REGISTER, accountId],
    ]);
  });

  it('GET /__sandbox/requests redacts the client secret and bearer token', async () => {
    const h = createHarness();
    const { partner, accountId } = await registerAccount(h);
    await partner.get(STATUS(accountId));
    const text = (await h.request('GET', '/__sandbox/requests')).text;
    expect(text).not.toContain(DEMO.clientSecret);
    expect(text).not.toContain(partner.token);
  });

  it('DELETE /__sandbox/requests clears the journal', async () => {
    const h = createHarness();
    await registerAccount(h);
    expect((await h.request('GET', '/__sandbox/requests')).body.requests.length).toBeGreaterThan(0);
    const res = await h.request('DELETE', '/__sandbox/requests');
    expect(res.status).toBe(200);
    expect((await h.request('GET', '/__sandbox/requests')).body.requests).toEqual([]);
  });
});

describe('control plane: scenarios', () => {
  it('GET /__sandbox/scenarios lists all 9 built-ins and the presets in scenarios/', async () => {
    const h = createHarness();
    const res = await h.request('GET', '/__sandbox/scenarios');
    expect(res.status).toBe(200);
    const builtIns = res.body.built_ins as { name: string; description: string }[];
    expect(builtIns.map((b) => b.name).sort()).toEqual([...BUILT_IN_NAMES].sort());
    for (const b of builtIns) expect(b.description.length).toBeGreaterThan(0);
    const expected = presetNames();
    expect(expected.length).toBeGreaterThanOrEqual(4);
    const presets = res.body.presets as { name: string; description: string }[];
    expect(presets.map((p) => p.name).sort()).toEqual([...expected].sort());
    for (const p of presets) expect(p.description.length).toBeGreaterThan(0);
    expect(res.body.armed).toEqual([]);
  });

  it('PUT /__sandbox/scenarios arms a scenario for an account with times:1: the next call applies it, the one after does not', async () => {
    const h = createHarness();
    const { partner, accountId } = await registerAccount(h);
    const armed = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'status-partial-failure', account_id: accountId, times: 1 },
    });
    expect(armed.status).toBe(200);
    expect(armed.body.armed).toMatchObject({
      scenario: 'status-partial-failure',
      account_id: accountId,
      remaining: 1,
    });
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toHaveLength(1);

    const first = await partner.put(STATUS(accountId), { status: 'paused' });
    expect(first.headers.get('x-sandbox-scenario-applied')).toBe('status-partial-failure');
    expect(first.body.error.code).toBe('partial_failure');
    expect(first.body.data.status).toBe('mixed');

    const second = await partner.put(STATUS(accountId), { status: 'paused' });
    expect(second.headers.get('x-sandbox-scenario-applied')).toBeNull();
    expect(expectOk(second).status).toBe('paused');
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toEqual([]);
  });

  it('PUT /__sandbox/scenarios with an unknown scenario name is 400 unknown_scenario', async () => {
    const h = createHarness();
    const { accountId } = await registerAccount(h);
    const res = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'meteor-strike', account_id: accountId },
    });
    const err = expectErrorEnvelope(res, 400, 'unknown_scenario');
    expect(err.message).toContain('meteor-strike');
    // the body's field is named, not the header this caller never sent
    expect(err.message).toMatch(/^scenario: unknown scenario "meteor-strike"\. Known scenarios: /);
    expect(err.message).not.toContain('X-Sandbox-Scenario');
    expect(err.error.details.known_scenarios).toEqual(BUILT_IN_NAMES);
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toEqual([]);
  });

  it('PUT /__sandbox/scenarios with no target arms it for every partner; null fields (Python None, Go nil) read as absent', async () => {
    const h = createHarness();
    const { partner, accountId } = await registerAccount(h);
    const other = await newTenant(h, 'global-arm');
    const otherAccount = await other.client.account();
    const armed = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'server-error', value: 503, parent_account_id: null, account_id: null, times: 2 },
    });
    expect(armed.status, armed.text).toBe(200);
    expect(armed.body.armed).toMatchObject({ scenario: 'server-error', remaining: 2 });
    expect(armed.body.armed).not.toHaveProperty('parent_account_id');
    expect(armed.body.armed).not.toHaveProperty('account_id');
    for (const [client, account] of [
      [partner, accountId],
      [other.client, otherAccount],
    ] as const) {
      const res = await client.get(STATUS(account));
      expectErrorEnvelope(res, 503, 'service_unavailable');
      expect(res.headers.get('x-sandbox-scenario-applied')).toBe('server-error=503');
    }
    expectOk(await partner.get(STATUS(accountId)));
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toEqual([]);

    const noValue = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'stale-content-hash', value: null, account_id: accountId, times: null },
    });
    expect(noValue.status, noValue.text).toBe(200);
    expect(noValue.body.armed.effects).toEqual([{ name: 'stale-content-hash' }]);
  });

  it('PUT /__sandbox/scenarios with both parent_account_id and account_id is 400 naming account_id', async () => {
    const h = createHarness();
    const { accountId } = await registerAccount(h);
    const res = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'latency', value: 5, parent_account_id: DEMO.parent, account_id: accountId },
    });
    const err = expectErrorEnvelope(res, 400, 'validation_error');
    expect(err.error.details.fields).toEqual([
      {
        field: 'account_id',
        message: 'send at most one of parent_account_id, account_id (neither arms it for every partner)',
      },
    ]);
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toEqual([]);
  });

  it('DELETE /__sandbox/scenarios disarms everything', async () => {
    const h = createHarness();
    const { partner, accountId } = await registerAccount(h);
    const armed = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'status-partial-failure', parent_account_id: DEMO.parent },
    });
    expect(armed.status).toBe(200);
    const res = await h.request('DELETE', '/__sandbox/scenarios');
    expect(res.status).toBe(200);
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toEqual([]);

    const put = await partner.put(STATUS(accountId), { status: 'paused' });
    expect(put.headers.get('x-sandbox-scenario-applied')).toBeNull();
    expect(expectOk(put).status).toBe('paused');
  });
});

describe('control plane: admin token', () => {
  it('with an admin token every /__sandbox route but health is 401 without it and works with Authorization: Bearer', async () => {
    const h = createHarness({ adminToken: 's3cret' });
    const partner = await h.client();
    const data = expectOk(await partner.register());
    const accountId = data.account_id as string;
    const pageId = data.pages[0].page_id as string;

    const routes: { method: string; path: string; body?: unknown }[] = [
      { method: 'GET', path: '/__sandbox/partners' },
      { method: 'POST', path: '/__sandbox/partners', body: { parent_account_id: 'pa_locked' } },
      {
        method: 'PUT',
        path: `/__sandbox/partners/${DEMO.parent}/vertical-mappings`,
        body: { vertical_mappings: [mappingRow(71)] },
      },
      { method: 'DELETE', path: `/__sandbox/partners/${DEMO.parent}/vertical-mappings` },
      { method: 'GET', path: `/__sandbox/accounts/${accountId}` },
      {
        method: 'POST',
        path: `/__sandbox/accounts/${accountId}/variants`,
        body: { page_id: pageId, name: 'v', enabled: true },
      },
      { method: 'GET', path: '/__sandbox/clock' },
      { method: 'POST', path: '/__sandbox/clock/advance', body: { seconds: 10 } },
      { method: 'GET', path: '/__sandbox/requests' },
      { method: 'DELETE', path: '/__sandbox/requests' },
      { method: 'GET', path: '/__sandbox/scenarios' },
      {
        method: 'PUT',
        path: '/__sandbox/scenarios',
        body: { scenario: 'latency', value: 0, account_id: accountId },
      },
      { method: 'DELETE', path: '/__sandbox/scenarios' },
      { method: 'POST', path: '/__sandbox/reset' },
    ];

    const health = await h.request('GET', '/__sandbox/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', store: { writable: true, problem: null } });

    const auth = { Authorization: 'Bearer s3cret' };
    const variantId = (await h.request('GET', `/__sandbox/accounts/${accountId}`, { headers: auth })).body
      .variants[0].variant_id as string;
    const patch = { method: 'PATCH', path: `/__sandbox/variants/${variantId}`, body: { enabled: false } };
    for (const r of [...routes, patch]) {
      for (const headers of [{}, { Authorization: 'Bearer wrong' }] as Record<string, string>[]) {
        const res = await h.request(r.method, r.path, { body: r.body, headers });
        const err = expectErrorEnvelope(res, 401, 'unauthorized');
        expect(res.headers.get('www-authenticate')).toContain('Bearer');
        expect(err.message).toContain('Authorization');
      }
    }
    // Every declared operation but health (contract/control/control-routes*.ts), not only those above.
    for (const route of CONTROL_ROUTES.filter((r) => r.operationId !== 'health')) {
      const path = route.path.replace(/\{[^}]+\}/g, 'pa_locked');
      const res = await h.request(route.method.toUpperCase(), path);
      expect(res.status, route.operationId).toBe(401);
    }

    // Nothing was done by the refused calls: the account, its variants and the clock are intact.
    const view = await h.request('GET', `/__sandbox/accounts/${accountId}`, { headers: auth });
    expect(view.status).toBe(200);
    expect(view.body.variants).toHaveLength(2);
    expect(view.body.variants.every((v: { enabled: boolean }) => v.enabled)).toBe(true);
    expect((await h.request('GET', '/__sandbox/clock', { headers: auth })).body.offset_seconds).toBe(0);

    const patched = await h.request('PATCH', patch.path, { body: patch.body, headers: auth });
    expect(patched.status).toBe(200);
    expect(patched.body.enabled).toBe(false);

    const expected: Record<string, number> = {
      'POST /__sandbox/partners': 201,
      [`POST /__sandbox/accounts/${accountId}/variants`]: 201,
    };
    for (const r of routes) {
      const res = await h.request(r.method, r.path, { body: r.body, headers: auth });
      expect(`${r.method} ${r.path} -> ${res.status}`).toBe(
        `${r.method} ${r.path} -> ${expected[`${r.method} ${r.path}`] ?? 200}`,
      );
    }
  });
});

describe('control plane: bounds are named in words, not the validator library’s', () => {
  it('an empty name, a rate above 1, times 0, too many scenarios: each field with what it must be', async () => {
    const h = createHarness();
    const cases: [string, string, unknown, { field: string; message: string }][] = [
      ['POST', '/__sandbox/partners', { name: '' }, { field: 'name', message: 'must not be empty' }],
      ['PUT', '/__sandbox/chaos', { rate: 1.5, seed: 1 }, { field: 'rate', message: 'must be at most 1' }],
      [
        'PUT',
        '/__sandbox/scenarios',
        { scenario: 'latency', value: 5, times: 0 },
        { field: 'times', message: 'must be at least 1' },
      ],
      [
        'PUT',
        '/__sandbox/chaos',
        { rate: 0.5, seed: 1, scenarios: Array.from({ length: 21 }, () => 'server-error') },
        { field: 'scenarios', message: 'must have at most 20 entries' },
      ],
    ];
    for (const [method, path, body, issue] of cases) {
      const res = await h.request(method, path, { body });
      const error = expectErrorEnvelope(res, 400, 'validation_error');
      expect(error.error.details.fields, `${method} ${path}`).toEqual([issue]);
    }
  });
});

describe('control plane: a query parameter an operation does not declare is 400 naming it, nothing done', () => {
  // On a shared sandbox (docs/parallel-tests.md) `DELETE /__sandbox/scenarios?parent_account_id=A`
  // (the shape of `DELETE /__sandbox/chaos?parent_account_id=A`) disarmed every partner's
  // scenarios, and `POST /__sandbox/reset?parent_account_id=A` wiped every partner: an operation
  // that declares no query ignored one. Now refused as the partnership API refuses one.
  const unknown = (field: string) => ({ field, message: UNKNOWN_QUERY_PARAMETER_MESSAGE });

  it('DELETE scenarios, DELETE requests, POST reset and POST clock/advance with ?parent_account_id= change nothing', async () => {
    const h = createHarness();
    const other = await newTenant(h);
    const { accountId } = await registerAccount(h);
    const armed = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'latency', value: 1, parent_account_id: other.parent },
    });
    expect(armed.status).toBe(200);
    const journal = (await h.request('GET', '/__sandbox/requests')).body.requests.length;
    expect(journal).toBeGreaterThan(0);
    const q = `?parent_account_id=${DEMO.parent}`;
    for (const [method, path, body] of [
      ['DELETE', `/__sandbox/scenarios${q}`, undefined],
      ['DELETE', `/__sandbox/requests${q}`, undefined],
      ['POST', `/__sandbox/reset${q}`, undefined],
      ['POST', `/__sandbox/clock/advance${q}`, { seconds: 60 }],
    ] as const) {
      const res = await h.request(method, path, body === undefined ? {} : { body });
      const err = expectErrorEnvelope(res, 400, 'validation_error');
      expect(err.error.details.fields, `${method} ${path}`).toEqual([unknown('query.parent_account_id')]);
    }
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toHaveLength(1);
    expect((await h.request('GET', '/__sandbox/requests')).body.requests.length).toBe(journal);
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).status).toBe(200);
    expect((await clock(h)).offset_seconds).toBe(0);
  });

  it('every declared operation without a query but health: ?foo=1&bar= is 400 naming query.foo and query.bar', async () => {
    const h = createHarness();
    for (const route of CONTROL_ROUTES.filter((r) => !r.request?.query && r.operationId !== 'health')) {
      const path = route.path.replace(/\{[^}]+\}/g, 'pa_demo_platform');
      const res = await h.request(route.method.toUpperCase(), `${path}?foo=1&bar=`);
      const err = expectErrorEnvelope(res, 400, 'validation_error');
      expect(err.error.details.fields, route.operationId).toEqual([
        unknown('query.foo'),
        unknown('query.bar'),
      ]);
    }
  });

  it('health answers 200 whatever query it is sent (a probe or wait loop may add a cache-buster), and its document lists no 400', async () => {
    const h = createHarness();
    const res = await h.request('GET', '/__sandbox/health?_=1732650000000&x=');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    const doc = (await h.request('GET', '/__sandbox/openapi.json')).body;
    expect(Object.keys(doc.paths['/__sandbox/health'].get.responses)).not.toContain('400');
  });
});
