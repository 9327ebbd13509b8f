/**
 * A shared per-endpoint scenario suite (in the manner of Hono's common.case.test.ts):
 * `scenarioCases(name, options)` registers one `it` per partnership endpoint, each
 * sending one valid request for that endpoint with `X-Sandbox-Scenario`, and checks
 * either the scenario's effect (endpoints where docs/fault-injection.md says it applies) or a
 * normal success without `X-Sandbox-Scenario-Applied` (everywhere else).
 *
 * Every request goes through HTTP: through `app.request()` of a fresh harness, or
 * through a real socket (`transport: 'server'`, for connection-reset).
 */
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectOk,
  LAYOUT,
  MAPPINGS,
  REGISTER,
  type Reply,
  type RequestOptions,
  registerBody,
  STATUS,
  testConfig,
} from './harness.js';

export const SCENARIO = 'X-Sandbox-Scenario';
export const APPLIED = 'x-sandbox-scenario-applied';

/** The seven partnership endpoints, named as in docs/fault-injection.md's "applies to". */
export const ENDPOINT_NAMES = [
  'mappings.get',
  'register',
  'controls.get',
  'controls.put',
  'status.get',
  'status.put',
  'layout.patch',
] as const;
export type EndpointName = (typeof ENDPOINT_NAMES)[number];

export type Send = (method: string, path: string, options?: RequestOptions) => Promise<Reply>;

/** One registered demo account reachable over one transport. */
export interface Ctx {
  /** Any request (control plane included), through the transport. */
  send: Send;
  /** A partnership call with the demo bearer token and parent header. */
  call: Send;
  token: string;
  accountId: string;
  layoutId: string;
  /** The external_account_id `register` below uses (fresh per context). */
  newExternalId: string;
}

let keyCounter = 0;
export const freshKey = () =>
  `suite-key-${++keyCounter}-${Date.now()}-${Math.random().toString(36).slice(2)}`;

/** Parses a fetch Response the way the harness parses `app.request()` answers. */
export async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** A `send` over a real socket. */
export function fetchSend(baseUrl: string): Send {
  return async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    return toReply(await fetch(`${baseUrl}${path}`, { method, headers, body }));
  };
}

/** Grants a demo token and registers one account with the default pages. */
export async function setupCtx(send: Send): Promise<Ctx> {
  const grant = await send('POST', '/oauth/token', {
    raw: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEMO.clientId,
      client_secret: DEMO.clientSecret,
    }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  expect(grant.status).toBe(200);
  const token: string = grant.body.access_token;
  const base = { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent };
  const call: Send = (method, path, options = {}) =>
    send(method, path, { ...options, headers: { ...base, ...options.headers } });
  const registered = expectOk(await call('POST', REGISTER, { body: registerBody() }));
  expect(registered.pages).toHaveLength(2);
  return {
    send,
    call,
    token,
    accountId: registered.account_id,
    layoutId: registered.pages[0].layout_id,
    newExternalId: `suite-merchant-${Date.now()}-${Math.random().toString(36).slice(2)}`,
  };
}

/** The whole internal view of the demo account (control plane). */
export async function probe(ctx: Ctx): Promise<unknown> {
  const account = await ctx.send('GET', `/__sandbox/accounts/${ctx.accountId}`);
  expect(account.status).toBe(200);
  return account.body;
}

export interface EndpointCase {
  name: EndpointName;
  write: boolean;
  /** One valid request for the endpoint (fresh Idempotency-Key on writes). */
  send(ctx: Ctx, headers?: Record<string, string>): Promise<Reply>;
  /** Asserts the normal success of `send` and that it did its job. */
  expectSuccess(ctx: Ctx, res: Reply): Promise<void>;
  /**
   * For writes the account probe cannot see (register): proves through HTTP that the
   * faulted request wrote nothing. Call it after the fault, once.
   */
  expectNothingWritten?(ctx: Ctx): Promise<void>;
}

const CONTROLS_BODY = {
  blockedVerticals: [{ partnerVerticalId: 10, partnerSubVerticalId: 1001 }],
  domains: [{ domain: 'Suite.Example.com' }],
  contentHash: null,
};

export const ENDPOINTS: Record<EndpointName, EndpointCase> = {
  'mappings.get': {
    name: 'mappings.get',
    write: false,
    send: (ctx, headers = {}) => ctx.call('GET', MAPPINGS, { headers }),
    async expectSuccess(_ctx, res) {
      const data = expectOk(res);
      expect(data.vertical_mappings.length).toBeGreaterThan(0);
      expect(data.vertical_mappings).toContainEqual(
        expect.objectContaining({ partner_vertical_id: 10, partner_sub_vertical_id: 1001 }),
      );
    },
  },
  register: {
    name: 'register',
    write: true,
    send: (ctx, headers = {}) =>
      ctx.call('POST', REGISTER, { body: registerBody({ external_account_id: ctx.newExternalId }), headers }),
    async expectSuccess(ctx, res) {
      const data = expectOk(res);
      expect(data.account_id).not.toBe(ctx.accountId);
      const created = await ctx.send('GET', `/__sandbox/accounts/${data.account_id}`);
      expect(created.status).toBe(200);
      expect(created.body.account.external_account_id).toBe(ctx.newExternalId);
    },
    async expectNothingWritten(ctx) {
      // Had the faulted register created the account, this would be a match (same account,
      // "fields differ" warning, brand unchanged); instead it creates it now, with this brand.
      const res = await ctx.call('POST', REGISTER, {
        body: registerBody({ external_account_id: ctx.newExternalId, brand: 'Probe Brand' }),
      });
      const data = expectOk(res);
      expect(res.headers.get('x-sandbox-warning')).toBeNull();
      const created = await ctx.send('GET', `/__sandbox/accounts/${data.account_id}`);
      expect(created.body.account).toMatchObject({
        external_account_id: ctx.newExternalId,
        brand: 'Probe Brand',
      });
    },
  },
  'controls.get': {
    name: 'controls.get',
    write: false,
    send: (ctx, headers = {}) => ctx.call('GET', CONTROLS(ctx.accountId), { headers }),
    async expectSuccess(ctx, res) {
      const data = expectOk(res);
      expect(data.account_id).toBe(ctx.accountId);
      expect(typeof data.marketplace_controls_list.content_hash).toBe('string');
    },
  },
  'controls.put': {
    name: 'controls.put',
    write: true,
    send: (ctx, headers = {}) =>
      ctx.call('PUT', CONTROLS(ctx.accountId), {
        body: CONTROLS_BODY,
        headers: { 'Idempotency-Key': freshKey(), ...headers },
      }),
    async expectSuccess(ctx, res) {
      const data = expectOk(res);
      expect(data.marketplace_controls_list.domains).toEqual([
        { domain: 'suite.example.com', policy: 'Block' },
      ]);
      const stored = await ctx.send('GET', `/__sandbox/accounts/${ctx.accountId}`);
      expect(stored.body.controls.domains.map((d: { domain: string }) => d.domain)).toEqual([
        'suite.example.com',
      ]);
      expect(stored.body.controls.content_hash).toBe(data.marketplace_controls_list.content_hash);
    },
  },
  'status.get': {
    name: 'status.get',
    write: false,
    send: (ctx, headers = {}) => ctx.call('GET', STATUS(ctx.accountId), { headers }),
    async expectSuccess(ctx, res) {
      const data = expectOk(res);
      expect(data.account_id).toBe(ctx.accountId);
      expect(data.status).toBe('active');
      expect(data.variants).toHaveLength(2);
    },
  },
  'status.put': {
    name: 'status.put',
    write: true,
    send: (ctx, headers = {}) =>
      ctx.call('PUT', STATUS(ctx.accountId), {
        body: { status: 'paused' },
        headers: { 'Idempotency-Key': freshKey(), ...headers },
      }),
    async expectSuccess(ctx, res) {
      const data = expectOk(res);
      expect(data.status).toBe('paused');
      const stored = await ctx.send('GET', `/__sandbox/accounts/${ctx.accountId}`);
      expect(stored.body.variants.map((v: { enabled: boolean }) => v.enabled)).toEqual([false, false]);
    },
  },
  'layout.patch': {
    name: 'layout.patch',
    write: true,
    send: (ctx, headers = {}) =>
      ctx.call('PATCH', LAYOUT(ctx.accountId, ctx.layoutId), {
        body: { name: 'Suite layout' },
        headers: { 'Idempotency-Key': freshKey(), ...headers },
      }),
    async expectSuccess(ctx, res) {
      const data = expectOk(res);
      expect(data).toMatchObject({ layout_id: ctx.layoutId, layout_type: expect.any(String) });
      const stored = await ctx.send('GET', `/__sandbox/accounts/${ctx.accountId}`);
      const layout = stored.body.layouts.find((l: { layout_id: string }) => l.layout_id === ctx.layoutId);
      expect(layout.name).toBe('Suite layout');
    },
  },
};

/** What an effect check gets: the answer, its wall time, and the state before and after. */
export interface Outcome {
  ctx: Ctx;
  endpoint: EndpointCase;
  /** Undefined when the request itself rejected (connection-reset). */
  res: Reply | undefined;
  error: unknown;
  ms: number;
  before: unknown;
  after: unknown;
}

export type EffectCheck = (o: Outcome) => void | Promise<void>;

export interface ScenarioCaseOptions {
  /** The `X-Sandbox-Scenario` value, e.g. `server-error=502` (default: the scenario name). */
  header?: string;
  /** The endpoints the scenario applies to (docs/fault-injection.md), each with its effect check. */
  applies: Partial<Record<EndpointName, EffectCheck>>;
  /** `server` sends through a real socket (startServer on port 0); default `app.request()`. */
  transport?: 'app' | 'server';
}

/** The same check for every endpoint (the universal faults). */
export function onEveryEndpoint(check: EffectCheck): Record<EndpointName, EffectCheck> {
  return Object.fromEntries(ENDPOINT_NAMES.map((n) => [n, check])) as Record<EndpointName, EffectCheck>;
}

/** Shared check: the state probe is unchanged and (register) nothing was created. */
export async function expectNothingApplied(o: Outcome): Promise<void> {
  expect(o.after).toEqual(o.before);
  await o.endpoint.expectNothingWritten?.(o.ctx);
}

async function withCtx<T>(transport: 'app' | 'server', run: (ctx: Ctx) => Promise<T>): Promise<T> {
  if (transport === 'app') {
    const h = createHarness();
    return run(await setupCtx(h.request));
  }
  const server = await startServer(testConfig({ port: 0 }));
  try {
    return await run(await setupCtx(fetchSend(server.url)));
  } finally {
    await server.close();
  }
}

/** Registers one test per endpoint for the scenario. */
export function scenarioCases(name: string, options: ScenarioCaseOptions): void {
  const header = options.header ?? name;
  const transport = options.transport ?? 'app';
  describe(`scenario ${header} on every endpoint`, () => {
    for (const endpointName of ENDPOINT_NAMES) {
      const endpoint = ENDPOINTS[endpointName];
      const check = options.applies[endpointName];
      const title = check
        ? `${header}: applies to ${endpointName}`
        : `${header}: does not apply to ${endpointName} (normal success, no ${APPLIED} header)`;
      it(title, async () => {
        await withCtx(transport, async (ctx) => {
          const before = await probe(ctx);
          const started = performance.now();
          let res: Reply | undefined;
          let error: unknown;
          if (transport === 'server') {
            // Over a socket a request may reject (connection-reset); through app.request() it must not.
            try {
              res = await endpoint.send(ctx, { [SCENARIO]: header });
            } catch (e) {
              error = e;
            }
          } else res = await endpoint.send(ctx, { [SCENARIO]: header });
          const ms = performance.now() - started;
          const after = await probe(ctx);
          if (check) {
            await check({ ctx, endpoint, res, error, ms, before, after });
            return;
          }
          expect(error).toBeUndefined();
          await endpoint.expectSuccess(ctx, res!);
          expect(res!.headers.get(APPLIED)).toBeNull();
          // The probe sees what a write to the account did, so "unchanged" elsewhere is a real check.
          if (endpoint.write && !endpoint.expectNothingWritten) expect(after).not.toEqual(before);
          else expect(after).toEqual(before);
        });
      });
    }
  });
}
