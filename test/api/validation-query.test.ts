/**
 * Query parameters (docs/where-the-spec-is-silent.md): every partnership endpoint
 * rejects a parameter it does not document with a 400 naming it, as it does unknown body
 * fields, with a hint for a near miss of one it documents. Ignoring `?dryRun=true` made
 * a "dry run" write for real and clear a merchant's blocks. `dry_run` itself takes only
 * "true" or "false". Nothing is written on such a 400.
 */
import { describe, expect, it } from 'vitest';
import {
  dryRunValueMessage,
  UNKNOWN_QUERY_PARAMETER_MESSAGE,
  unknownQueryParameterHint,
} from '../../src/contract/api/messages.js';
import {
  blockedSubs,
  CONTROLS,
  createHarness,
  expectErrorEnvelope,
  expectOk,
  LAYOUT,
  MAPPINGS,
  REGISTER,
  type Reply,
  registerBody,
  STATUS,
} from '../helpers/harness.js';

/** fixtures/preset.json resolved to the demo partner's sub-verticals. */
const PRESET_BLOCKED = [4002, 4003, 5003];

async function world() {
  const h = createHarness();
  const partner = await h.client();
  const accountId = await partner.account();
  const layoutId: string = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.layouts[0]
    .layout_id;
  /** Everything a call could change: the account's internal view and the partner's accounts. */
  const state = async () => ({
    account: (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body,
    partners: (await h.request('GET', '/__sandbox/partners')).body,
  });
  /** One call of each endpoint with the given query string. */
  const endpoints: Record<string, (query: string, key?: string) => Promise<Reply>> = {
    'GET vertical-mappings': (q) => partner.get(`${MAPPINGS}?${q}`),
    'POST register': (q) => partner.call('POST', `${REGISTER}?${q}`, { body: registerBody() }),
    'GET controls': (q) => partner.get(`${CONTROLS(accountId)}?${q}`),
    'PUT controls': (q, key) =>
      partner.put(
        `${CONTROLS(accountId)}?${q}`,
        { blockedVerticals: [], domains: [], contentHash: null },
        key ? { 'Idempotency-Key': key } : {},
      ),
    'GET status': (q) => partner.get(`${STATUS(accountId)}?${q}`),
    'PUT status': (q, key) =>
      partner.put(`${STATUS(accountId)}?${q}`, { status: 'paused' }, key ? { 'Idempotency-Key': key } : {}),
    'PATCH layout': (q, key) =>
      partner.patch(
        `${LAYOUT(accountId, layoutId)}?${q}`,
        { layout_type: 'Embedded' },
        key ? { 'Idempotency-Key': key } : {},
      ),
  };
  return { h, partner, accountId, state, endpoints };
}

function expectQueryIssues(res: Reply, issues: { field: string; message: string }[]) {
  const body = expectErrorEnvelope(res, 400, 'validation_error');
  expect(body.error.details.fields).toEqual(issues);
  for (const issue of issues) expect(body.message).toContain(`${issue.field}: ${issue.message}`);
}

describe('unknown query parameters are 400 naming them, on every partnership endpoint', () => {
  const names = [
    'GET vertical-mappings',
    'POST register',
    'GET controls',
    'PUT controls',
    'GET status',
    'PUT status',
    'PATCH layout',
  ];
  for (const name of names) {
    it(`${name}: ?foo=1&bar= is 400 naming query.foo and query.bar; nothing is written`, async () => {
      const { state, endpoints } = await world();
      const before = await state();
      const res = await endpoints[name]!('foo=1&bar=');
      expectQueryIssues(res, [
        { field: 'query.foo', message: UNKNOWN_QUERY_PARAMETER_MESSAGE },
        { field: 'query.bar', message: UNKNOWN_QUERY_PARAMETER_MESSAGE },
      ]);
      expect(await state()).toEqual(before);
    });
  }

  it('PUT controls ?dryRun=true: 400 with the hint "dry_run", and the blocks are not cleared', async () => {
    const { partner, accountId, state, endpoints } = await world();
    const before = await state();
    const res = await endpoints['PUT controls']!('dryRun=true', 'query-key-1');
    expectQueryIssues(res, [{ field: 'query.dryRun', message: unknownQueryParameterHint('dry_run') }]);
    expect(blockedSubs(expectOk(await partner.get(CONTROLS(accountId))))).toEqual(PRESET_BLOCKED);
    expect(await state()).toEqual(before);
    // the key was not kept by the 400: the corrected dry run with it executes
    const dry = await endpoints['PUT controls']!('dry_run=true', 'query-key-1');
    expect(expectOk(dry).translated_verticals.every((t: { policy: string }) => t.policy === 'Allow')).toBe(
      true,
    );
    expect(dry.body.dry_run).toBe(true);
    expect(dry.headers.get('idempotent-replayed')).toBeNull();
    expect(blockedSubs(expectOk(await partner.get(CONTROLS(accountId))))).toEqual(PRESET_BLOCKED);
  });

  const nearMisses = ['dryRun', 'dry-run', 'DRY_RUN', 'dryrun', 'Dry_Run', 'dry_run[]', 'dry.run'];
  for (const name of ['POST register', 'PUT controls', 'PUT status', 'PATCH layout']) {
    it(`${name}: near misses of dry_run (${nearMisses.join(', ')}) get the hint "dry_run"`, async () => {
      const { state, endpoints } = await world();
      const before = await state();
      for (const miss of nearMisses) {
        const res = await endpoints[name]!(`${encodeURIComponent(miss)}=true`);
        expectQueryIssues(res, [{ field: `query.${miss}`, message: unknownQueryParameterHint('dry_run') }]);
        expect(res.body.dry_run).toBeUndefined();
      }
      expect(await state()).toEqual(before);
    });
  }

  it('GET vertical-mappings: parentAccountId gets the hint "parent_account_id"; parent_account_id is documented', async () => {
    const { partner, endpoints } = await world();
    const res = await endpoints['GET vertical-mappings']!(`parentAccountId=${partner.parent}`);
    expectQueryIssues(res, [
      { field: 'query.parentAccountId', message: unknownQueryParameterHint('parent_account_id') },
    ]);
    expectOk(await endpoints['GET vertical-mappings']!(`parent_account_id=${partner.parent}`));
  });

  it('reads document no dry_run: GET controls and GET status ?dry_run=true are 400 unknown', async () => {
    const { endpoints } = await world();
    for (const name of ['GET controls', 'GET status']) {
      expectQueryIssues(await endpoints[name]!('dry_run=true'), [
        { field: 'query.dry_run', message: UNKNOWN_QUERY_PARAMETER_MESSAGE },
      ]);
    }
  });

  it('a very long unknown name is shown cut at 100 characters', async () => {
    const { endpoints } = await world();
    const long = 'x'.repeat(300);
    expectQueryIssues(await endpoints['GET status']!(`${long}=1`), [
      { field: `query.${'x'.repeat(100)}…`, message: UNKNOWN_QUERY_PARAMETER_MESSAGE },
    ]);
  });
});

describe('dry_run takes "true" or "false" only: anything else is 400, never read as false', () => {
  const values: [string, unknown][] = [
    ['dry_run=1', '1'],
    ['dry_run=yes', 'yes'],
    ['dry_run=True', 'True'],
    ['dry_run=TRUE', 'TRUE'],
    ['dry_run=0', '0'],
    ['dry_run=maybe', 'maybe'],
    ['dry_run=', ''],
    ['dry_run', ''],
    ['dry_run=false&dry_run=true', ['false', 'true']],
  ];
  for (const name of ['POST register', 'PUT controls', 'PUT status', 'PATCH layout']) {
    it(`${name}: ${values.map(([q]) => q).join(', ')} are each 400 naming query.dry_run; nothing is written`, async () => {
      const { state, endpoints } = await world();
      const before = await state();
      for (const [query, value] of values) {
        expectQueryIssues(await endpoints[name]!(query), [
          { field: 'query.dry_run', message: dryRunValueMessage(value) },
        ]);
      }
      expect(await state()).toEqual(before);
    });
  }

  it('the messages say what is wrong with the value', () => {
    expect(dryRunValueMessage('1')).toBe('must be "true" or "false" (did you mean "true"?)');
    expect(dryRunValueMessage('yes')).toBe('must be "true" or "false" (did you mean "true"?)');
    expect(dryRunValueMessage('no')).toBe('must be "true" or "false" (did you mean "false"?)');
    expect(dryRunValueMessage('True')).toBe(
      'must be "true" or "false", in lower case (did you mean "true"?)',
    );
    expect(dryRunValueMessage('')).toBe('must be "true" or "false" (it was sent without a value)');
    expect(dryRunValueMessage(['false', 'true'])).toBe(
      'must be "true" or "false", sent once (it was sent 2 times)',
    );
    expect(dryRunValueMessage('maybe')).toBe('must be "true" or "false"');
  });

  it('dry_run=false is a real write; dry_run=true a dry run', async () => {
    const { partner, accountId, endpoints } = await world();
    const dry = await endpoints['PUT status']!('dry_run=true');
    expect(expectOk(dry).status).toBe('paused');
    expect(dry.body.dry_run).toBe(true);
    expect(expectOk(await partner.get(STATUS(accountId))).status).toBe('active');
    const real = await endpoints['PUT status']!('dry_run=false');
    expect(expectOk(real).status).toBe('paused');
    expect(real.body.dry_run).toBeUndefined();
    expect(expectOk(await partner.get(STATUS(accountId))).status).toBe('paused');
  });
});

describe('path parameters outside their documented form (1 to 128 characters) are 400 naming them', () => {
  it('an account_id of 129 characters is 400 path.account_id on every account route, as layout_id is; 128 is a plain 404', async () => {
    const h = createHarness();
    const partner = await h.client();
    const long = 'a'.repeat(129);
    for (const path of [CONTROLS(long), STATUS(long)]) {
      const res = await partner.get(path);
      const body = expectErrorEnvelope(res, 400, 'validation_error');
      expect(body.error.details.fields, path).toEqual([
        { field: 'path.account_id', message: 'must be at most 128 characters' },
      ]);
    }
    // The parent of the mappings GET, empty: named in the sandbox's words, not the validator's.
    const empty = expectErrorEnvelope(
      await partner.get(`${MAPPINGS}?parent_account_id=`),
      400,
      'validation_error',
    );
    expect(empty.error.details.fields).toEqual([
      { field: 'query.parent_account_id', message: 'must not be empty' },
    ]);
    for (const write of [
      await partner.put(STATUS(long), { status: 'active' }),
      await partner.patch(`/v1/partnership/accounts/${long}/layouts/x`, { name: 'x' }),
    ])
      expect(expectErrorEnvelope(write, 400, 'validation_error').error.details.fields[0].field).toBe(
        'path.account_id',
      );
    expectErrorEnvelope(await partner.get(STATUS('a'.repeat(128))), 404, 'account_not_found');
    const account = await partner.account();
    const layout = expectErrorEnvelope(
      await partner.patch(`/v1/partnership/accounts/${account}/layouts/${'b'.repeat(129)}`, { name: 'x' }),
      400,
      'validation_error',
    );
    expect(layout.error.details.fields[0].field).toBe('path.layout_id');
  });
});
