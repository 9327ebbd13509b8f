/**
 * Spec §2.1 / §4 endpoint 1 (vertical mappings) and §2.2, §2.3, §4 endpoint 2
 * (register): response shapes, pages, validation field by field, taxonomy translation,
 * idempotent matching on external_account_id, and what registration creates.
 */
import { describe, expect, it } from 'vitest';
import {
  BLANK_MESSAGE,
  controlCharacterMessage,
  dryRunRegisterWarning,
  EDGE_WHITESPACE_MESSAGE,
  mappingNotSeededMessage,
  registerUnmappedMessage,
  unpairedSurrogateMessage,
} from '../../src/contract/api/messages.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  MAPPINGS,
  REGISTER,
  type RegisterBody,
  type Reply,
  registerBody,
  STATUS,
  UNSEEDED,
} from '../helpers/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface FieldIssue {
  field: string;
  message: string;
}

/** Asserts a 400 validation_error whose details name `field`, and returns that issue. */
function expectFieldError(res: Reply, field: string): FieldIssue {
  const body = expectErrorEnvelope(res, 400, 'validation_error');
  const fields: FieldIssue[] = body.error.details.fields;
  const issue = fields.find((f) => f.field === field);
  if (!issue) throw new Error(`expected a validation issue on ${field}, got ${JSON.stringify(fields)}`);
  expect(body.message).toContain(field);
  return issue;
}

/** The accounts a parent has, read back from the control plane. */
async function accountsOf(h: Harness, parent: string = DEMO.parent) {
  const res = await h.request('GET', '/__sandbox/partners');
  expect(res.status).toBe(200);
  const partner = res.body.partners.find(
    (p: { parent_account_id: string }) => p.parent_account_id === parent,
  );
  expect(partner).toBeDefined();
  return partner.accounts as { account_id: string; external_account_id: string; brand: string }[];
}

async function accountDetail(h: Harness, accountId: string) {
  const res = await h.request('GET', `/__sandbox/accounts/${accountId}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Posts a raw register body (no defaults merged) as the demo partner. */
async function postRegister(h: Harness, body: unknown, headers: Record<string, string> = {}) {
  const partner = await h.client();
  return partner.call('POST', REGISTER, { body, headers });
}

function without<K extends keyof RegisterBody>(key: K): Omit<RegisterBody, K> {
  const { [key]: _omitted, ...rest } = registerBody();
  return rest;
}

describe('endpoint 1: GET /v1/partnership/vertical-mappings', () => {
  it('mappings: each entry has the §2.1 fields, created_at an ISO 8601 UTC string', async () => {
    const h = createHarness();
    const partner = await h.client();
    const data = expectOk(await partner.get(MAPPINGS));
    expect(Object.keys(data)).toEqual(['vertical_mappings']);
    // fixtures/taxonomy.json: 4 + 4 + 3 + 4 + 3 sub-verticals
    expect(data.vertical_mappings).toHaveLength(18);
    for (const m of data.vertical_mappings) {
      expect(Object.keys(m).sort()).toEqual([
        'created_at',
        'partner_sub_vertical_id',
        'partner_sub_vertical_name',
        'partner_vertical_id',
        'partner_vertical_name',
        'vertical_name',
      ]);
      expect(Number.isInteger(m.partner_vertical_id)).toBe(true);
      expect(Number.isInteger(m.partner_sub_vertical_id)).toBe(true);
      expect(typeof m.partner_vertical_name).toBe('string');
      expect(typeof m.partner_sub_vertical_name).toBe('string');
      expect(typeof m.vertical_name).toBe('string');
      expect(m.created_at).toMatch(ISO_UTC);
      expect(new Date(m.created_at).toISOString()).toBe(m.created_at);
    }
    expect(data.vertical_mappings).toContainEqual({
      partner_vertical_id: 40,
      partner_vertical_name: 'Games & Entertainment',
      partner_sub_vertical_id: 4002,
      partner_sub_vertical_name: 'Online Casino',
      vertical_name: 'Gambling > Casino',
      created_at: expect.any(String),
    });
    const pairs = data.vertical_mappings.map(
      (m: { partner_vertical_id: number; partner_sub_vertical_id: number }) =>
        `${m.partner_vertical_id}/${m.partner_sub_vertical_id}`,
    );
    expect(pairs).toEqual(expect.arrayContaining(['10/1001', '20/2004', '30/3003', '40/4004', '50/5003']));
  });

  it("mappings: the query parent_account_id naming the token's own parent returns the same mapping", async () => {
    const h = createHarness();
    const partner = await h.client();
    const plain = expectOk(await partner.get(MAPPINGS));
    const asked = expectOk(await partner.get(`${MAPPINGS}?parent_account_id=${DEMO.parent}`));
    expect(asked).toEqual(plain);
  });

  it('mappings: an unseeded partner gets an empty vertical_mappings array', async () => {
    const h = createHarness();
    const partner = await h.client(UNSEEDED);
    const data = expectOk(await partner.get(MAPPINGS));
    expect(data).toEqual({ vertical_mappings: [] });
  });
});

describe('endpoint 2: register response and pages', () => {
  it('register: the response is {account_id, pages[{surface, page_id, layout_id, page_identifier}]} with UUID-like IDs', async () => {
    const h = createHarness();
    const partner = await h.client();
    const data = expectOk(await partner.register());
    expect(Object.keys(data).sort()).toEqual(['account_id', 'pages']);
    expect(typeof data.account_id).toBe('string');
    expect(data.account_id.length).toBeGreaterThan(0);
    expect(data.pages.length).toBeGreaterThan(0);
    for (const page of data.pages) {
      expect(Object.keys(page).sort()).toEqual(['layout_id', 'page_id', 'page_identifier', 'surface']);
      expect(page.page_id).toMatch(UUID);
      expect(page.layout_id).toMatch(UUID);
      expect(typeof page.page_identifier).toBe('string');
      expect(page.page_identifier.length).toBeGreaterThan(0);
    }
    const ids = data.pages.flatMap((p: { page_id: string; layout_id: string }) => [p.page_id, p.layout_id]);
    expect(new Set(ids).size).toBe(ids.length);
    // Time-ordered (docs/where-the-spec-is-silent.md): RFC 9562 version 7, variant 10,
    // the first 48 bits the creation time in Unix ms.
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
      expect(Math.abs(ms - Date.now())).toBeLessThan(60_000);
    }
    expect(await accountsOf(h)).toHaveLength(1);
  });

  it('register: without pages, the default pages are created (confirmation/Overlay, tracking/Embedded)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const data = expectOk(await partner.register());
    expect(data.pages.map((p: { surface: string }) => p.surface).sort()).toEqual([
      'confirmation',
      'tracking',
    ]);
    const detail = await accountDetail(h, data.account_id);
    const layoutOf = (surface: string) => {
      const page = data.pages.find((p: { surface: string }) => p.surface === surface);
      return detail.layouts.find((l: { layout_id: string }) => l.layout_id === page.layout_id);
    };
    expect(layoutOf('confirmation').layout_type).toBe('Overlay');
    expect(layoutOf('tracking').layout_type).toBe('Embedded');
    expect(detail.pages).toHaveLength(2);
  });

  it('register: pages passed override the defaults', async () => {
    const h = createHarness();
    const partner = await h.client();
    const pages = [
      { surface: 'returns', layout_type: 'Embedded' },
      { surface: 'confirmation', layout_type: 'Embedded' },
      { surface: 'tracking', layout_type: 'Overlay' },
    ];
    const data = expectOk(await partner.register({ pages }));
    expect(data.pages.map((p: { surface: string }) => p.surface).sort()).toEqual([
      'confirmation',
      'returns',
      'tracking',
    ]);
    const detail = await accountDetail(h, data.account_id);
    for (const wanted of pages) {
      const page = data.pages.find((p: { surface: string }) => p.surface === wanted.surface);
      const layout = detail.layouts.find((l: { layout_id: string }) => l.layout_id === page.layout_id);
      expect(layout.layout_type).toBe(wanted.layout_type);
      expect(layout.page_id).toBe(page.page_id);
    }
  });

  it('register: pages [] creates an account with no pages', async () => {
    const h = createHarness();
    const partner = await h.client();
    const data = expectOk(await partner.register({ pages: [] }));
    expect(data.pages ?? []).toEqual([]);
    const detail = await accountDetail(h, data.account_id);
    expect(detail.pages).toEqual([]);
    expect(detail.layouts).toEqual([]);
    expect(detail.variants).toEqual([]);
  });

  it('register: an invalid pages[].surface is 400 naming the allowed values', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.register({ pages: [{ surface: 'checkout', layout_type: 'Overlay' }] });
    const issue = expectFieldError(res, 'pages[0].surface');
    for (const allowed of ['confirmation', 'tracking', 'returns']) expect(issue.message).toContain(allowed);
    expect(await accountsOf(h)).toEqual([]);
  });

  it('register: an invalid pages[].layout_type is 400 naming the allowed values', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.register({ pages: [{ surface: 'tracking', layout_type: 'Popup' }] });
    const issue = expectFieldError(res, 'pages[0].layout_type');
    for (const allowed of ['Overlay', 'Embedded']) expect(issue.message).toContain(allowed);
    expect(await accountsOf(h)).toEqual([]);
  });

  it('register: a duplicate surface in pages is 400', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.register({
      pages: [
        { surface: 'tracking', layout_type: 'Overlay' },
        { surface: 'tracking', layout_type: 'Embedded' },
      ],
    });
    const issue = expectFieldError(res, 'pages[1].surface');
    expect(issue.message).toContain('duplicate');
    expect(await accountsOf(h)).toEqual([]);
  });
});

describe('endpoint 2: register validation, one field at a time', () => {
  const required = [
    'brand',
    'vertical_id',
    'sub_vertical_id',
    'country_code',
    'platform_parent_account_id',
    'store_identifier',
    'external_account_id',
  ] as const;

  for (const field of required) {
    it(`register: a missing ${field} is 400 naming ${field}`, async () => {
      const h = createHarness();
      const res = await postRegister(h, without(field));
      const issue = expectFieldError(res, field);
      expect(issue.message).toBe('is required');
      expect(await accountsOf(h)).toEqual([]);
    });
  }

  const wrongTypes: [keyof RegisterBody, unknown][] = [
    ['brand', 42],
    ['vertical_id', '10'],
    ['sub_vertical_id', 1001.5],
    ['country_code', 840],
    ['external_account_id', { id: 'm-1' }],
    ['store_identifier', ['https://acme.example.com']],
    ['pages', { surface: 'tracking', layout_type: 'Overlay' }],
  ];
  for (const [field, value] of wrongTypes) {
    it(`register: ${field} of the wrong type (${JSON.stringify(value)}) is 400 naming ${field}`, async () => {
      const h = createHarness();
      const res = await postRegister(h, { ...registerBody(), [field]: value });
      expectFieldError(res, field);
      expect(await accountsOf(h)).toEqual([]);
    });
  }

  for (const code of ['us', 'USA', 'U1', '']) {
    it(`register: country_code "${code}" (not 2 upper-case letters) is 400 naming country_code`, async () => {
      const h = createHarness();
      const partner = await h.client();
      expectFieldError(await partner.register({ country_code: code }), 'country_code');
      expect(await accountsOf(h)).toEqual([]);
    });
  }

  it('register: country_code "GB" is accepted', async () => {
    const h = createHarness();
    const partner = await h.client();
    const data = expectOk(await partner.register({ country_code: 'GB' }));
    expect((await accountDetail(h, data.account_id)).account.country_code).toBe('GB');
  });
});

describe('endpoint 2: store_identifier', () => {
  const rejected: [string, string][] = [
    ['a bare host', 'acme.example.com'],
    ['a scheme-relative URL (no scheme)', '//acme.example.com'],
    ['an ftp URL', 'ftp://acme.example.com'],
    ['too short (2 characters)', 'ab'],
    [
      'too long (401 characters)',
      `https://acme.example.com/${'a'.repeat(401 - 'https://acme.example.com/'.length)}`,
    ],
  ];
  for (const [label, value] of rejected) {
    it(`register: store_identifier ${label} is 400 naming store_identifier`, async () => {
      if (label.startsWith('too long')) expect(value).toHaveLength(401);
      const h = createHarness();
      const partner = await h.client();
      expectFieldError(await partner.register({ store_identifier: value }), 'store_identifier');
      expect(await accountsOf(h)).toEqual([]);
    });
  }

  it('register: a bare-host store_identifier error says the scheme is missing', async () => {
    const h = createHarness();
    const partner = await h.client();
    const issue = expectFieldError(
      await partner.register({ store_identifier: 'acme.example.com' }),
      'store_identifier',
    );
    expect(issue.message).toContain('scheme');
  });

  const accepted: [string, string][] = [
    ['an https URL', 'https://acme.example.com'],
    ['a URL with a user name and password (kept as sent)', 'https://user:pw@acme.example.com/shop'],
    ['an http URL', 'http://acme.example.com/shop'],
    [
      'exactly 400 characters',
      `https://acme.example.com/${'a'.repeat(400 - 'https://acme.example.com/'.length)}`,
    ],
  ];
  for (const [label, value] of accepted) {
    it(`register: store_identifier ${label} is accepted and stored`, async () => {
      if (label === 'exactly 400 characters') expect(value).toHaveLength(400);
      const h = createHarness();
      const partner = await h.client();
      const data = expectOk(await partner.register({ store_identifier: value }));
      expect((await accountDetail(h, data.account_id)).account.store_identifier).toBe(value);
    });
  }
});

describe('endpoint 2: body fields against the parent and the contract', () => {
  it('register: platform_parent_account_id different from the header is 400 naming it', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.register({ platform_parent_account_id: UNSEEDED.parent });
    const issue = expectFieldError(res, 'platform_parent_account_id');
    expect(issue.message).toContain(DEMO.parent);
    expect(await accountsOf(h)).toEqual([]);
    expect(await accountsOf(h, UNSEEDED.parent)).toEqual([]);
  });

  it('register: an unknown field is 400 naming it', async () => {
    const h = createHarness();
    const res = await postRegister(h, { ...registerBody(), nickname: 'Acme' });
    const issue = expectFieldError(res, 'nickname');
    expect(issue.message).toBe('unknown field');
    expect(await accountsOf(h)).toEqual([]);
  });

  it('register: a camelCase field (externalAccountId) is 400 with the hint "external_account_id"', async () => {
    const h = createHarness();
    const { external_account_id, ...rest } = registerBody();
    const res = await postRegister(h, { ...rest, externalAccountId: external_account_id });
    const issue = expectFieldError(res, 'externalAccountId');
    expect(issue.message).toContain('"external_account_id"');
    expect(await accountsOf(h)).toEqual([]);
  });
});

describe('endpoint 2: taxonomy translation', () => {
  it('register: an unmapped vertical pair is 400 vertical_not_mapped and creates nothing', async () => {
    const h = createHarness();
    const partner = await h.client();
    // 10/2001 mixes a vertical with another vertical's sub-vertical: not a mapped pair
    const res = await partner.register({ vertical_id: 10, sub_vertical_id: 2001 });
    const body = expectErrorEnvelope(res, 400, 'vertical_not_mapped');
    expect(body.message).toBe(registerUnmappedMessage(10, 2001));
    expect(body.error.details).toEqual({ vertical_id: 10, sub_vertical_id: 2001 });
    expect(await accountsOf(h)).toEqual([]);
  });

  it('register: an unknown vertical is 400 vertical_not_mapped', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.register({ vertical_id: 99, sub_vertical_id: 9901 });
    const body = expectErrorEnvelope(res, 400, 'vertical_not_mapped');
    expect(body.message).toBe(registerUnmappedMessage(99, 9901));
    expect(await accountsOf(h)).toEqual([]);
  });

  it('register: a partner whose mapping is not seeded gets 400 vertical_mapping_not_seeded', async () => {
    const h = createHarness();
    const partner = await h.client(UNSEEDED);
    const res = await partner.register();
    const body = expectErrorEnvelope(res, 400, 'vertical_mapping_not_seeded');
    expect(body.message).toBe(mappingNotSeededMessage(UNSEEDED.parent));
    expect(await accountsOf(h, UNSEEDED.parent)).toEqual([]);
  });

  it('register: X-Sandbox-Scenario: unseeded-mappings on the demo partner is 400 vertical_mapping_not_seeded', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.register({}, { 'X-Sandbox-Scenario': 'unseeded-mappings' });
    const body = expectErrorEnvelope(res, 400, 'vertical_mapping_not_seeded');
    expect(body.message).toBe(mappingNotSeededMessage(DEMO.parent));
    expect(res.headers.get('x-sandbox-scenario-applied')).toBe('unseeded-mappings');
    expect(await accountsOf(h)).toEqual([]);
    // the scenario does not touch the real mapping
    expect(expectOk(await partner.get(MAPPINGS)).vertical_mappings).toHaveLength(18);
  });
});

describe('endpoint 2: idempotent on external_account_id', () => {
  it('register: the same external_account_id again matches the same account and pages', async () => {
    const h = createHarness();
    const partner = await h.client();
    const body = registerBody();
    const first = expectOk(await partner.register(body));
    const again = await partner.register(body);
    const second = expectOk(again);
    expect(second.account_id).toBe(first.account_id);
    expect(second.pages).toEqual(first.pages);
    expect(again.headers.get('x-sandbox-warning')).toBeNull();
    const accounts = await accountsOf(h);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.external_account_id).toBe(body.external_account_id);
  });

  it('register: a match with a different brand keeps the stored brand and warns in X-Sandbox-Warning', async () => {
    const h = createHarness();
    const partner = await h.client();
    const body = registerBody({ brand: 'Acme Outfitters' });
    const first = expectOk(await partner.register(body));
    const res = await partner.register({ ...body, brand: 'Acme Rebranded' });
    const second = expectOk(res);
    expect(second.account_id).toBe(first.account_id);
    expect(second.pages).toEqual(first.pages);
    const warning = res.headers.get('x-sandbox-warning');
    expect(warning).not.toBeNull();
    expect(warning).toContain('brand');
    expect((await accountDetail(h, first.account_id)).account.brand).toBe('Acme Outfitters');
    expect(await accountsOf(h)).toHaveLength(1);
  });

  it('register: different external_account_ids create different accounts', async () => {
    const h = createHarness();
    const partner = await h.client();
    const a = expectOk(await partner.register({ external_account_id: 'merchant-a' }));
    const b = expectOk(await partner.register({ external_account_id: 'merchant-b' }));
    expect(a.account_id).not.toBe(b.account_id);
    expect(await accountsOf(h)).toHaveLength(2);
  });

  it('register: no Idempotency-Key is needed', async () => {
    const h = createHarness();
    const token = await h.token();
    const res = await h.request('POST', REGISTER, {
      body: registerBody(),
      headers: { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent },
    });
    const data = expectOk(res);
    expect(await accountsOf(h)).toEqual([expect.objectContaining({ account_id: data.account_id })]);
  });
});

describe('endpoint 2: what registration creates', () => {
  it('register: one enabled variant per page, so the status is active with one variant per page', async () => {
    const h = createHarness();
    const partner = await h.client();
    const pages = [
      { surface: 'confirmation', layout_type: 'Overlay' },
      { surface: 'tracking', layout_type: 'Embedded' },
      { surface: 'returns', layout_type: 'Overlay' },
    ];
    const data = expectOk(await partner.register({ pages }));
    const status = expectOk(await partner.get(STATUS(data.account_id)));
    expect(status.account_id).toBe(data.account_id);
    expect(status.status).toBe('active');
    expect(status.variants).toHaveLength(3);
    const variantPages = status.variants.map((v: { page_id: string }) => v.page_id).sort();
    expect(variantPages).toEqual(data.pages.map((p: { page_id: string }) => p.page_id).sort());
    for (const v of status.variants) expect(v.status).toBe('active');
  });

  it('register: a fresh account lists the preset blocks (4002, 4003, 5003 Block) and a string content_hash', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const data = expectOk(await partner.get(CONTROLS(accountId)));
    expect(data.account_id).toBe(accountId);
    expect(typeof data.marketplace_controls_list.content_hash).toBe('string');
    expect(data.marketplace_controls_list.content_hash.length).toBeGreaterThan(0);
    expect(data.marketplace_controls_list.marketplace_controls_list_id).toMatch(UUID);
    expect(data.marketplace_controls_list.domains).toEqual([]);
    const blocked = data.translated_verticals
      .filter((t: { policy: string }) => t.policy === 'Block')
      .map((t: { vertical_id: number }) => t.vertical_id)
      .sort();
    expect(blocked).toEqual([4002, 4003, 5003]);
    for (const id of [4002, 4003, 5003]) {
      expect(data.translated_verticals).toContainEqual({
        vertical_id: id,
        policy: 'Block',
        position_1_policy: 'Block',
      });
    }
    // internal taxonomy names never leave through the translated view
    expect(JSON.stringify(data)).not.toContain('Gambling');
  });
});

/** Row counts of every table a register could write (the journal aside). */
function rowCounts(h: Harness) {
  const count = (table: string) =>
    (h.sandbox.store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return Object.fromEntries(
    ['accounts', 'pages', 'layouts', 'variants', 'controls_lists', 'idempotency_keys'].map((t) => [
      t,
      count(t),
    ]),
  );
}

describe('endpoint 2: dry_run=true (spec §1.5)', () => {
  const DRY = `${REGISTER}?dry_run=true`;

  it('register dry run: a new external_account_id answers what would be created and writes nothing', async () => {
    const h = createHarness();
    const partner = await h.client();
    const before = rowCounts(h);
    const body = registerBody();
    const res = await partner.call('POST', DRY, { body });
    const data = expectOk(res);
    expect(res.body.dry_run).toBe(true);
    expect(Object.keys(res.body).sort()).toEqual([
      'data',
      'dry_run',
      'error',
      'message',
      'request_id',
      'status',
    ]);
    // only the spec's fields, IDs in the real formats (generated for this answer only)
    expect(Object.keys(data).sort()).toEqual(['account_id', 'pages']);
    expect(data.account_id).toMatch(/^acct_[0-9a-z]{20}$/);
    expect(data.pages.map((p: { surface: string }) => p.surface)).toEqual(['confirmation', 'tracking']);
    for (const page of data.pages) {
      expect(Object.keys(page).sort()).toEqual(['layout_id', 'page_id', 'page_identifier', 'surface']);
      expect(page.page_id).toMatch(UUID);
      expect(page.layout_id).toMatch(UUID);
      expect(page.page_identifier.startsWith(`${page.surface}_`)).toBe(true);
    }
    // the layout types it would create are in the warning (the answer has no field for them)
    expect(res.headers.get('x-sandbox-warning')).toBe(
      dryRunRegisterWarning([
        { surface: 'confirmation', layout_type: 'Overlay' },
        { surface: 'tracking', layout_type: 'Embedded' },
      ]),
    );
    expect(rowCounts(h)).toEqual(before);
    expect(await accountsOf(h)).toEqual([]);
    expect((await h.request('GET', `/__sandbox/accounts/${data.account_id}`)).status).toBe(404);
    expect((await partner.get(STATUS(data.account_id))).status).toBe(404);

    // the real register afterwards creates the account, with IDs of its own
    const real = expectOk(await partner.register(body));
    expect(real.account_id).not.toBe(data.account_id);
    expect(real.pages.map((p: { surface: string }) => p.surface)).toEqual(['confirmation', 'tracking']);
    const ids = new Set(
      data.pages.flatMap((p: { page_id: string; layout_id: string }) => [p.page_id, p.layout_id]),
    );
    for (const p of real.pages) {
      expect(ids.has(p.page_id)).toBe(false);
      expect(ids.has(p.layout_id)).toBe(false);
    }
    expect(await accountsOf(h)).toEqual([
      expect.objectContaining({ account_id: real.account_id, external_account_id: body.external_account_id }),
    ]);
  });

  it('register dry run: pages passed show those surfaces (and layout types in the warning); pages [] shows none', async () => {
    const h = createHarness();
    const partner = await h.client();
    const pages = [
      { surface: 'returns', layout_type: 'Embedded' },
      { surface: 'confirmation', layout_type: 'Overlay' },
    ];
    const res = await partner.call('POST', DRY, { body: registerBody({ pages }) });
    const data = expectOk(res);
    expect(data.pages.map((p: { surface: string }) => p.surface)).toEqual(['returns', 'confirmation']);
    expect(res.headers.get('x-sandbox-warning')).toBe(dryRunRegisterWarning(pages));
    const none = await partner.call('POST', DRY, { body: registerBody({ pages: [] }) });
    expect(expectOk(none).pages).toEqual([]);
    expect(none.headers.get('x-sandbox-warning')).toBe(dryRunRegisterWarning([]));
    expect(none.headers.get('x-sandbox-warning')).toContain('would create no pages');
    expect(await accountsOf(h)).toEqual([]);
  });

  it('register dry run: an existing external_account_id answers the matched account as it is, unchanged', async () => {
    const h = createHarness();
    const partner = await h.client();
    const body = registerBody();
    const real = expectOk(await partner.register(body));
    const before = rowCounts(h);
    const detail = await accountDetail(h, real.account_id);
    const res = await partner.call('POST', DRY, { body: { ...body, brand: 'Renamed' } });
    expect(res.body.dry_run).toBe(true);
    expect(expectOk(res)).toEqual(real);
    expect(res.headers.get('x-sandbox-warning')).toContain('brand');
    expect(rowCounts(h)).toEqual(before);
    expect(await accountDetail(h, real.account_id)).toEqual(detail);
  });

  it('register dry run: validates fully (mapping, URL, headers) and the errors carry dry_run: true', async () => {
    const h = createHarness();
    const partner = await h.client();
    const unmapped = await partner.call('POST', DRY, {
      body: registerBody({ vertical_id: 10, sub_vertical_id: 2001 }),
    });
    const e1 = expectErrorEnvelope(unmapped, 400, 'vertical_not_mapped');
    expect(e1.message).toBe(registerUnmappedMessage(10, 2001));
    expect(e1.dry_run).toBe(true);
    const url = await partner.call('POST', DRY, {
      body: registerBody({ store_identifier: 'acme.example.com' }),
    });
    expect(expectFieldError(url, 'store_identifier').message).toContain('scheme');
    expect(url.body.dry_run).toBe(true);
    const noParent = await h.request('POST', DRY, {
      body: registerBody(),
      headers: { Authorization: `Bearer ${partner.token}` },
    });
    expect(expectErrorEnvelope(noParent, 422, 'missing_parent_account_header').dry_run).toBe(true);
    const unseeded = await (await h.client(UNSEEDED)).call('POST', DRY, {
      body: registerBody({ platform_parent_account_id: UNSEEDED.parent }),
    });
    expect(expectErrorEnvelope(unseeded, 400, 'vertical_mapping_not_seeded').message).toBe(
      mappingNotSeededMessage(UNSEEDED.parent),
    );
    expect(await accountsOf(h)).toEqual([]);
    expect(await accountsOf(h, UNSEEDED.parent)).toEqual([]);
  });

  it('register dry run: the auth-propagation drill is not taken (nothing is created to propagate)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.call('POST', DRY, {
      body: registerBody(),
      headers: { 'X-Sandbox-Scenario': 'auth-propagation=60' },
    });
    expectOk(res);
    expect(res.headers.get('x-sandbox-scenario-applied')).toBeNull();
    expect(await accountsOf(h)).toEqual([]);
  });

  it('register: dry_run=false registers for real, without dry_run in the envelope', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.call('POST', `${REGISTER}?dry_run=false`, { body: registerBody() });
    const data = expectOk(res);
    expect(res.body.dry_run).toBeUndefined();
    expect(await accountsOf(h)).toEqual([expect.objectContaining({ account_id: data.account_id })]);
  });

  it('register: the OpenAPI document lists the dry_run query parameter', async () => {
    const h = createHarness();
    const doc = (await h.request('GET', '/openapi.json')).body;
    const params = doc.paths[REGISTER].post.parameters as { name: string; in: string; schema: unknown }[];
    const dryRun = params.find((p) => p.name === 'dry_run');
    expect(dryRun).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'string', enum: ['true', 'false'] },
    });
  });
});

describe('endpoint 2: identifiers are compared exactly as sent (never trimmed or merged)', () => {
  it('register: " trim-1" and "trim-1  " are 400 naming external_account_id; "trim-1" is one merchant of its own', async () => {
    const h = createHarness();
    const partner = await h.client();
    for (const value of [' trim-1', 'trim-1  ', '\u00a0trim-1', 'trim-1\u3000']) {
      const issue = expectFieldError(
        await partner.register({ external_account_id: value }),
        'external_account_id',
      );
      expect(issue.message).toBe(EDGE_WHITESPACE_MESSAGE);
    }
    expect(await accountsOf(h)).toEqual([]);
    const data = expectOk(await partner.register({ external_account_id: 'trim-1' }));
    expect(await accountsOf(h)).toEqual([
      expect.objectContaining({ account_id: data.account_id, external_account_id: 'trim-1' }),
    ]);
  });

  it('register: distinct values stay distinct merchants (inner space, case, NFC vs NFD, é vs è)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const values = ['m 1', 'm1', 'M1', 'caf\u00e9', 'cafe\u0301', 'caf\u00e8'];
    const ids = [];
    for (const value of values)
      ids.push(expectOk(await partner.register({ external_account_id: value })).account_id);
    expect(new Set(ids).size).toBe(values.length);
    const stored = (await accountsOf(h)).map((a) => a.external_account_id).sort();
    expect(stored).toEqual([...values].sort());
    // and each matches itself again, exactly
    for (const [i, value] of values.entries()) {
      expect(expectOk(await partner.register({ external_account_id: value })).account_id).toBe(ids[i]);
    }
    expect(await accountsOf(h)).toHaveLength(values.length);
  });

  it('register: unpaired surrogates (\\ud800, \\udc00) are 400: stored as UTF-8 they would both be U+FFFD', async () => {
    const h = createHarness();
    const partner = await h.client();
    for (const [jsonEscape, ch] of [
      ['\\ud800', '\ud800'],
      ['\\udc00', '\udc00'],
    ] as const) {
      const raw = JSON.stringify(registerBody({ external_account_id: 'bad@@' })).replace('@@', jsonEscape);
      const res = await partner.call('POST', REGISTER, {
        raw,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(expectFieldError(res, 'external_account_id').message).toBe(unpairedSurrogateMessage(ch, 3));
    }
    // a proper pair (an emoji) is fine
    expectOk(await partner.register({ external_account_id: 'bad\ud83d\ude00' }));
    expect(await accountsOf(h)).toHaveLength(1);
  });

  const cases: [keyof RegisterBody, string, string][] = [
    ['external_account_id', 'm-1\n', controlCharacterMessage('\n', 3)],
    ['external_account_id', 'm\u0000', controlCharacterMessage('\u0000', 1)],
    ['external_account_id', '   ', BLANK_MESSAGE],
    ['brand', ' Acme', EDGE_WHITESPACE_MESSAGE],
    ['brand', 'Acme\t', controlCharacterMessage('\t', 4)],
    ['brand', '\u0085Acme', controlCharacterMessage('\u0085', 0)],
    ['platform_parent_account_id', `${DEMO.parent} `, EDGE_WHITESPACE_MESSAGE],
  ];
  for (const [field, value, message] of cases) {
    it(`register: ${field} ${JSON.stringify(value)} is 400: "${message}"`, async () => {
      const h = createHarness();
      const partner = await h.client();
      const issue = expectFieldError(await partner.register({ [field]: value }), field);
      expect(issue.message).toBe(message);
      expect(await accountsOf(h)).toEqual([]);
    });
  }

  it('register: brand is stored exactly as sent (inner spaces and Unicode kept)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const brand = 'Acme  Outfitters \u00e9\u0301 \ud83d\ude00';
    const data = expectOk(await partner.register({ brand }));
    expect((await accountDetail(h, data.account_id)).account.brand).toBe(brand);
  });
});
