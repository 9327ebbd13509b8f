/**
 * Real OAuth 2.0 client libraries against a listening sandbox (issue 14, "keep them
 * fixed"): openid-client v6 (discovery, client_secret_basic and client_secret_post, the
 * error path) and simple-oauth2 (credentials in the header and in the body). Each grant
 * is checked three ways: the library's own result, the journal (how the library really
 * authenticated) and a partnership call made with the token.
 */
import * as oidc from 'openid-client';
import { ClientCredentials } from 'simple-oauth2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { DEMO, MAPPINGS, testConfig } from '../helpers/harness.js';

interface Partner {
  parent: string;
  clientId: string;
  clientSecret: string;
}

// A secret with the characters RFC 6749 §2.3.1 makes clients form-encode in HTTP Basic.
const RESERVED_SECRET = 'p@ss:w0rd+/=& %~';

let server: Running;
let special: Partner;

beforeAll(async () => {
  server = await startServer(testConfig({ port: 0, host: '127.0.0.1' }));
  const res = await fetch(`${server.url}/__sandbox/partners`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_secret: RESERVED_SECRET }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { parent_account_id: string; client_id: string; client_secret: string };
  expect(body.client_secret).toBe(RESERVED_SECRET);
  special = { parent: body.parent_account_id, clientId: body.client_id, clientSecret: body.client_secret };
});
afterAll(() => server?.close());

interface JournalEntry {
  request_headers: Record<string, string>;
  request_body: string | null;
  status: number;
}

/** The newest token request the sandbox received. */
async function lastTokenRequest(): Promise<JournalEntry> {
  const res = await fetch(`${server.url}/__sandbox/requests?path=/oauth/token`);
  const { requests } = (await res.json()) as { requests: JournalEntry[] };
  const entry = requests[0];
  if (!entry) throw new Error('no token request in the journal');
  return entry;
}

/** The token works: the partner's own vertical mapping answers 200 with its parent. */
async function expectTokenWorks(accessToken: string, partner: Partner) {
  const res = await fetch(`${server.url}${MAPPINGS}?parent_account_id=${partner.parent}`, {
    headers: { Authorization: `Bearer ${accessToken}`, 'X-Platform-Parent-Account-Id': partner.parent },
  });
  const body = (await res.json()) as {
    status: number;
    error: unknown;
    data: { vertical_mappings: unknown[] };
  };
  expect(res.status).toBe(200);
  expect(body.error).toBeNull();
  // the demo partner's seeded taxonomy has 18 sub-verticals; a created partner none
  expect(body.data.vertical_mappings).toHaveLength(partner === DEMO ? 18 : 0);
}

const BASIC_ONLY = { authorization: 'Basic [REDACTED]', body: 'grant_type=client_credentials' };
const inBody = (p: Partner) => ({
  authorization: undefined,
  body: `grant_type=client_credentials&client_id=${p.clientId}&client_secret=[REDACTED]`,
});

describe('openid-client v6', () => {
  const discover = (partner: Partner, auth: oidc.ClientAuth) =>
    oidc.discovery(new URL(server.url), partner.clientId, undefined, auth, {
      execute: [oidc.allowInsecureRequests],
    });

  it('discovers the token endpoint and the supported client authentication methods', async () => {
    const config = await discover(DEMO, oidc.ClientSecretBasic(DEMO.clientSecret));
    expect(config.serverMetadata()).toMatchObject({
      issuer: server.url,
      token_endpoint: `${server.url}/oauth/token`,
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      grant_types_supported: ['client_credentials'],
    });
    // RFC 8414's own path serves the same metadata
    const rfc8414 = await fetch(`${server.url}/.well-known/oauth-authorization-server`);
    expect(rfc8414.status).toBe(200);
    expect(await rfc8414.json()).toEqual(config.serverMetadata());
  });

  const methods = [
    ['client_secret_basic', oidc.ClientSecretBasic, (_: Partner) => BASIC_ONLY],
    ['client_secret_post', oidc.ClientSecretPost, inBody],
  ] as const;

  for (const [name, method, expected] of methods) {
    for (const [label, partner] of [
      ['the demo partner', () => DEMO],
      ['a partner whose secret needs form-encoding', () => special],
    ] as const) {
      it(`clientCredentialsGrant with ${name}, ${label}`, async () => {
        const p = partner();
        const config = await discover(p, method(p.clientSecret));
        const tokens = await oidc.clientCredentialsGrant(config);
        expect(tokens.token_type).toBe('bearer');
        expect(tokens.expires_in).toBe(3600);
        expect(tokens.scope).toBe('partnership');
        expect(tokens.access_token).toMatch(/^sbx_[A-Za-z0-9_-]{43}$/);

        const seen = await lastTokenRequest();
        expect(seen.status).toBe(200);
        expect(seen.request_headers.authorization).toBe(expected(p).authorization);
        expect(seen.request_body).toBe(expected(p).body);
        await expectTokenWorks(tokens.access_token, p);
      });
    }
  }

  it('a wrong secret sent in the body is a ResponseBodyError invalid_client, not a challenge', async () => {
    const config = await discover(DEMO, oidc.ClientSecretPost('not-the-secret'));
    const error = await oidc.clientCredentialsGrant(config).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(oidc.ResponseBodyError);
    const e = error as oidc.ResponseBodyError;
    expect(e.error).toBe('invalid_client');
    expect(e.status).toBe(401);
    expect(e.error_description).toBe('client authentication failed');
    expect(e.response.headers.get('www-authenticate')).toBeNull();
  });

  it('a wrong secret sent with HTTP Basic gets the Basic challenge RFC 6749 §5.2 requires', async () => {
    const config = await discover(DEMO, oidc.ClientSecretBasic('not-the-secret'));
    const error = await oidc.clientCredentialsGrant(config).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
    const e = error as oidc.WWWAuthenticateChallengeError;
    expect(e.status).toBe(401);
    expect(e.cause).toEqual([{ scheme: 'basic', parameters: { realm: 'partnership-sandbox' } }]);
    expect(await e.response.json()).toMatchObject({ error: 'invalid_client' });
  });
});

describe('simple-oauth2', () => {
  const client = (p: Partner, authorizationMethod: 'header' | 'body', secret = p.clientSecret) =>
    new ClientCredentials({
      client: { id: p.clientId, secret },
      auth: { tokenHost: server.url, tokenPath: '/oauth/token' },
      options: { authorizationMethod },
    });

  const methods = [
    ['header', (_: Partner) => BASIC_ONLY],
    ['body', inBody],
  ] as const;

  for (const [method, expected] of methods) {
    for (const [label, partner] of [
      ['the demo partner', () => DEMO],
      ['a partner whose secret needs form-encoding', () => special],
    ] as const) {
      it(`ClientCredentials with authorizationMethod '${method}', ${label}`, async () => {
        const p = partner();
        const accessToken = await client(p, method).getToken({});
        expect(accessToken.token).toMatchObject({
          token_type: 'Bearer',
          expires_in: 3600,
          scope: 'partnership',
        });
        expect(accessToken.expired()).toBe(false);
        const seen = await lastTokenRequest();
        expect(seen.status).toBe(200);
        expect(seen.request_headers.authorization).toBe(expected(p).authorization);
        expect(seen.request_body).toBe(expected(p).body);
        await expectTokenWorks(accessToken.token.access_token as string, p);
      });
    }

    it(`a wrong secret (authorizationMethod '${method}') rejects with 401 invalid_client`, async () => {
      const error = await client(DEMO, method, 'not-the-secret')
        .getToken({})
        .then(
          () => null,
          (e: unknown) => e,
        );
      const boom = error as { output?: { statusCode: number }; data?: { payload?: unknown } };
      expect(boom?.output?.statusCode).toBe(401);
      expect(boom.data?.payload).toEqual({
        error: 'invalid_client',
        error_description: 'client authentication failed',
      });
    });
  }
});
