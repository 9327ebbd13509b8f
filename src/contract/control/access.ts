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
