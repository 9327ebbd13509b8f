/**
 * Account resolution for `/accounts/{account_id}/...` routes: another parent's account is
 * answered as if it did not exist (404). Then the auth-propagation race (spec §5.5).
 */
import type { Context } from 'hono';
import { ApiError, validationError } from '../contract/api/errors.js';
import { issuesToFields } from '../contract/api/issues.js';
import { accountNotFoundMessage, PROPAGATION_MESSAGE } from '../contract/api/messages.js';
import { AccountParams } from '../contract/api/schemas.js';
import { type AppEnv, known } from './env.js';

/** The path's account when the caller's parent owns it; undefined otherwise (or without one). */
export function ownedAccount(c: Context<AppEnv>) {
  const id = c.req.param('account_id');
  if (!id) return undefined;
  const account = c.get('sandbox').store.accounts.byId(id);
  return account?.parent_account_id === c.get('principal')?.parent_account_id ? account : undefined;
}

/**
 * 404 unless the caller owns the path's account (authentication has looked it up already);
 * an ID outside the documented form (1 to 128 characters) is a 400 naming it, as any other
 * path parameter is.
 */
export function loadAccount(c: Context<AppEnv>): void {
  const account = c.get('account') ?? ownedAccount(c);
  if (!account) {
    const id = c.req.param('account_id') ?? '';
    const form = AccountParams.safeParse({ account_id: id });
    if (!form.success) throw validationError(issuesToFields(form.error.issues, 'path'));
    throw new ApiError('account_not_found', accountNotFoundMessage(id), { details: { account_id: id } });
  }
  c.set('account', account);
}

/**
 * Controls and status calls on a new account answer 401 or 403 (alternating) until its
 * propagation deadline passes on the sandbox clock; the auth-propagation scenario on the
 * call itself answers the 401 now.
 */
export function propagation(c: Context<AppEnv>): void {
  const s = c.get('sandbox');
  const account = known(c, 'account');
  const now = c.get('faultPlan').take('auth-propagation') !== undefined;
  const time = s.clock.now(account.parent_account_id); // the partner's clock
  if (now || account.auth_ready_at > time) {
    const { ordinal, warning } = s.diagnostics.propagationAnswer(account.account_id, time);
    if (warning) c.get('warnings').push(warning);
    const status = now || ordinal % 2 === 0 ? 401 : 403;
    throw new ApiError('auth_propagation_pending', PROPAGATION_MESSAGE, {
      status,
      headers:
        status === 401
          ? {
              'WWW-Authenticate':
                'Bearer realm="partnership-sandbox", error="invalid_token", error_description="Token authentication has not propagated to this account yet"',
            }
          : {},
    });
  }
}
