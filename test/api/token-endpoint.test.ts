/**
 * The token endpoint beyond the happy grant (issue 14 A4, A9, A10, B13, B15; issue 18
 * item 5): scenarios apply there with RFC 6749 bodies (docs/fault-injection.md), the Basic
 * challenge only for Basic, duplicate parameters, oversized bodies, Basic credentials sent
 * without the form-encoding, and the RFC 8414 metadata OAuth libraries discover it by.
 */
import { describe, expect, it } from 'vitest';
import { BASIC_NOT_FORM_ENCODED } from '../../src/api/token-endpoint.js';
import { createHarness, DEMO, type Harness, type Reply } from '../helpers/harness.js';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const GRANT = {
  grant_type: 'client_credentials',
  client_id: DEMO.clientId,
  client_secret: DEMO.clientSecret,
};
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

function token(h: Harness, headers: Record<string, string> = {}, fields: Record<string, string> = GRANT) {
  return h.request('POST', '/oauth/token', {
    raw: new URLSearchParams(fields).toString(),
    headers: { ...FORM, ...headers },
  });
}

function expectOAuthError(res: Reply, status: number, error: string) {
  expect(res.status, res.text).toBe(status);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description']);
  expect(res.body.error).toBe(error);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.body.error_description as string;
}

async function arm(h: Harness, body: Record<string, unknown>) {
  const res = await h.request('PUT', '/__sandbox/scenarios', { body });
  expect(res.status, res.text).toBe(200);
}

describe('scenarios on POST /oauth/token (docs/fault-injection.md)', () => {
  const cases: [string, number, string][] = [
    ['server-error=500', 500, 'server_error'],
    ['server-error=502', 502, 'server_error'],
    ['server-error=503', 503, 'temporarily_unavailable'],
    ['rate-limited=3', 429, 'temporarily_unavailable'],
  ];
  for (const [scenario, status, error] of cases) {
    it(`X-Sandbox-Scenario: ${scenario} answers ${status} ${error} in an RFC 6749 body, and issues no token`, async () => {
      const h = createHarness();
      const res = await token(h, { 'X-Sandbox-Scenario': scenario });
      expect(expectOAuthError(res, status, error)).toMatch(/Nothing was applied/);
      expect(res.headers.get('x-sandbox-scenario-applied')).toBe(scenario);
      if (status === 429) expect(res.headers.get('retry-after')).toBe('3');
      expect(h.sandbox.store.db.prepare('SELECT count(*) AS n FROM tokens').get()).toEqual({ n: 0 });
    });
  }

  it('latency delays the grant, which still succeeds', async () => {
    const h = createHarness();
    const started = performance.now();
    const res = await token(h, { 'X-Sandbox-Scenario': 'latency=200' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-sandbox-scenario-applied')).toBe('latency=200');
  });

  it('an unknown scenario name is 400 invalid_request listing the known ones; no token is issued', async () => {
    const h = createHarness();
    const res = await token(h, { 'X-Sandbox-Scenario': 'no-such-drill' });
    const description = expectOAuthError(res, 400, 'invalid_request');
    expect(description).toContain('unknown scenario "no-such-drill"');
    expect(description).toContain('server-error');
  });

  it('a scenario that does not fit a token call (token-expired) is not applied', async () => {
    const h = createHarness();
    const res = await token(h, { 'X-Sandbox-Scenario': 'token-expired' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-sandbox-scenario-applied')).toBeNull();
  });

  it('armed for the parent (times 1): the next grant of that partner is 503, the one after succeeds; another partner is untouched', async () => {
    const h = createHarness();
    await arm(h, { scenario: 'server-error', value: 503, parent_account_id: DEMO.parent, times: 1 });
    const other = await h.request('POST', '/__sandbox/partners', { body: {} });
    const otherGrant = await token(
      h,
      {},
      {
        grant_type: 'client_credentials',
        client_id: other.body.client_id,
        client_secret: other.body.client_secret,
      },
    );
    expect(otherGrant.status).toBe(200);
    expectOAuthError(await token(h), 503, 'temporarily_unavailable');
    expect((await token(h)).status).toBe(200);
  });

  it('an armed fault is not used up by a caller with a wrong secret (the client is authenticated first)', async () => {
    const h = createHarness();
    await arm(h, { scenario: 'server-error', value: 500, parent_account_id: DEMO.parent, times: 1 });
    expectOAuthError(await token(h, {}, { ...GRANT, client_secret: 'wrong' }), 401, 'invalid_client');
    expectOAuthError(await token(h), 500, 'server_error');
  });

  it('the journal records a token call with the scenario applied', async () => {
    const h = createHarness();
    await token(h, { 'X-Sandbox-Scenario': 'server-error=502' });
    const journal = await h.request('GET', '/__sandbox/requests?limit=1');
    expect(journal.body.requests[0]).toMatchObject({
      path: '/oauth/token',
      status: 502,
      scenarios_applied: ['server-error=502'],
      parent_account_id: DEMO.parent,
    });
  });
});

describe('token endpoint: request shape', () => {
  it('a parameter sent twice is 400 invalid_request naming it (RFC 6749 §3.2), not invalid_client', async () => {
    const h = createHarness();
    const raw = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_id=other&client_secret=${DEMO.clientSecret}`;
    const res = await h.request('POST', '/oauth/token', { raw, headers: FORM });
    expect(expectOAuthError(res, 400, 'invalid_request')).toBe('client_id is sent more than once');
  });

  it('a JSON body naming a key twice keeps the last (as every JSON body); a form naming it twice is 400', async () => {
    const h = createHarness();
    const raw = `{"grant_type":"client_credentials","client_id":"${DEMO.clientId}","client_secret":"wrong","client_secret":"${DEMO.clientSecret}"}`;
    const res = await h.request('POST', '/oauth/token', {
      raw,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status, res.text).toBe(200);
  });

  it('an unknown parameter is ignored (RFC 6749 §3.1), also one named like a JavaScript object property', async () => {
    const h = createHarness();
    for (const extra of ['foo=bar', 'toString=x', '__proto__=x', 'constructor=x&valueOf=y']) {
      const raw = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}&${extra}`;
      const res = await h.request('POST', '/oauth/token', { raw, headers: FORM });
      expect(res.status, `${extra}: ${res.text}`).toBe(200);
      expect(res.body.token_type).toBe('Bearer');
    }
  });

  it('a media type that only begins like a form (application/x-www-form-urlencodedx) is 400 invalid_request; a form with a charset is read', async () => {
    const h = createHarness();
    const raw = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`;
    const bad = await h.request('POST', '/oauth/token', {
      raw,
      headers: { 'Content-Type': 'application/x-www-form-urlencodedx' },
    });
    expect(expectOAuthError(bad, 400, 'invalid_request')).toBe(
      'send the request as application/x-www-form-urlencoded or application/json',
    );
    const withCharset = await h.request('POST', '/oauth/token', {
      raw,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
    });
    expect(withCharset.status, withCharset.text).toBe(200);
  });

  it('a body over the size limit is 413 in an RFC 6749 body, not the partnership envelope', async () => {
    const h = createHarness({ bodyLimitBytes: 1024 });
    const res = await token(h, {}, { ...GRANT, padding: 'x'.repeat(2000) });
    expect(expectOAuthError(res, 413, 'invalid_request')).toMatch(/larger than 1024 bytes/);
  });
});

describe('HTTP Basic credentials sent without the form-encoding (issue 18 item 5)', () => {
  async function partnerWithSecret(h: Harness, secret: string) {
    const res = await h.request('POST', '/__sandbox/partners', { body: { client_secret: secret } });
    expect(res.status, res.text).toBe(201);
    return res.body.client_id as string;
  }

  it('a secret with "+" sent raw over Basic is 401, and the answer says the raw value matches and how to encode it', async () => {
    const h = createHarness();
    const id = await partnerWithSecret(h, 'a+bcdefgh');
    const res = await token(
      h,
      { Authorization: basic(id, 'a+bcdefgh') },
      { grant_type: 'client_credentials' },
    );
    const description = expectOAuthError(res, 401, 'invalid_client');
    expect(description).toBe(`client authentication failed: ${BASIC_NOT_FORM_ENCODED}`);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(res.headers.get('x-sandbox-warning')).toContain('not form-encoded');
    // Form-encoded as RFC 6749 §2.3.1 says, it works.
    const encoded = await token(
      h,
      { Authorization: basic(id, encodeURIComponent('a+bcdefgh')) },
      { grant_type: 'client_credentials' },
    );
    expect(encoded.status).toBe(200);
  });

  it('a secret with "%" sent raw is 400 malformed HTTP Basic credentials, saying the raw value matches', async () => {
    const h = createHarness();
    const id = await partnerWithSecret(h, 's3cr%t+/:x');
    const res = await token(
      h,
      { Authorization: basic(id, 's3cr%t+/:x') },
      { grant_type: 'client_credentials' },
    );
    expect(expectOAuthError(res, 400, 'invalid_request')).toBe(
      `malformed HTTP Basic credentials: ${BASIC_NOT_FORM_ENCODED}`,
    );
  });

  it('a Basic header whose value is no base64 (or none) is 400 malformed HTTP Basic credentials, not "authentication is required"', async () => {
    // The client did send HTTP Basic: telling it to send credentials "in the body or with HTTP
    // Basic" (401) sent it looking for the wrong mistake; a pair without a colon already got this 400.
    const h = createHarness();
    for (const header of ['Basic %%%', 'Basic', 'Basic    ', 'Basic a b']) {
      const res = await token(h, { Authorization: header }, { grant_type: 'client_credentials' });
      expect(expectOAuthError(res, 400, 'invalid_request'), header).toBe('malformed HTTP Basic credentials');
    }
    // A body pair beside an unreadable Basic header is refused the same way (one method, not both).
    const both = await token(h, { Authorization: 'Basic %%%' });
    expect(expectOAuthError(both, 400, 'invalid_request')).toBe('malformed HTTP Basic credentials');
  });

  it('a wrong secret over Basic gets no such hint', async () => {
    const h = createHarness();
    const id = await partnerWithSecret(h, 'a+bcdefgh');
    const res = await token(
      h,
      { Authorization: basic(id, 'nope+nope') },
      { grant_type: 'client_credentials' },
    );
    expect(expectOAuthError(res, 401, 'invalid_client')).toBe('client authentication failed');
  });
});

describe('authorization-server metadata (RFC 8414)', () => {
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    it(`${path} names the token endpoint and the client authentication methods`, async () => {
      const h = createHarness();
      const res = await h.request('GET', path);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        issuer: 'http://localhost',
        token_endpoint: 'http://localhost/oauth/token',
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        grant_types_supported: ['client_credentials'],
        response_types_supported: [],
        scopes_supported: ['partnership'],
      });
    });
  }
});
