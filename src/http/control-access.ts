/**
 * Who calls the control plane, and what they may call (docs/hosting.md, "A partner's own
 * control plane"). Decided in two steps, each in one place:
 * - `controlCaller`, one middleware on /__sandbox/*: without SANDBOX_ADMIN_TOKEN everyone is the
 *   operator; with it, the admin token is the operator, a partner's valid access token is that
 *   partner (the call's `controlPartner`), anything else is 401;
 * - `admit`, run by the binder (http/bind.ts) before each handler: the route's declared access
 *   (contract/control/access.ts) refuses a partner's token with 403 or finds, in the path, the
 *   partner the call acts on (another partner's parent, account or variant is 404 exactly as one
 *   that does not exist); `ownQuery` and `ownBody` do the same for a declared query or body target.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import { EXPIRED_TOKEN_MESSAGE } from '../contract/api/messages.js';
import { accessOf, type ControlAccess, PARTNER_HEADER } from '../contract/control/access.js';
import { accountNotFound, partnerNotFound, variantNotFound } from '../services/lookup.js';
import { secretsEqual, verifyToken } from '../services/tokens.js';
import type { AppEnv } from './env.js';
import { parseBearer, requestHeader } from './request-headers.js';

const REALM = 'realm="sandbox-control-plane"';
export const CONTROL_TOKEN_MESSAGE =
  "The control plane needs Authorization: Bearer <SANDBOX_ADMIN_TOKEN>, or a partner's access token from POST /oauth/token.";
export const PARTNER_FORBIDDEN_MESSAGE =
  "A partner's access token does not open this route: it needs the admin token (SANDBOX_ADMIN_TOKEN).";
/** The header naming the partner a partner's token acts for (declared with the access rules). */
export { PARTNER_HEADER } from '../contract/control/access.js';

/**
 * The control plane's caller. `open(path)`: the paths served to anyone (health, the dashboard's
 * shell), which need no token even when SANDBOX_ADMIN_TOKEN is set.
 */
export function controlCaller(
  adminToken: string | undefined,
  open: (path: string) => boolean,
): MiddlewareHandler<AppEnv> {
  return async function controlCaller(c, next) {
    c.set('controlPartner', undefined);
    if (adminToken && !open(c.req.path)) {
      const sent = parseBearer(requestHeader(c, 'authorization'));
      if (!sent || !secretsEqual(sent, adminToken)) {
        // A partner's token expires by its own partner's clock (services/tokens.ts).
        const check = sent === undefined ? undefined : verifyToken(c.get('sandbox'), sent);
        if (check?.ok !== true) throw refused(check?.reason === 'expired');
        c.set('controlPartner', check.principal.parent_account_id);
      }
    }
    await next();
    // On every answer, an error's too (written by the one error handler once the route threw).
    const partner = c.get('controlPartner');
    if (partner !== undefined) c.header(PARTNER_HEADER, partner);
  };
}

function refused(expired: boolean): ApiError {
  if (expired) {
    return new ApiError('token_expired', EXPIRED_TOKEN_MESSAGE, {
      headers: {
        'WWW-Authenticate': `Bearer ${REALM}, error="invalid_token", error_description="The access token expired"`,
      },
    });
  }
  return new ApiError('unauthorized', CONTROL_TOKEN_MESSAGE, {
    headers: { 'WWW-Authenticate': `Bearer ${REALM}` },
  });
}

/**
 * The route's declared access applied to this call: the partner it acts for (undefined: the
 * operator), after 403 for a route a partner's token does not open and 404 for a path parent,
 * account or variant of another partner.
 */
export function admit(
  c: Context<AppEnv>,
  route: { access?: ControlAccess },
  params: Record<string, string>,
): string | undefined {
  const partner = c.get('controlPartner');
  if (partner === undefined) return undefined;
  const access = accessOf(route);
  if (typeof access !== 'object') {
    if (access === 'open') return undefined;
    throw new ApiError('forbidden', PARTNER_FORBIDDEN_MESSAGE);
  }
  const store = c.get('sandbox').store;
  const { parent_account_id: parent, account_id: account, variant_id: variant } = params;
  if (access.partner === 'parent' && parent !== partner) throw partnerNotFound(parent ?? '');
  if (access.partner === 'account') ownAccount(c, partner, account ?? '');
  if (access.partner === 'variant') {
    const row = store.accounts.variant(variant ?? '');
    const owner = row && store.accounts.byId(row.account_id)?.parent_account_id;
    if (owner !== partner) throw variantNotFound(variant ?? '');
  }
  return partner;
}

function ownAccount(c: Context<AppEnv>, partner: string, accountId: string): void {
  if (c.get('sandbox').store.accounts.byId(accountId)?.parent_account_id !== partner)
    throw accountNotFound(accountId);
}

/** A query the route scopes by `parent_account_id` (access `query`): a partner's own by default. */
export function ownQuery(
  route: { access?: ControlAccess },
  partner: string | undefined,
  values: Record<string, unknown>,
): Record<string, unknown> {
  if (partner === undefined || !isScope(route, 'query') || values.parent_account_id !== undefined)
    return values;
  return { ...values, parent_account_id: partner };
}

/** After the query is parsed: a parent of another partner is 404, as one that does not exist. */
export function checkOwnQuery(
  route: { access?: ControlAccess },
  partner: string | undefined,
  query: { parent_account_id?: unknown },
): void {
  if (partner === undefined || !isScope(route, 'query')) return;
  if (query.parent_account_id !== partner) throw partnerNotFound(String(query.parent_account_id));
}

/**
 * A parsed body the route scopes by its target (access `body`): its `parent_account_id` or
 * `account_id` must be the partner's own (404 as one that does not exist); none means its parent.
 */
export function ownBody<T>(
  c: Context<AppEnv>,
  route: { access?: ControlAccess },
  partner: string | undefined,
  body: T,
): T {
  if (partner === undefined || !isScope(route, 'body')) return body;
  const target = body as { parent_account_id?: string | null; account_id?: string | null };
  if (target.parent_account_id != null && target.parent_account_id !== partner)
    throw partnerNotFound(target.parent_account_id);
  if (target.account_id != null) ownAccount(c, partner, target.account_id);
  else if (target.parent_account_id == null) return { ...body, parent_account_id: partner };
  return body;
}

const isScope = (route: { access?: ControlAccess }, scope: string) => {
  const access = accessOf(route);
  return typeof access === 'object' && access.partner === scope;
};
