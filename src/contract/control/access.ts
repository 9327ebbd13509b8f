/**
 * Who may call a control-plane operation when SANDBOX_ADMIN_TOKEN is set (docs/hosting.md, "A
 * partner's own control plane"): each declaration in control-routes*.ts says it once, and the
 * binder (http/control-access.ts) enforces it in one stage before the handler. Without
 * SANDBOX_ADMIN_TOKEN every route is open; with it the admin token opens every route.
 */

/**
 * Where a partner's token finds the partner an operation acts on, once it may call it:
 * - `parent`, `account`, `variant`: the path's parent account, account or variant, which must be
 *   its own (another partner's is answered 404 exactly as one that does not exist);
 * - `query`, `body`: the request's `parent_account_id` (or, in a body, `account_id`), which must
 *   be its own; none means its own parent;
 * - `own`: the handler acts on the acting partner's own state (its calls, armed scenarios,
 *   chaos profile), whatever filters it is sent.
 */
export type PartnerScope = 'parent' | 'account' | 'variant' | 'query' | 'body' | 'own';

/**
 * `open`: anyone, even without the admin token (health); `admin`: the admin token only (a
 * partner's token is 403), the default of a declaration that says nothing; `{ partner }`: the
 * admin token, or a partner's token acting for that partner alone.
 */
export type ControlAccess = 'open' | 'admin' | { partner: PartnerScope };

/** What a declaration says, or the default: admin only. */
export const accessOf = (route: { access?: ControlAccess }): ControlAccess => route.access ?? 'admin';

/** The partner scope of a declaration a partner's token may call, if any. */
export const partnerScopeOf = (route: { access?: ControlAccess }): PartnerScope | undefined => {
  const access = accessOf(route);
  return typeof access === 'object' ? access.partner : undefined;
};

/** A declaration's access: a partner's token may call it, acting on the partner found by `scope`. */
export const partnerMay = (scope: PartnerScope): ControlAccess => ({ partner: scope });

/** A declaration's access: anyone, even without the admin token. */
export const OPEN: ControlAccess = 'open';

/**
 * The header naming the partner a partner's token acts for, on each answer of a route that
 * token opens (and on the 403 of one it does not): how a client (the dashboard) learns whose
 * token it holds. Declared here once: http/control-access.ts sets it, the control document
 * (openapi-control.ts) lists it on every answer of each route declared `partnerMay` (the 403
 * of an admin-only route to a partner's token carries it too, as that route's common 403).
 */
export const PARTNER_HEADER = 'X-Sandbox-Partner';

/** Its OpenAPI Header Object (components.headers.XSandboxPartner of the control document). */
export const PARTNER_HEADER_OBJECT = {
  description:
    "The partner's parent account ID, when the call was made with a partner's access token (SANDBOX_ADMIN_TOKEN set): the one partner the control plane acted for (docs/hosting.md). Absent on the admin token's answers and without SANDBOX_ADMIN_TOKEN.",
  required: false,
  schema: { type: 'string' },
  example: 'pa_demo_platform',
};
