/**
 * docs/where-the-spec-is-silent.md: the partnership API's answers carry exactly the fields of the spec's
 * tables (spec §1 envelope, §2.1-2.6), plus the envelope's `dry_run` (only when
 * dry_run=true was sent) and the error object the spec leaves open ({code, details?}).
 * A client decoding strictly from the spec (a Go decoder with DisallowUnknownFields)
 * must work: every answer of the seven endpoints and the token endpoint, success, dry
 * run, partial failure, replay and errors, is compared key by key with the spec here.
 */
import { describe, expect, it } from 'vitest';
import { CONTROLS, createHarness, LAYOUT, MAPPINGS, pair, type Reply, STATUS } from '../helpers/harness.js';

/** A field shape: a scalar, an array of a shape, an object, anything (the open error details), or null. */
type Shape = 'scalar' | 'any' | 'null' | Shape[] | ObjectShape;
interface ObjectShape {
  required: Record<string, Shape>;
  optional?: Record<string, Shape>;
}
const S = 'scalar' as const;
const obj = (required: Record<string, Shape>, optional: Record<string, Shape> = {}): ObjectShape => ({
  required,
  optional,
});

/** Problems of `value` against `shape`: unknown keys, missing keys, wrong kinds. [] when it conforms. */
function compare(value: unknown, shape: Shape, path = '(root)'): string[] {
  if (shape === 'any') return [];
  if (shape === 'null') return value === null ? [] : [`${path}: expected null`];
  if (shape === S) {
    return value !== null && typeof value === 'object' ? [`${path}: expected a scalar`] : [];
  }
  if (Array.isArray(shape)) {
    if (!Array.isArray(value)) return [`${path}: expected an array`];
    return value.flatMap((v, i) => compare(v, shape[0]!, `${path}[${i}]`));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return [`${path}: expected an object`];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  const all = { ...shape.optional, ...shape.required };
  for (const key of Object.keys(record)) {
    if (!(key in all)) problems.push(`${path}.${key}: not in the spec`);
    else problems.push(...compare(record[key], all[key]!, `${path}.${key}`));
  }
  for (const key of Object.keys(shape.required)) {
    if (!(key in record)) problems.push(`${path}.${key}: missing`);
  }
  return problems;
}

// ---- the spec's tables ---------------------------------------------------------------

/** Spec §2.1. */
const VerticalMapping = obj({
  partner_vertical_id: S,
  partner_vertical_name: S,
  partner_sub_vertical_id: S,
  partner_sub_vertical_name: S,
  vertical_name: S,
  created_at: S,
});
const MappingsData = obj({ vertical_mappings: [VerticalMapping] });
/** Spec §2.3 (pages: "present when pages were created or passed"). */
const RegisterData = obj(
  { account_id: S },
  { pages: [obj({ surface: S, page_id: S, layout_id: S, page_identifier: S })] },
);
/** Spec §2.4. */
const ControlsData = obj({
  account_id: S,
  marketplace_controls_list: obj({
    marketplace_controls_list_id: S,
    domains: [obj({ domain: S, policy: S })],
    content_hash: S,
  }),
  translated_verticals: [obj({ vertical_id: S, policy: S, position_1_policy: S })],
});
/** Spec §2.6. */
const StatusData = obj({ account_id: S, status: S, variants: [obj({ page_id: S, name: S, status: S })] });
/** Endpoint 7: "request and response: not shown"; fields the spec names for a layout in 2.2 and 2.3 pages[]. */
const LayoutData = obj({ layout_id: S, page_id: S, surface: S, layout_type: S });
/** The error object the spec leaves open: {code, details?}. */
const ErrorObject = obj({ code: S }, { details: 'any' });
/** docs/api.md#authentication: the token answer and RFC 6749 §5.2 errors. */
const TokenAnswer = obj({ access_token: S, token_type: S, expires_in: S, scope: S });
const OAuthError = obj({ error: S, error_description: S });

/** Spec §1: the envelope; `dry_run` exactly when dry_run=true was sent. */
function envelope(data: Shape, error: Shape, dryRun: boolean): ObjectShape {
  const fields = { status: S, error, message: S, request_id: S, data };
  return obj(dryRun ? { ...fields, dry_run: S } : fields);
}
const success = (data: Shape, dryRun = false) => envelope(data, 'null', dryRun);
const failure = (dryRun = false) => envelope('null', ErrorObject, dryRun);

function expectSpecFields(label: string, res: Reply, shape: Shape, status: number) {
  expect(res.status, `${label}: ${res.text}`).toBe(status);
  expect(compare(res.body, shape), `${label}: ${res.text}`).toEqual([]);
  if (res.body && typeof res.body === 'object' && 'dry_run' in res.body) expect(res.body.dry_run).toBe(true);
}

async function setup() {
  const h = createHarness();
  const partner = await h.client();
  const registered = await partner.register();
  const accountId: string = registered.body.data.account_id;
  const layoutId: string = registered.body.data.pages[0].layout_id;
  const controls = await partner.get(CONTROLS(accountId));
  const hash: string = controls.body.data.marketplace_controls_list.content_hash;
  return { h, partner, registered, accountId, layoutId, controls, hash };
}

const controlsBody = (contentHash: string | null) => ({
  name: 'Spec fields',
  blockedVerticals: [pair(10, 1001)],
  domains: [{ domain: 'blocked.example.com', policy: 'Block' }],
  contentHash,
});

describe('answers carry the spec fields only (docs/where-the-spec-is-silent.md)', () => {
  it('endpoints 1-7 and the token endpoint, on success', async () => {
    const { h, partner, registered, accountId, layoutId, controls, hash } = await setup();
    expectSpecFields('register', registered, success(RegisterData), 200);
    expectSpecFields(
      'register, matched',
      await partner.register({
        external_account_id: (await h.sandbox.store.accounts.byId(accountId))!.external_account_id,
      }),
      success(RegisterData),
      200,
    );
    expectSpecFields(
      'register, pages: []',
      await partner.register({ pages: [] }),
      success(RegisterData),
      200,
    );
    expectSpecFields('mappings', await partner.get(MAPPINGS), success(MappingsData), 200);
    expectSpecFields(
      'mappings, parent_account_id query',
      await partner.get(`${MAPPINGS}?parent_account_id=${partner.parent}`),
      success(MappingsData),
      200,
    );
    expectSpecFields('controls GET', controls, success(ControlsData), 200);
    expectSpecFields(
      'controls PUT',
      await partner.put(CONTROLS(accountId), controlsBody(hash)),
      success(ControlsData),
      200,
    );
    expectSpecFields('status GET', await partner.get(STATUS(accountId)), success(StatusData), 200);
    expectSpecFields(
      'status PUT',
      await partner.put(STATUS(accountId), { status: 'paused' }),
      success(StatusData),
      200,
    );
    expectSpecFields(
      'layout PATCH',
      await partner.patch(LAYOUT(accountId, layoutId), { name: 'Renamed' }),
      success(LayoutData),
      200,
    );
    const token = await h.request('POST', '/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: 'sandbox-demo-client',
        client_secret: 'sandbox-demo-secret',
      },
    });
    expectSpecFields('token', token, TokenAnswer, 200);
  });

  it('dry runs carry dry_run: true beside data, and nothing else', async () => {
    const { partner, accountId, layoutId, hash } = await setup();
    expectSpecFields(
      'controls PUT dry run',
      await partner.put(`${CONTROLS(accountId)}?dry_run=true`, controlsBody(hash)),
      success(ControlsData, true),
      200,
    );
    expectSpecFields(
      'status PUT dry run',
      await partner.put(`${STATUS(accountId)}?dry_run=true`, { status: 'paused' }),
      success(StatusData, true),
      200,
    );
    expectSpecFields(
      'layout PATCH dry run',
      await partner.patch(`${LAYOUT(accountId, layoutId)}?dry_run=true`, { layout_type: 'Embedded' }),
      success(LayoutData, true),
      200,
    );
    expectSpecFields(
      'status PUT dry_run=false',
      await partner.put(`${STATUS(accountId)}?dry_run=false`, { status: 'paused' }),
      success(StatusData),
      200,
    );
    expectSpecFields(
      'status PUT dry run, invalid body',
      await partner.put(`${STATUS(accountId)}?dry_run=true`, { status: 'sleeping' }),
      failure(true),
      400,
    );
  });

  it('a status PUT partial failure: spec variants (no variant_id, no result) and the open error object', async () => {
    const { partner, accountId } = await setup();
    const res = await partner.put(
      STATUS(accountId),
      { status: 'paused' },
      { 'X-Sandbox-Scenario': 'status-partial-failure' },
    );
    expectSpecFields('partial failure', res, envelope(StatusData, ErrorObject, false), 200);
    expect(res.body.error.code).toBe('partial_failure');
    for (const v of res.body.data.variants) {
      expect(v).not.toHaveProperty('variant_id');
      expect(v).not.toHaveProperty('result');
    }
  });

  it('an idempotent replay is the stored answer, spec fields only', async () => {
    const { partner, accountId } = await setup();
    const key = { 'Idempotency-Key': 'spec-fields-replay' };
    await partner.put(STATUS(accountId), { status: 'paused' }, key);
    const replay = await partner.put(STATUS(accountId), { status: 'paused' }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectSpecFields('replay', replay, success(StatusData), 200);
  });

  it('errors: the envelope with data null and error {code, details?}', async () => {
    const { h, partner, accountId, layoutId } = await setup();
    const bearer = { Authorization: `Bearer ${partner.token}` };
    const cases: [string, Promise<Reply>, number][] = [
      ['400 validation', partner.register({ country_code: 'usa' }), 400],
      [
        '400 malformed JSON',
        partner.call('PUT', STATUS(accountId), {
          raw: '{',
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k-malformed' },
        }),
        400,
      ],
      [
        '400 unmapped pairs',
        partner.put(CONTROLS(accountId), { ...controlsBody(null), blockedVerticals: [pair(99, 9999)] }),
        400,
      ],
      ['400 unmapped register pair', partner.register({ vertical_id: 99, sub_vertical_id: 9999 }), 400],
      [
        '400 missing Idempotency-Key',
        partner.call('PUT', STATUS(accountId), { body: { status: 'paused' } }),
        400,
      ],
      ['400 unknown scenario', partner.get(MAPPINGS, { 'X-Sandbox-Scenario': 'meteor-strike' }), 400],
      ['401 no token', h.request('GET', MAPPINGS), 401],
      ['401 token-expired', partner.get(MAPPINGS, { 'X-Sandbox-Scenario': 'token-expired' }), 401],
      ['401 propagation', partner.get(STATUS(accountId), { 'X-Sandbox-Scenario': 'auth-propagation' }), 401],
      [
        '403 parent mismatch',
        partner.put(STATUS(accountId), { status: 'paused' }, { 'X-Platform-Parent-Account-Id': 'pa_other' }),
        403,
      ],
      ['403 forbidden', partner.get(`${MAPPINGS}?parent_account_id=pa_other`), 403],
      ['404 account', partner.get(STATUS('acct_nosuchaccount0000000')), 404],
      ['404 layout', partner.patch(LAYOUT(accountId, 'no-such-layout'), { name: 'x' }), 404],
      ['404 route', partner.get('/v1/partnership/nothing-here'), 404],
      ['405', partner.patch(STATUS(accountId), { status: 'paused' }), 405],
      ['409 stale hash', partner.put(CONTROLS(accountId), controlsBody('0'.repeat(40))), 409],
      [
        '413',
        partner.call('PUT', STATUS(accountId), {
          raw: `{"status":"${'x'.repeat(300 * 1024)}"}`,
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k-413' },
        }),
        413,
      ],
      [
        '415',
        partner.call('PUT', STATUS(accountId), {
          raw: 'status=paused',
          headers: { 'Content-Type': 'text/plain', 'Idempotency-Key': 'k-415' },
        }),
        415,
      ],
      [
        '422',
        h.request('PUT', STATUS(accountId), {
          body: { status: 'paused' },
          headers: { ...bearer, 'Idempotency-Key': 'k-422' },
        }),
        422,
      ],
      ['429', partner.get(MAPPINGS, { 'X-Sandbox-Scenario': 'rate-limited' }), 429],
      ['500', partner.get(MAPPINGS, { 'X-Sandbox-Scenario': 'server-error=500' }), 500],
      [
        '503',
        partner.put(STATUS(accountId), { status: 'paused' }, { 'X-Sandbox-Scenario': 'server-error=503' }),
        503,
      ],
      ['layout 400', partner.patch(LAYOUT(accountId, layoutId), {}), 400],
    ];
    for (const [label, call, status] of cases) expectSpecFields(label, await call, failure(), status);
    expectSpecFields(
      '409 stale hash, dry run',
      await partner.put(`${CONTROLS(accountId)}?dry_run=true`, controlsBody('0'.repeat(40))),
      failure(true),
      409,
    );
  });

  it('409 idempotency_key_in_progress: the envelope, spec fields only', async () => {
    const { partner, accountId } = await setup();
    const key = { 'Idempotency-Key': 'spec-fields-in-progress' };
    const slow = partner.put(
      STATUS(accountId),
      { status: 'paused' },
      { ...key, 'X-Sandbox-Scenario': 'latency=200' },
    );
    await new Promise((r) => setTimeout(r, 50));
    const second = await partner.put(STATUS(accountId), { status: 'paused' }, key);
    expectSpecFields('409 in progress', second, failure(), 409);
    expect(second.body.error.code).toBe('idempotency_key_in_progress');
    expectSpecFields('the slow one', await slow, success(StatusData), 200);
  });

  it('the token endpoint errors are RFC 6749 §5.2 bodies: {error, error_description} only', async () => {
    const h = createHarness();
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const cases: [string, Promise<Reply>, number][] = [
      [
        'invalid_client',
        h.request('POST', '/oauth/token', {
          raw: 'grant_type=client_credentials&client_id=x&client_secret=y',
          headers: form,
        }),
        401,
      ],
      [
        'unsupported_grant_type',
        h.request('POST', '/oauth/token', { raw: 'grant_type=password', headers: form }),
        400,
      ],
      ['invalid_request', h.request('POST', '/oauth/token', { raw: '', headers: form }), 400],
    ];
    for (const [label, call, status] of cases) expectSpecFields(label, await call, OAuthError, status);
  });

  it('the checker itself: an extra or a missing field is reported', () => {
    const base = {
      account_id: 'a',
      status: 'active',
      variants: [{ page_id: 'p', name: 'n', status: 'active' }],
    };
    expect(compare(base, StatusData)).toEqual([]);
    expect(compare({ ...base, variants: [{ ...base.variants[0], variant_id: 'v' }] }, StatusData)).toEqual([
      '(root).variants[0].variant_id: not in the spec',
    ]);
    expect(compare({ account_id: 'a', status: 'x' }, StatusData)).toEqual(['(root).variants: missing']);
    expect(
      compare(
        { status: 200, error: null, message: 'ok', request_id: 'r', data: base, dry_run: true },
        success(StatusData),
      ),
    ).toEqual(['(root).dry_run: not in the spec']);
  });
});
