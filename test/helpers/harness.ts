/**
 * Test harness: a fresh in-memory sandbox and app per test, plus helpers that speak
 * HTTP through `app.request()` (no socket). Nothing here bypasses the HTTP layer except
 * `sandbox`, which tests use only to look at state after a request.
 */
import { expect } from 'vitest';
import { createApp } from '../../src/app.js';
import { ControlPlaneError } from '../../src/client/control-client.js';
import { type Config, ConfigSchema } from '../../src/core/config.js';
import { createSandbox, type Logger, type Sandbox } from '../../src/state/index.js';
import { contractOf } from './contract.js';

export const DEMO = {
  parent: 'pa_demo_platform',
  clientId: 'sandbox-demo-client',
  clientSecret: 'sandbox-demo-secret',
} as const;
export const UNSEEDED = {
  parent: 'pa_unseeded_platform',
  clientId: 'sandbox-unseeded-client',
  clientSecret: 'sandbox-unseeded-secret',
} as const;

export const CONTROLS = (accountId: string) =>
  `/v1/partnership/accounts/${accountId}/marketplacecontrolslists`;
export const STATUS = (accountId: string) => `/v1/partnership/accounts/${accountId}/status`;
export const LAYOUT = (accountId: string, layoutId: string) =>
  `/v1/partnership/accounts/${accountId}/layouts/${layoutId}`;
export const REGISTER = '/v1/accounts/register/partnership';
export const MAPPINGS = '/v1/partnership/vertical-mappings';

export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...ConfigSchema.parse({}), log: 'silent', ...overrides };
}

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are asserted field by field
  body: any;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** Raw body text, sent as is. */
  raw?: string;
}

export type Harness = ReturnType<typeof createHarness>;

export function createHarness(overrides: Partial<Config> = {}, log?: Logger) {
  const sandbox: Sandbox = createSandbox(testConfig(overrides), log);
  const app = createApp(sandbox);

  async function request(method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await app.request(path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    // Every response is checked against the served OpenAPI documents (test/helpers/contract.ts).
    if (res.status !== 0) {
      const contract = await contractOf(async (doc) => (await app.request(doc)).json() as never);
      const pathname = new URL(path, 'http://sandbox.test').pathname;
      const problems = contract.check(
        method,
        pathname,
        res.status,
        res.headers.get('content-type'),
        parsed,
        res.headers,
      );
      if (problems.length)
        throw new Error(`response does not match the OpenAPI document:\n${problems.join('\n')}`);
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  async function token(
    clientId: string = DEMO.clientId,
    clientSecret: string = DEMO.clientSecret,
  ): Promise<string> {
    const res = await request('POST', '/oauth/token', {
      raw: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    if (res.status !== 200) throw new Error(`token grant failed: ${res.status} ${res.text}`);
    return res.body.access_token;
  }

  let keyCounter = 0;
  /** A partner client bound to one token and parent; writes get a fresh Idempotency-Key unless given one. */
  async function client(creds: { parent: string; clientId: string; clientSecret: string } = DEMO) {
    const bearer = await token(creds.clientId, creds.clientSecret);
    const base = { Authorization: `Bearer ${bearer}`, 'X-Platform-Parent-Account-Id': creds.parent };
    const call = (method: string, path: string, options: RequestOptions = {}) =>
      request(method, path, { ...options, headers: { ...base, ...options.headers } });
    const write = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      call(method, path, {
        body,
        headers: { 'Idempotency-Key': `test-key-${++keyCounter}-${Date.now()}`, ...headers },
      });
    return {
      token: bearer,
      parent: creds.parent,
      headers: base,
      call,
      get: (path: string, headers: Record<string, string> = {}) => call('GET', path, { headers }),
      put: (path: string, body: unknown, headers: Record<string, string> = {}) =>
        write('PUT', path, body, headers),
      patch: (path: string, body: unknown, headers: Record<string, string> = {}) =>
        write('PATCH', path, body, headers),
      register: (body: Partial<RegisterBody> = {}, headers: Record<string, string> = {}) =>
        call('POST', REGISTER, {
          body: registerBody({ platform_parent_account_id: creds.parent, ...body }),
          headers,
        }),
      /** Registers and returns the account ID (throws unless 200). */
      async account(body: Partial<RegisterBody> = {}): Promise<string> {
        const res = await call('POST', REGISTER, {
          body: registerBody({ platform_parent_account_id: creds.parent, ...body }),
        });
        if (res.status !== 200) throw new Error(`register failed: ${res.status} ${res.text}`);
        return res.body.data.account_id;
      },
    };
  }

  return { sandbox, app, request, token, client };
}

export interface RegisterBody {
  brand: string;
  vertical_id: number;
  sub_vertical_id: number;
  country_code: string;
  platform_parent_account_id: string;
  store_identifier: string;
  external_account_id: string;
  pages?: { surface: string; layout_type: string }[];
}

let externalCounter = 0;
export function registerBody(overrides: Partial<RegisterBody> = {}): RegisterBody {
  return {
    brand: 'Acme Outfitters',
    vertical_id: 10,
    sub_vertical_id: 1001,
    country_code: 'US',
    platform_parent_account_id: DEMO.parent,
    store_identifier: 'https://acme.example.com',
    external_account_id: `merchant-${++externalCounter}-${Date.now()}`,
    ...overrides,
  };
}

/** Asserts the spec §1 envelope of an error and returns its body. */
export function expectErrorEnvelope(res: Reply, status: number, code: string) {
  const ok =
    res.status === status &&
    res.body?.status === status &&
    res.body?.error?.code === code &&
    typeof res.body?.message === 'string' &&
    res.body.message.length > 0 &&
    typeof res.body?.request_id === 'string' &&
    res.body?.data === null &&
    res.headers.get('x-request-id') === res.body?.request_id;
  if (!ok) throw new Error(`expected ${status} ${code} in the envelope, got ${res.status}: ${res.text}`);
  return res.body;
}

/** Asserts the spec §1 success envelope and returns `data`. */
export function expectOk(res: Reply) {
  const ok =
    res.status === 200 &&
    res.body?.status === 200 &&
    res.body?.error === null &&
    res.body?.message === 'ok' &&
    typeof res.body?.request_id === 'string' &&
    res.headers.get('x-request-id') === res.body?.request_id;
  if (!ok) throw new Error(`expected 200 ok in the envelope, got ${res.status}: ${res.text}`);
  return res.body.data;
}

/** The sorted partner sub-vertical IDs whose effective policy is Block, in a controls read. */
export function blockedSubs(data: {
  translated_verticals: { vertical_id: number; policy: string }[];
}): number[] {
  return data.translated_verticals
    .filter((t) => t.policy === 'Block')
    .map((t) => t.vertical_id)
    .sort((a, b) => a - b);
}

/** One blockedVerticals entry of the controls write shape. */
export const pair = (partnerVerticalId: number, partnerSubVerticalId: number) => ({
  partnerVerticalId,
  partnerSubVerticalId,
});

/** The ControlPlaneError a control-client call rejects with (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<ControlPlaneError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ControlPlaneError);
  return err as ControlPlaneError;
}
