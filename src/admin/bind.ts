/**
 * Binds a control-plane handler to its declaration (contract/control-routes.ts): the method
 * and path come from the declaration, so what the document lists is what is served; the
 * declared query schema validates the query before the handler runs, the declared body schema
 * validates the body when the handler reads it (after its own 404 checks, so their order
 * stays), and the handler's answers are type-checked against the declared ones. The control
 * plane's own error format and body rules (admin/body.ts) stay: no zod-openapi validator.
 */
import type { RouteConfigToTypedResponse } from '@hono/zod-openapi';
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { ControlRoute } from '../contract/control-routes.js';
import { validationError } from '../contract/errors.js';
import { issuesToFields } from '../contract/issues.js';
import type { AppEnv } from '../http/env.js';
import { adminBody } from './body.js';

/** `/a/{b}/c` as Hono writes it: `/a/:b/c`. */
type RoutingPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}`
  ? `${Head}:${Name}${RoutingPath<Tail>}`
  : P;

type BodySchema<R extends ControlRoute> = R['request'] extends {
  body: { content: { 'application/json': { schema: infer S extends z.ZodType } } };
}
  ? S
  : never;
type QuerySchema<R extends ControlRoute> = R['request'] extends { query: infer Q extends z.ZodType }
  ? Q
  : never;

/** What the declaration validated, for the handler. */
export interface Declared<R extends ControlRoute> {
  /** The query, parsed by the declared schema (`{}` where none is declared). */
  query: [QuerySchema<R>] extends [never] ? Record<never, never> : z.output<QuerySchema<R>>;
  /** Reads the JSON body and parses it by the declared schema. */
  body(): Promise<z.output<BodySchema<R>>>;
}

type Answer<R extends ControlRoute> = RouteConfigToTypedResponse<R> | Promise<RouteConfigToTypedResponse<R>>;

const jsonSchema = (route: ControlRoute): z.ZodType | undefined => {
  const media = route.request?.body?.content['application/json'];
  return media && 'schema' in media ? (media.schema as z.ZodType) : undefined;
};

export function bind<R extends ControlRoute>(
  api: Hono<AppEnv>,
  route: R,
  handler: (c: Context<AppEnv, RoutingPath<R['path']>>, input: Declared<R>) => Answer<R>,
): void {
  const querySchema = route.request?.query as z.ZodType | undefined;
  const bodySchema = jsonSchema(route);
  api.on(route.method.toUpperCase(), route.getRoutingPath(), (c) => {
    let query: unknown = {};
    if (querySchema) {
      // A parameter sent twice is an array, which a schema of one value refuses (never one silently).
      const sent = Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0] : v]);
      const parsed = querySchema.safeParse(Object.fromEntries(sent));
      if (!parsed.success) throw validationError(issuesToFields(parsed.error.issues, 'query'));
      query = parsed.data;
    }
    const input = {
      query,
      body: () => {
        if (!bodySchema) throw new TypeError(`${route.operationId} declares no JSON body`);
        return adminBody(c, bodySchema);
      },
    } as Declared<R>;
    return handler(c as Context<AppEnv, RoutingPath<R['path']>>, input) as unknown as
      | Response
      | Promise<Response>;
  });
}
