import { describe, expect, it } from 'vitest';
import { PATH_SEGMENT_MESSAGE } from '../../src/contract/control/control-schemas.js';
import { busyPartner, exportOf, fieldsOf, importInto } from '../helpers/bundle-helpers.js';
import { createHarness, expectErrorEnvelope, expectOk, STATUS } from '../helpers/harness.js';
import { count, newTenant } from '../helpers/tenants.js';

describe('hostile and broken bundles: 400 naming the field, nothing loaded', () => {
  async function setup() {
    const source = createHarness();
    const t = await busyPartner(source);
    const bundle = await exportOf(source, t.parent);
    const target = createHarness();
    const resident = await newTenant(target, 'resident');
    const residentAccount = await resident.client.account();
    const before = (
      target.sandbox.store.db.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number }
    ).n;
    const journalBefore = await count(target, {});
    const nothingLoaded = async () => {
      expectErrorEnvelope(
        await target.request('GET', `/__sandbox/partners/${t.parent}/bundle`),
        404,
        'not_found',
      );
      expect(
        (target.sandbox.store.db.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number }).n,
      ).toBe(before);
      expectOk(await resident.client.get(STATUS(residentAccount)));
      expect((await target.request('GET', '/__sandbox/scenarios')).body.armed).toEqual([]);
      expect(await count(target, { parent_account_id: t.parent })).toBe(0);
      expect(await count(target, {})).toBeGreaterThan(journalBefore);
    };
    const copy = () => structuredClone(bundle);
    return { t, bundle, copy, target, resident, residentAccount, nothingLoaded };
  }

  it('a wrong or missing version', async () => {
    const { copy, target, nothingLoaded } = await setup();
    for (const version of [3, 0, '2', '1', null, undefined]) {
      const b = copy();
      b.version = version;
      expect(fieldsOf(await importInto(target, b))).toEqual(['version']);
    }
    // Version 1 carries the secret in clear: this bundle's hash is not version 1.
    const v1 = copy();
    v1.version = 1;
    expect(fieldsOf(await importInto(target, v1)).sort()).toEqual([
      'partner.client_secret',
      'partner.client_secret_hash',
    ]);
    await nothingLoaded();
  });

  it('a client secret hash that is not one this sandbox makes, or a secret in clear beside it', async () => {
    const { copy, target, t, nothingLoaded } = await setup();
    const cases: [
      (p: Record<string, unknown> & { client_secret_hash: Record<string, unknown> }) => void,
      string,
    ][] = [
      [(p) => (p.client_secret_hash.algorithm = 'sha256'), 'partner.client_secret_hash.algorithm'],
      [(p) => (p.client_secret_hash.algorithm = 'scrypt-n1-r1-p1'), 'partner.client_secret_hash.algorithm'],
      [(p) => (p.client_secret_hash.salt = 'not hex'), 'partner.client_secret_hash.salt'],
      [(p) => (p.client_secret_hash.hash = 'ab'.repeat(16)), 'partner.client_secret_hash.hash'],
      [(p) => (p.client_secret_hash.hash = 'AB'.repeat(32)), 'partner.client_secret_hash.hash'],
      [(p) => (p.client_secret_hash.cost = 1), 'partner.client_secret_hash.cost'],
      [(p) => (p.client_secret_hash = undefined as never), 'partner.client_secret_hash'],
      [(p) => (p.client_secret = t.creds.clientSecret), 'partner.client_secret'],
    ];
    for (const [mutate, field] of cases) {
      const b = copy();
      mutate(b.partner);
      expect(fieldsOf(await importInto(target, b))).toEqual([field]);
    }
    await nothingLoaded();
  });

  it("another partner's IDs colliding: an account, a page, a variant or the client_id held by a resident partner", async () => {
    const { copy, target, resident, residentAccount, nothingLoaded } = await setup();
    const residentView = (await target.request('GET', `/__sandbox/accounts/${residentAccount}`)).body;
    const cases: [(b: ReturnType<typeof copy>) => void, string][] = [
      [(b) => (b.accounts[1].account_id = residentAccount), 'accounts[1].account_id'],
      [
        (b) => (b.accounts[0].pages[0].page_id = residentView.pages[0].page_id),
        'accounts[0].pages[0].page_id',
      ],
      [
        (b) => (b.accounts[0].variants[0].variant_id = residentView.variants[0].variant_id),
        'accounts[0].variants[0].variant_id',
      ],
      [(b) => (b.partner.client_id = resident.clientId), 'partner.client_id'],
      // a journal entry of the bundle's partner naming the resident's account: it would show
      // in the resident's journal filters and counts, and make the resident's bundle refused
      [(b) => (b.journal[0].account_id = residentAccount), 'journal[0].account_id'],
    ];
    for (const [mutate, field] of cases) {
      const b = copy();
      mutate(b);
      expect(fieldsOf(await importInto(target, b))).toContain(field);
    }
    await nothingLoaded();
  });

  it('inconsistent inside: a layout on a page of no account, a repeated account, an armed scenario on a foreign account, an unknown effect', async () => {
    const { copy, target, nothingLoaded } = await setup();
    const cases: [(b: ReturnType<typeof copy>) => void, string][] = [
      [(b) => (b.accounts[0].layouts[0].page_id = 'page_nowhere'), 'accounts[0].layouts[0].page_id'],
      [(b) => (b.accounts[1].account_id = b.accounts[0].account_id), 'accounts[1].account_id'],
      [(b) => (b.armed[1].account_id = 'acct_elsewhere'), 'armed[1].account_id'],
      [(b) => (b.armed[0].effects[0].name = 'meteor-strike'), 'armed[0].effects[0].name'],
      [(b) => (b.journal[0].parent_account_id = 'pa_someone_else'), 'journal[0].parent_account_id'],
      [
        (b) => (b.accounts[0].controls.blocked = [{ vertical_name: 'x', policy: 'Allow' }]),
        'accounts[0].controls.blocked[0].policy',
      ],
      [(b) => (b.partner.client_id = undefined), 'partner.client_id'],
      [(b) => (b.accounts[0].surprise = true), 'accounts[0].surprise'],
    ];
    for (const [mutate, field] of cases) {
      const b = copy();
      mutate(b);
      expect(fieldsOf(await importInto(target, b))).toContain(field);
    }
    await nothingLoaded();
  });

  it('a hostile last_status_write: a variant of another account or of none, a wrong page or name, a repeat, a bad enum, an unknown field', async () => {
    const { t, copy, target, nothingLoaded } = await setup();
    const at = (b: ReturnType<typeof copy>) =>
      b.accounts.findIndex((a: { account_id: string }) => a.account_id === t.second);
    const record = (b: ReturnType<typeof copy>) => b.accounts[at(b)].last_status_write;
    expect(record(copy()).variants.length).toBeGreaterThan(0);
    const cases: [(b: ReturnType<typeof copy>) => void, string, RegExp][] = [
      [
        (b) => (record(b).variants[0].variant_id = b.accounts[1 - at(b)].variants[0].variant_id),
        'variants[0].variant_id',
        /not a variant of this account/,
      ],
      [
        (b) => (record(b).variants[0].variant_id = 'var_nowhere'),
        'variants[0].variant_id',
        /not a variant of this account/,
      ],
      [
        (b) => (record(b).variants[0].page_id = 'page_other'),
        'variants[0].page_id',
        /the page of that variant/,
      ],
      [(b) => (record(b).variants[0].name = 'Renamed'), 'variants[0].name', /the name of that variant/],
      [
        (b) => record(b).variants.push({ ...record(b).variants[0] }),
        `variants[${record(copy()).variants.length}].variant_id`,
        /repeated/,
      ],
      [(b) => (record(b).variants[0].result = 'exploded'), 'variants[0].result', /updated|failed/],
      [(b) => (record(b).requested = 'mixed'), 'requested', /active|paused/],
      [(b) => (record(b).status = 'broken'), 'status', /mixed/],
      [(b) => (record(b).at = 'yesterday'), 'at', /./],
      [(b) => (record(b).evil = 1), 'evil', /unknown field/],
      [(b) => (b.accounts[at(b)].last_status_write = 'done'), '', /object/],
    ];
    for (const [mutate, suffix, message] of cases) {
      const b = copy();
      mutate(b);
      const field = `accounts[${at(b)}].last_status_write${suffix ? `.${suffix}` : ''}`;
      const res = await importInto(target, b);
      expect(fieldsOf(res), field).toEqual([field]);
      expect(res.body.error.details.fields[0].message, field).toMatch(message);
    }
    await nothingLoaded();
  });

  it('an identifier that is not a safe path segment: ".", "..", "a/b", "%2E%2E" anywhere an ID goes into a URL', async () => {
    const { copy, target, nothingLoaded } = await setup();
    const cases: [(b: ReturnType<typeof copy>, v: string) => void, string][] = [
      [(b, v) => (b.partner.parent_account_id = v), 'partner.parent_account_id'],
      [(b, v) => (b.partner.client_id = v), 'partner.client_id'],
      [(b, v) => (b.accounts[0].account_id = v), 'accounts[0].account_id'],
      [(b, v) => (b.accounts[0].pages[0].page_id = v), 'accounts[0].pages[0].page_id'],
      [(b, v) => (b.accounts[0].layouts[0].layout_id = v), 'accounts[0].layouts[0].layout_id'],
      [(b, v) => (b.accounts[0].variants[0].variant_id = v), 'accounts[0].variants[0].variant_id'],
      [(b, v) => (b.accounts[0].controls.list_id = v), 'accounts[0].controls.list_id'],
    ];
    for (const value of ['.', '..', 'a/b', '%2E%2E']) {
      for (const [mutate, field] of cases) {
        const b = copy();
        mutate(b, value);
        const res = await importInto(target, b);
        expect(fieldsOf(res), `${field} = ${value}`).toContain(field);
        const issue = res.body.error.details.fields.find((f: { field: string }) => f.field === field);
        expect(issue.message).toBe(PATH_SEGMENT_MESSAGE);
      }
    }
    await nothingLoaded();
  });

  it('values the API would refuse: country_code, store_identifier, domain, external_account_id, content_hash, a repeated blocked vertical', async () => {
    const { copy, target, nothingLoaded } = await setup();
    const cases: [(b: ReturnType<typeof copy>) => void, string, RegExp][] = [
      [(b) => (b.accounts[0].country_code = 'us'), 'accounts[0].country_code', /upper case|"US"/],
      [
        (b) => (b.accounts[0].store_identifier = 'javascript:alert(1)'),
        'accounts[0].store_identifier',
        /http or https/,
      ],
      [
        (b) => (b.accounts[1].controls.domains = [{ domain: 'http://x/y z', policy: 'Block' }]),
        'accounts[1].controls.domains[0].domain',
        /./,
      ],
      [
        (b) => (b.accounts[0].external_account_id = 'merchant\n42'),
        'accounts[0].external_account_id',
        /control character/,
      ],
      // a counter where adding 1 no longer changes it (2^53 - 1): every old content_hash would stay valid
      [
        (b) => (b.accounts[0].controls.version = Number.MAX_SAFE_INTEGER),
        'accounts[0].controls.version',
        /<=/,
      ],
      [
        (b) => (b.accounts[0].controls.content_hash = ''),
        'accounts[0].controls.content_hash',
        /40 lower-case hex/,
      ],
      [
        (b) => (b.accounts[0].controls.content_hash = 'A'.repeat(40)),
        'accounts[0].controls.content_hash',
        /40 lower-case hex/,
      ],
      [
        (b) =>
          (b.accounts[0].controls.blocked = [
            { vertical_name: 'Weapons > Everything', policy: 'Block', position_1_policy: 'Block' },
            { vertical_name: 'Weapons > Everything', policy: 'Block', position_1_policy: 'Block' },
          ]),
        'accounts[0].controls.blocked[1].vertical_name',
        /repeats accounts\[0\]\.controls\.blocked\[0\]\.vertical_name/,
      ],
    ];
    for (const [mutate, field, message] of cases) {
      const b = copy();
      mutate(b);
      const res = await importInto(target, b);
      expect(fieldsOf(res), field).toEqual([field]);
      expect(res.body.error.details.fields[0].message).toMatch(message);
    }
    await nothingLoaded();
  });

  it('a list ID held by another partner here, or repeated inside the bundle, is refused: two partners never read one list', async () => {
    const { copy, target, residentAccount, nothingLoaded } = await setup();
    const residentList = (await target.request('GET', `/__sandbox/accounts/${residentAccount}`)).body.controls
      .list_id;
    const foreign = copy();
    foreign.accounts[0].controls.list_id = residentList;
    const res = await importInto(target, foreign);
    expect(fieldsOf(res)).toEqual(['accounts[0].controls.list_id']);
    expect(res.body.error.details.fields[0].message).toBe('belongs to another partner in this sandbox');
    const twice = copy();
    twice.accounts[1].controls.list_id = twice.accounts[0].controls.list_id;
    expect(fieldsOf(await importInto(target, twice))).toEqual(['accounts[1].controls.list_id']);
    await nothingLoaded();
  });

  it('a stored idempotency answer that its operation could not have given: it would be replayed as is', async () => {
    const { copy, target, nothingLoaded } = await setup();
    const key = (b: ReturnType<typeof copy>, name: string) =>
      b.idempotency_keys.find((k: { key: string }) => k.key === name);
    const edit = (
      b: ReturnType<typeof copy>,
      name: string,
      change: (body: Record<string, unknown>) => void,
    ) => {
      const k = key(b, name);
      const body = JSON.parse(k.body);
      change(body);
      k.body = JSON.stringify(body);
    };
    const at = (b: ReturnType<typeof copy>, name: string) =>
      `idempotency_keys[${b.idempotency_keys.indexOf(key(b, name))}]`;
    const cases: [(b: ReturnType<typeof copy>) => void, (b: ReturnType<typeof copy>) => string][] = [
      [(b) => (key(b, 'status-key').body = 'not json'), (b) => `${at(b, 'status-key')}.body`],
      [
        (b) => edit(b, 'status-key', (e) => (e.data = { evil: 1 })),
        (b) => `${at(b, 'status-key')}.body.data.account_id`,
      ],
      [(b) => edit(b, 'status-key', (e) => (e.evil = 1)), (b) => `${at(b, 'status-key')}.body`],
      [
        (b) => edit(b, 'controls-key', (e) => ((e.data as { evil?: number }).evil = 1)),
        (b) => `${at(b, 'controls-key')}.body`,
      ],
      [(b) => edit(b, 'status-key', (e) => (e.status = 201)), (b) => `${at(b, 'status-key')}.body.status`],
      [(b) => edit(b, 'status-key', (e) => (e.dry_run = true)), (b) => `${at(b, 'status-key')}.body.dry_run`],
      [(b) => (key(b, 'status-key').dry_run = true), (b) => `${at(b, 'status-key')}.body.dry_run`],
      [
        (b) => edit(b, 'status-key', (e) => (e.error = { code: 'internal_error' })),
        (b) => `${at(b, 'status-key')}.body.error`,
      ],
      [(b) => (key(b, 'status-key').status = 201), (b) => `${at(b, 'status-key')}.status`],
      [
        (b) =>
          edit(b, 'status-key', (e) => {
            const data = e.data as { account_id: string };
            // another account of the same partner: the list's order ties on created_at, so pick by id
            data.account_id = b.accounts.find(
              (a: { account_id: string }) => a.account_id !== data.account_id,
            ).account_id;
          }),
        (b) => `${at(b, 'status-key')}.body.data.account_id`,
      ],
      [
        (b) => (key(b, 'status-key').operation = 'DELETE /__sandbox/reset'),
        (b) => `${at(b, 'status-key')}.operation`,
      ],
      [
        (b) => (key(b, 'status-key').operation = 'PUT /v1/partnership/accounts/acct_elsewhere/status'),
        (b) => `${at(b, 'status-key')}.operation`,
      ],
      [(b) => (key(b, 'status-key').fingerprint = 'x'), (b) => `${at(b, 'status-key')}.fingerprint`],
      [(b) => (key(b, 'status-key').key = 'with space'), (b) => `${at(b, 'status-key')}.key`],
    ];
    for (const [mutate, field] of cases) {
      const b = copy();
      const expected = field(b);
      mutate(b);
      const fields = fieldsOf(await importInto(target, b));
      expect(fields, expected).toContain(expected);
      expect(
        fields.every((f: string) => f.startsWith(expected.replace(/\].*/, ']'))),
        expected,
      ).toBe(true);
    }
    await nothingLoaded();
  });

  it('deeply nested, oversized, not JSON, not an object, or a foreign JSON document', async () => {
    const { copy, target, nothingLoaded } = await setup();
    const deepPartner = JSON.stringify(copy()).replace(
      /"partner":\{[^}]*\}/,
      `"partner":${'['.repeat(100_000)}"bottom"${']'.repeat(100_000)}`,
    );
    const nested = await target.request('POST', '/__sandbox/bundles', {
      raw: deepPartner,
      headers: { 'Content-Type': 'application/json' },
    });
    // Refused before parsing (more than 64 levels), naming the limit.
    expect(expectErrorEnvelope(nested, 400, 'malformed_json').error.details.max_depth).toBe(64);
    const deepRaw = `{"version":1,"kind":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const res = await target.request('POST', '/__sandbox/bundles', {
      raw: deepRaw,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(expectErrorEnvelope(res, 400, 'malformed_json').error.details.max_depth).toBe(64);

    const big = `{"version":1,"pad":"${'x'.repeat(32 * 1024 * 1024)}"}`;
    const tooBig = await target.request('POST', '/__sandbox/bundles', {
      raw: big,
      headers: { 'Content-Type': 'application/json' },
    });
    expectErrorEnvelope(tooBig, 413, 'payload_too_large');

    expectErrorEnvelope(
      await target.request('POST', '/__sandbox/bundles', {
        raw: '{"version":1,',
        headers: { 'Content-Type': 'application/json' },
      }),
      400,
      'malformed_json',
    );
    expect(fieldsOf(await importInto(target, [copy()]))).toContain('(body)');
    for (const scalar of [null, 1, 'bundle'])
      expect(fieldsOf(await importInto(target, scalar))).toEqual(['(body)']);
    const openapi = (await target.request('GET', '/__sandbox/openapi.json')).body;
    expect(fieldsOf(await importInto(target, openapi))).toEqual(['version']);
    const foreign = { ...copy(), kind: 'someone-elses-export' };
    expect(fieldsOf(await importInto(target, foreign))).toContain('kind');
    await nothingLoaded();
  });
});
