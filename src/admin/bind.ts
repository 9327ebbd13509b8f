/**
 * Binds a control-plane handler to its declaration (contract/control-routes.ts): the method
 * and path come from the declaration, so what the document lists is what is served. The
 * handler reads its body with admin/body.ts and its query itself, as before: the declaration's
 * schemas document the request, they do not add a validator (the control plane's own error
 * format and body rules stay).
 */
import type { Context, Hono } from 'hono';
import type { ControlRoute } from '../contract/control-routes.js';
import type { AppEnv } from '../http/env.js';

/** `/a/{b}/c` as Hono writes it: `/a/:b/c`. */
type RoutingPath<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}`
  ? `${Head}:${Name}${RoutingPath<Tail>}`
  : P;

export function bind<R extends ControlRoute>(
  api: Hono<AppEnv>,
  route: R,
  handler: (c: Context<AppEnv, RoutingPath<R['path']>>) => Response | Promise<Response>,
): void {
  api.on(
    route.method.toUpperCase(),
    route.getRoutingPath(),
    handler as (c: Context<AppEnv>) => Response | Promise<Response>,
  );
}
