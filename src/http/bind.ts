/**
 * The one binder: a route meets its declaration here, on each surface. The method and path
 * come from the declaration, so what the documents list is what is served; the stages the
 * declaration needs run before the handler (the partnership pipeline, src/http/pipeline.ts,
 * for a partnership operation; the declared path, query and body schemas for a control-plane
 * operation; the steps a module states for its operation: the token endpoint's, src/api/token-endpoint.ts),
 * and they produce the typed call
 * the handler receives: `{principal, account, params, query, body, dryRun, faults}` as the
 * declaration says. A handler's answers are type-checked against the declared ones.
 */
import type { OpenAPIHono, RouteConfig, RouteConfigToTypedResponse } from '@hono/zod-openapi';
import type { Context, Handler, Hono } from 'hono';
import type { z } from 'zod';
import { validationError } from '../contract/api/errors.js';
import { issuesToFields } from '../contract/api/issues.js';
import { UNKNOWN_QUERY_PARAMETER_MESSAGE } from '../contract/api/messages.js';
import type { Needs, Operation } from '../contract/api/operation.js';
import type { ControlRoute } from '../contract/control/control-routes.js';
import type { Endpoint } from '../scenarios/catalogue.js';
import type { ServiceFaults } from '../scenarios/fault-plan.js';
import type { Principal } from '../services/tokens.js';
import type { AccountRow } from '../store/accounts-table.js';
import { admit, checkOwnQuery, ownBody, ownQuery } from './control-access.js';
import { controlBody } from './control-body.js';
import { type AppEnv, known } from './env.js';
import { pipeline } from './pipeline.js';
import { readJsonText } from './read-body.js';

type PartOf<R extends RouteConfig, K extends 'params' | 'query'> = R['request'] extends {
  [P in K]: infer S extends z.ZodType;
}
  ? z.output<S>
  : Record<never, never>;
type BodySchema<R extends RouteConfig> = R['request'] extends {
  body: { content: { 'application/json': { schema: infer S extends z.ZodType } } };
}
  ? S
  : never;
type BodyOf<R extends RouteConfig> = [BodySchema<R>] extends [never] ? undefined : z.output<BodySchema<R>>;

/** What a partnership handler receives: what its declared stages produced. */
export interface PartnerCall<O extends Operation> {
  /** The partner the bearer token belongs to. */
  principal: Principal;
  /** The path's account, of this partner (where the declaration needs one). */
  account: O['needs'] extends { account: true } ? AccountRow : undefined;
  params: PartOf<O['route'], 'params'>;
  query: PartOf<O['route'], 'query'>;
  /** The JSON body, validated by the declared schema (a write's). */
  body: BodyOf<O['route']>;
  dryRun: boolean;
  /** The service-hooked scenarios the call meets (scenarios/fault-plan.ts). */
  faults: ServiceFaults;
  requestId: string;
  /** Warnings for X-Sandbox-Warning and the journal. */
  warnings: string[];
}

/** What a control-plane handler receives: its path and query parsed by the declared schemas. */
export interface ControlCall<R extends ControlRoute> {
  params: PartOf<R, 'params'>;
  query: PartOf<R, 'query'>;
  /** Reads the JSON body and parses it by the declared schema (after the handler's own 404 checks). */
  body(): Promise<BodyOf<R>>;
  /**
   * The partner a partner's access token acts for (its parent account ID), once the declared
   * access admitted it (http/control-access.ts); undefined for the operator.
   */
  partner: string | undefined;
}

/**
 * An operation whose steps its own module states, in order (the token endpoint: api/token-endpoint.ts):
 * `begin` starts the attempt's record, `steps` produce the typed call or throw, and `fail`
 * answers whatever the steps or the handler throw in the surface's own error format (RFC 6749
 * §5.2 for the token endpoint), reading what the attempt recorded.
 */
export interface StepsDeclaration<Call, Attempt> {
  route: RouteConfig;
  begin(c: Context<AppEnv>): Attempt;
  /** The call, or the answer a step gave itself (a reset connection). */
  steps(c: Context<AppEnv>, attempt: Attempt): Promise<Call | Response>;
  fail(error: unknown, c: Context<AppEnv>, attempt: Attempt): Promise<Response>;
}

type Answer<R extends RouteConfig> = RouteConfigToTypedResponse<R> | Promise<RouteConfigToTypedResponse<R>>;

/**
 * The control-plane operations that do not wait while a large import swaps a partner in
 * (state/bundles/swap-gate.ts): health, which must answer throughout, and imports and exports, which
 * take the gate themselves (state/bundles/bundle-import.ts, state/bundles/bundle-export.ts).
 */
const UNGATED: ReadonlySet<string> = new Set(['health', 'importBundle', 'exportBundle']);

/** `/a/{b}/c` as Hono writes it: `/a/:b/c`. */
const routingPath = (path: string) => path.replaceAll(/\/{(.+?)}/g, '/:$1');

/** A partnership call's typed input, from what the pipeline's stages set. */
function partnerCall(c: Context<AppEnv>, needs: Needs): PartnerCall<Operation> {
  const valid = c.req.valid as (target: string) => unknown;
  return {
    principal: known(c, 'principal'),
    account: (needs.account ? known(c, 'account') : undefined) as never,
    params: (valid.call(c.req, 'param') ?? {}) as never,
    query: (valid.call(c.req, 'query') ?? {}) as never,
    body: valid.call(c.req, 'json') as never,
    dryRun: c.get('dryRun'),
    faults: known(c, 'faults'),
    requestId: c.get('requestId'),
    warnings: c.get('warnings'),
  };
}

/** Parses one part of a control-plane request by its declared schema: a 400 naming the field. */
function parsePart(schema: z.ZodType | undefined, values: unknown, prefix: string): unknown {
  if (!schema) return {};
  const parsed = schema.safeParse(values);
  if (!parsed.success) throw validationError(issuesToFields(parsed.error.issues, prefix));
  return parsed.data;
}

/**
 * An operation that declares no query takes none: a parameter is 400 naming it, as on the
 * partnership API, never ignored (`DELETE /__sandbox/scenarios?parent_account_id=A` would
 * otherwise disarm every partner's scenarios on a shared sandbox).
 */
function refuseUndeclaredQuery(names: readonly string[]): void {
  if (names.length) {
    throw validationError(
      names.map((name) => ({ field: `query.${name}`, message: UNKNOWN_QUERY_PARAMETER_MESSAGE })),
    );
  }
}

/** The JSON body schema a control-plane operation declares, if any. */
function bodySchemaOf(route: ControlRoute): z.ZodType | undefined {
  const media = route.request?.body?.content['application/json'];
  return media && 'schema' in media ? (media.schema as z.ZodType) : undefined;
}

/** `read`: the body's text, when it was read before the call joined the swap gate. */
function controlCall(
  c: Context<AppEnv>,
  route: ControlRoute,
  read?: Promise<string>,
): ControlCall<ControlRoute> {
  const request = route.request;
  // Who may call it first: a partner's token on a route it does not open learns nothing more.
  const partner = admit(c, route, c.req.param());
  // A query parameter sent twice is an array, which a schema of one value refuses (never one silently).
  const sent = Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0] : v]);
  // Health excepted: a load balancer's probe or a wait loop may add a cache-buster, and
  // health changes nothing whatever it is sent.
  if (!request?.query && route.operationId !== 'health')
    refuseUndeclaredQuery(sent.map(([name]) => name as string));
  const bodySchema = bodySchemaOf(route);
  const values = ownQuery(route, partner, Object.fromEntries(sent));
  const query = parsePart(request?.query as z.ZodType | undefined, values, 'query') as never;
  checkOwnQuery(route, partner, query);
  return {
    query,
    params: parsePart(request?.params as z.ZodType | undefined, c.req.param(), 'path') as never,
    body: async () => {
      if (!bodySchema) throw new TypeError(`${route.operationId} declares no JSON body`);
      return ownBody(c, route, partner, await controlBody(c, bodySchema, read)) as never;
    },
    partner,
  };
}

/** Binds a partnership operation (contract/api/operations.ts): its pipeline, then its handler. */
export function bind<O extends Operation & { endpoint: Endpoint }>(
  api: OpenAPIHono<AppEnv>,
  declaration: O,
  handler: (call: PartnerCall<O>, c: Context<AppEnv>) => Answer<O['route']>,
): void;
/** Binds a control-plane operation (contract/control/control-routes*.ts): its declared schemas, then its handler. */
export function bind<R extends ControlRoute>(
  api: Hono<AppEnv>,
  declaration: R,
  handler: (call: ControlCall<R>, c: Context<AppEnv>) => Answer<R>,
): void;
/** Binds an operation with steps of its own (the token endpoint): its steps, then its handler. */
export function bind<Call, Attempt>(
  api: Hono<AppEnv>,
  declaration: StepsDeclaration<Call, Attempt>,
  handler: (call: Call, c: Context<AppEnv>) => Response,
): void;
export function bind(
  api: Hono<AppEnv>,
  declaration: (Operation & { endpoint: Endpoint }) | ControlRoute | StepsDeclaration<unknown, unknown>,
  handler: (call: never, c: Context<AppEnv>) => unknown,
): void {
  const run = handler as (call: unknown, c: Context<AppEnv>) => Response | Promise<Response>;
  if ('steps' in declaration) {
    const { route, begin, steps, fail } = declaration;
    api.on(route.method.toUpperCase(), routingPath(route.path), async (c) => {
      const attempt = begin(c);
      try {
        const call = await steps(c, attempt);
        return call instanceof Response ? call : await run(call, c);
      } catch (e) {
        return fail(e, c, attempt);
      }
    });
    return;
  }
  if ('needs' in declaration) {
    const { route, endpoint, needs } = declaration;
    (api as OpenAPIHono<AppEnv>).openAPIRegistry.registerPath(route);
    const serve: Handler<AppEnv> = (c) => run(partnerCall(c, needs), c);
    const [first, then] = pipeline(endpoint, route, needs, serve);
    const method = route.method.toUpperCase();
    if (then) api.on(method, routingPath(route.path), first, then);
    else api.on(method, routingPath(route.path), first);
    return;
  }
  const route = declaration;
  const serve = (c: Context<AppEnv>, read?: Promise<string>) => run(controlCall(c, route, read), c);
  const hasBody = bodySchemaOf(route) !== undefined;
  api.on(
    route.method.toUpperCase(),
    routingPath(route.path),
    UNGATED.has(route.operationId)
      ? (c) => serve(c)
      : async (c) => {
          // Its body is read whole before it joins the gate: a client slow to send it would
          // otherwise hold a swap that waits for it, and with it every control-plane call, until
          // the request timeout. What reading it throws (413, 400, a cut-off) is thrown when the
          // handler asks for the body, after its own checks, as before.
          const read = hasBody ? readJsonText(c) : undefined;
          await read?.catch(() => {});
          return c.get('sandbox').gate.control(() => serve(c, read));
        },
  );
}
