/**
 * docs/api.md#authentication (authentication) and spec §5: the token endpoint, bearer checks on
 * partnership calls, token expiry on the sandbox clock, the parent-account header, and
 * tenant isolation between parent accounts.
 */
import { describe, expect, it } from 'vitest';
import {
  accountNotFoundMessage,
  EXPIRED_TOKEN_MESSAGE,
  INVALID_TOKEN_MESSAGE,
  MISSING_PARENT_HEADER_MESSAGE,
  MISSING_TOKEN_MESSAGE,
  PARENT_MISMATCH_MESSAGE,
} from '../../src/contract/api/messages.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  LAYOUT,
  MAPPINGS,
  REGISTER,
  type Reply,
  registerBody,
  STATUS,
  UNSEEDED,
} from '../helpers/harness.js';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

function postForm(h: Harness, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return h.request('POST', '/oauth/token', {
    raw: new URLSearchParams(fields).toString(),
    headers: { ...FORM, ...headers },
  });
}

/** RFC 6749 §5.2 error body, exactly {error, error_description}, never cached. */
function expectOAuthError(res: Reply, status: number, error: string) {
  expect(res.status).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description']);
  expect(res.body.error).toBe(error);
  expect(typeof res.body.error_description).toBe('string');
  expect(res.body.error_description.length).toBeGreaterThan(0);
  expect(res.headers.get('cache-control')).toBe('no-store');
}

/** RFC 6749 §5.1 success body. */
function expectGrant(res: Reply): string {
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    access_token: expect.any(String),
    token_type: 'Bearer',
    expires_in: 3600,
    scope: 'partnership',
  });
  expect(res.body.access_token.length).toBeGreaterThan(20);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.body.access_token;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A second parent account created on the control plane, its mapping seeded (one pair). */
async function secondPartner(h: Harness) {
  const created = await h.request('POST', '/__sandbox/partners', { body: {} });
  expect(created.status).toBe(201);
  const { parent_account_id, client_id, client_secret } = created.body;
  expect(typeof parent_account_id).toBe('string');
  expect(parent_account_id).not.toBe(DEMO.parent);
  const seeded = await h.request('PUT', `/__sandbox/partners/${parent_account_id}/vertical-mappings`, {
    body: {
      vertical_mappings: [
        {
          partner_vertical_id: 10,
          partner_vertical_name: 'Apparel',
          partner_sub_vertical_id: 1001,
          partner_sub_vertical_name: 'Dresses',
          vertical_name: 'Apparel > Womenswear',
        },
      ],
    },
  });
  expect(seeded.status).toBe(200);
  expect(seeded.body.vertical_mappings).toHaveLength(1);
  return h.client({ parent: parent_account_id, clientId: client_id, clientSecret: client_secret });
}

describe('auth: POST /oauth/token grants', () => {
  it('token: a form-encoded client_credentials grant returns a Bearer token for 3600 s', async () => {
    const h = createHarness();
    const res = await postForm(h, {
      grant_type: 'client_credentials',
      client_id: DEMO.clientId,
      client_secret: DEMO.clientSecret,
    });
    expectGrant(res);
  });

  it('token: a JSON body grant returns a Bearer token', async () => {
    const h = createHarness();
    const res = await h.request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: DEMO.clientId, client_secret: DEMO.clientSecret },
    });
    expectGrant(res);
  });

  it('token: HTTP Basic client authentication returns a Bearer token', async () => {
    const h = createHarness();
    const res = await postForm(
      h,
      { grant_type: 'client_credentials' },
      { Authorization: basic(DEMO.clientId, DEMO.clientSecret) },
    );
    expectGrant(res);
  });

  it('token: an explicit scope "partnership" is accepted', async () => {
    const h = createHarness();
    const res = await postForm(h, {
      grant_type: 'client_credentials',
      client_id: DEMO.clientId,
      client_secret: DEMO.clientSecret,
      scope: 'partnership',
    });
    expectGrant(res);
  });

  it('token: a granted token is usable on a partnership call', async () => {
    const h = createHarness();
    const token = expectGrant(
      await postForm(h, {
        grant_type: 'client_credentials',
        client_id: DEMO.clientId,
        client_secret: DEMO.clientSecret,
      }),
    );
    const data = expectOk(
      await h.request('GET', MAPPINGS, {
        headers: { ...bearer(token), 'X-Platform-Parent-Account-Id': DEMO.parent },
      }),
    );
    expect(data.vertical_mappings.length).toBeGreaterThan(0);
  });
});

describe('auth: POST /oauth/token RFC 6749 errors', () => {
  it('token: a missing grant_type is 400 invalid_request', async () => {
    const h = createHarness();
    const res = await postForm(h, { client_id: DEMO.clientId, client_secret: DEMO.clientSecret });
    expectOAuthError(res, 400, 'invalid_request');
    expect(res.body.error_description).toContain('grant_type');
  });

  it('token: another grant_type is 400 unsupported_grant_type', async () => {
    const h = createHarness();
    const res = await postForm(h, {
      grant_type: 'password',
      client_id: DEMO.clientId,
      client_secret: DEMO.clientSecret,
    });
    expectOAuthError(res, 400, 'unsupported_grant_type');
    expect(res.body.error_description).toContain('password');
  });

  it('token: a wrong client_secret in the body is 401 invalid_client without a Basic challenge (RFC 6749 §5.2: the challenge is for Basic)', async () => {
    const h = createHarness();
    const res = await postForm(h, {
      grant_type: 'client_credentials',
      client_id: DEMO.clientId,
      client_secret: 'not-the-secret',
    });
    expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('token: a wrong secret over HTTP Basic is 401 invalid_client', async () => {
    const h = createHarness();
    const res = await postForm(
      h,
      { grant_type: 'client_credentials' },
      { Authorization: basic(DEMO.clientId, 'not-the-secret') },
    );
    expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('token: an unknown client_id is 401 invalid_client', async () => {
    const h = createHarness();
    const res = await postForm(h, {
      grant_type: 'client_credentials',
      client_id: 'no-such-client',
      client_secret: DEMO.clientSecret,
    });
    expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('token: missing client credentials are 401 invalid_client with a Basic challenge (an invitation to authenticate)', async () => {
    const h = createHarness();
    const res = await postForm(h, { grant_type: 'client_credentials' });
    expectOAuthError(res, 401, 'invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('token: a scope other than "partnership" is 400 invalid_scope', async () => {
    const h = createHarness();
    const res = await postForm(h, {
      grant_type: 'client_credentials',
      client_id: DEMO.clientId,
      client_secret: DEMO.clientSecret,
      scope: 'admin',
    });
    expectOAuthError(res, 400, 'invalid_scope');
  });
});

describe('auth: bearer tokens on partnership calls', () => {
  it('auth: a call without a bearer token is 401 unauthorized with WWW-Authenticate: Bearer', async () => {
    const h = createHarness();
    const res = await h.request('GET', MAPPINGS, {
      headers: { 'X-Platform-Parent-Account-Id': DEMO.parent },
    });
    const body = expectErrorEnvelope(res, 401, 'unauthorized');
    expect(body.message).toBe(MISSING_TOKEN_MESSAGE);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  });

  it('auth: a garbage bearer token is 401 unauthorized with error="invalid_token"', async () => {
    const h = createHarness();
    const res = await h.request('GET', MAPPINGS, {
      headers: { ...bearer('sbx_not-a-real-token'), 'X-Platform-Parent-Account-Id': DEMO.parent },
    });
    const body = expectErrorEnvelope(res, 401, 'unauthorized');
    expect(body.message).toBe(INVALID_TOKEN_MESSAGE);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('auth: a write without a bearer token is 401 and registers nothing', async () => {
    const h = createHarness();
    const res = await h.request('POST', REGISTER, {
      body: registerBody(),
      headers: { 'X-Platform-Parent-Account-Id': DEMO.parent },
    });
    expectErrorEnvelope(res, 401, 'unauthorized');
    const partners = await h.request('GET', '/__sandbox/partners');
    const demo = partners.body.partners.find(
      (p: { parent_account_id: string }) => p.parent_account_id === DEMO.parent,
    );
    expect(demo.accounts).toEqual([]);
  });

  it('auth: a token expires after 3600 s of sandbox clock (401 token_expired, error="invalid_token"); a fresh token works', async () => {
    const h = createHarness();
    const partner = await h.client();
    expectOk(await partner.get(MAPPINGS));

    const advanced = await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 3601 } });
    expect(advanced.status).toBe(200);

    const expired = await partner.get(MAPPINGS);
    const body = expectErrorEnvelope(expired, 401, 'token_expired');
    expect(body.message).toBe(EXPIRED_TOKEN_MESSAGE);
    expect(expired.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const fresh = await h.client();
    expect(fresh.token).not.toBe(partner.token);
    const data = expectOk(await fresh.get(MAPPINGS));
    expect(data.vertical_mappings.length).toBeGreaterThan(0);
  });

  it('auth: a token is still valid just before its 3600 s run out', async () => {
    const h = createHarness();
    const partner = await h.client();
    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 3590 } });
    expectOk(await partner.get(MAPPINGS));
  });
});

describe('auth: tenant isolation between parent accounts', () => {
  async function demoAccountAndIntruder() {
    const h = createHarness();
    const demo = await h.client();
    const accountId = await demo.account();
    const intruder = await secondPartner(h);
    const detail = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body;
    return { h, demo, accountId, intruder, detail };
  }

  it('isolation: another parent reading the account controls gets 404 account_not_found', async () => {
    const { accountId, intruder } = await demoAccountAndIntruder();
    const body = expectErrorEnvelope(await intruder.get(CONTROLS(accountId)), 404, 'account_not_found');
    expect(body.message).toBe(accountNotFoundMessage(accountId));
  });

  it('isolation: another parent writing the account controls gets 404 and nothing changes', async () => {
    const { demo, accountId, intruder } = await demoAccountAndIntruder();
    const before = expectOk(await demo.get(CONTROLS(accountId)));
    const res = await intruder.put(CONTROLS(accountId), {
      blockedVerticals: [],
      domains: [],
      contentHash: null,
    });
    const body = expectErrorEnvelope(res, 404, 'account_not_found');
    expect(body.message).toBe(accountNotFoundMessage(accountId));
    const after = expectOk(await demo.get(CONTROLS(accountId)));
    expect(after).toEqual(before);
  });

  it('isolation: another parent reading the account status gets 404 account_not_found', async () => {
    const { accountId, intruder } = await demoAccountAndIntruder();
    const body = expectErrorEnvelope(await intruder.get(STATUS(accountId)), 404, 'account_not_found');
    expect(body.message).toBe(accountNotFoundMessage(accountId));
  });

  it('isolation: another parent writing the account status gets 404 and nothing changes', async () => {
    const { demo, accountId, intruder } = await demoAccountAndIntruder();
    const res = await intruder.put(STATUS(accountId), { status: 'paused' });
    expectErrorEnvelope(res, 404, 'account_not_found');
    const status = expectOk(await demo.get(STATUS(accountId)));
    expect(status.status).toBe('active');
    expect(status.variants.every((v: { status: string }) => v.status === 'active')).toBe(true);
  });

  it('isolation: another parent patching the account layout gets 404 and nothing changes', async () => {
    const { h, accountId, intruder, detail } = await demoAccountAndIntruder();
    const layout = detail.layouts.find((l: { layout_type: string }) => l.layout_type === 'Overlay');
    expect(layout).toBeDefined();
    const res = await intruder.patch(LAYOUT(accountId, layout.layout_id), { layout_type: 'Embedded' });
    expectErrorEnvelope(res, 404, 'account_not_found');
    const after = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body;
    expect(after.layouts).toEqual(detail.layouts);
  });

  it("isolation: another parent cannot read the demo parent's vertical mapping (403)", async () => {
    const { intruder } = await demoAccountAndIntruder();
    const own = expectOk(await intruder.get(MAPPINGS));
    expect(own.vertical_mappings).toHaveLength(1);
    const res = await intruder.get(`${MAPPINGS}?parent_account_id=${DEMO.parent}`);
    const body = expectErrorEnvelope(res, 403, 'forbidden');
    expect(body.message).not.toContain('Apparel');
    expect(res.text).not.toContain('Online Casino');
  });

  it("parent header: a write naming another parent than the token's is 403 parent_account_mismatch", async () => {
    const h = createHarness();
    const demo = await h.client();
    const res = await demo.register({}, { 'X-Platform-Parent-Account-Id': UNSEEDED.parent });
    const body = expectErrorEnvelope(res, 403, 'parent_account_mismatch');
    expect(body.message).toBe(PARENT_MISMATCH_MESSAGE);
    const partners = await h.request('GET', '/__sandbox/partners');
    for (const p of partners.body.partners) expect(p.accounts).toEqual([]);
  });

  it("parent header: a controls PUT naming another parent than the token's is 403 parent_account_mismatch", async () => {
    const h = createHarness();
    const demo = await h.client();
    const accountId = await demo.account();
    const res = await demo.put(
      CONTROLS(accountId),
      { blockedVerticals: [], domains: [], contentHash: null },
      { 'X-Platform-Parent-Account-Id': UNSEEDED.parent },
    );
    const body = expectErrorEnvelope(res, 403, 'parent_account_mismatch');
    expect(body.message).toBe(PARENT_MISMATCH_MESSAGE);
  });
});

describe('parent header: writes without X-Platform-Parent-Account-Id are 422', () => {
  async function setup() {
    const h = createHarness();
    const demo = await h.client();
    const accountId = await demo.account();
    const detail = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body;
    const headers = { ...bearer(demo.token), 'Idempotency-Key': `k-${Math.random()}` };
    return { h, demo, accountId, detail, headers };
  }

  it('parent header: register without it is 422 missing_parent_account_header', async () => {
    const h = createHarness();
    const token = await h.token();
    const res = await h.request('POST', REGISTER, { body: registerBody(), headers: bearer(token) });
    const body = expectErrorEnvelope(res, 422, 'missing_parent_account_header');
    expect(body.message).toBe(MISSING_PARENT_HEADER_MESSAGE);
    const partners = await h.request('GET', '/__sandbox/partners');
    for (const p of partners.body.partners) expect(p.accounts).toEqual([]);
  });

  it('parent header: controls PUT without it is 422 missing_parent_account_header', async () => {
    const { h, accountId, detail, headers } = await setup();
    const res = await h.request('PUT', CONTROLS(accountId), {
      body: { blockedVerticals: [], domains: [], contentHash: null },
      headers,
    });
    const body = expectErrorEnvelope(res, 422, 'missing_parent_account_header');
    expect(body.message).toBe(MISSING_PARENT_HEADER_MESSAGE);
    const after = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body;
    expect(after.controls).toEqual(detail.controls);
  });

  it('parent header: status PUT without it is 422 missing_parent_account_header', async () => {
    const { h, accountId, detail, headers } = await setup();
    const res = await h.request('PUT', STATUS(accountId), { body: { status: 'paused' }, headers });
    const body = expectErrorEnvelope(res, 422, 'missing_parent_account_header');
    expect(body.message).toBe(MISSING_PARENT_HEADER_MESSAGE);
    const after = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body;
    expect(after.variants).toEqual(detail.variants);
  });

  it('parent header: layout PATCH without it is 422 missing_parent_account_header', async () => {
    const { h, accountId, detail, headers } = await setup();
    const layoutId = detail.layouts[0].layout_id;
    const res = await h.request('PATCH', LAYOUT(accountId, layoutId), {
      body: { name: 'renamed' },
      headers,
    });
    const body = expectErrorEnvelope(res, 422, 'missing_parent_account_header');
    expect(body.message).toBe(MISSING_PARENT_HEADER_MESSAGE);
    const after = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body;
    expect(after.layouts).toEqual(detail.layouts);
  });
});
