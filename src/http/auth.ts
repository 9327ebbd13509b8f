/**
 * Bearer authentication for partnership calls (docs/api.md#authentication), with the token-expired hook.
 * Once the partner is known, its chaos profile (if any) draws this call's failure.
 */
import type { Context } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import {
  EXPIRED_TOKEN_MESSAGE,
  INVALID_TOKEN_MESSAGE,
  MISSING_TOKEN_MESSAGE,
} from '../contract/api/messages.js';
import { NO_PARTNER } from '../core/rate-limit.js';
import { verifyToken } from '../services/tokens.js';
import { ownedAccount } from './account.js';
import { noteLimited } from './early-limit.js';
import type { AppEnv } from './env.js';
import { limitCall } from './rate-limit-check.js';
import { parseBearer, requestHeader } from './request-headers.js';

const REALM = 'realm="partnership-sandbox"';
const expired = () =>
  new ApiError('token_expired', EXPIRED_TOKEN_MESSAGE, {
    headers: {
      'WWW-Authenticate': `Bearer ${REALM}, error="invalid_token", error_description="The access token expired"`,
    },
  });

export function authenticate(c: Context<AppEnv>): Response | undefined | Promise<void> {
  const sandbox = c.get('sandbox');
  const authorization = requestHeader(c, 'authorization');
  const token = parseBearer(authorization);
  if (!token) {
    const limited = sandbox.rateLimit && limitCall(c, sandbox.rateLimit, NO_PARTNER);
    if (limited) return limited;
    throw new ApiError('unauthorized', MISSING_TOKEN_MESSAGE, {
      headers: { 'WWW-Authenticate': `Bearer ${REALM}` },
    });
  }
  const check = verifyToken(sandbox, token);
  if (!check.ok) {
    const limited = sandbox.rateLimit && limitCall(c, sandbox.rateLimit, NO_PARTNER);
    if (limited) return limited;
    if (check.reason === 'expired') throw expired();
    throw new ApiError('unauthorized', INVALID_TOKEN_MESSAGE, {
      headers: {
        'WWW-Authenticate': `Bearer ${REALM}, error="invalid_token", error_description="The access token is invalid"`,
      },
    });
  }
  c.set('principal', check.principal);
  // Past its fair share (docs/hosting.md): the 429 now, before anything is read or drawn.
  if (sandbox.rateLimit) {
    const limited = limitCall(c, sandbox.rateLimit, check.principal.parent_account_id);
    if (limited) {
      // Its next calls with this header are answered before the app (http/early-limit.ts).
      noteLimited(sandbox.rateLimit, authorization!, check.principal.parent_account_id);
      return limited;
    }
  }
  // Its partner is being swapped in by a large import: it waits first (the pipeline then starts
  // it over), before it reads an account or draws its chaos position.
  const held = sandbox.gate.heldFor(check.principal.parent_account_id);
  if (held) return held;
  const scenarios = c.get('faultPlan');
  scenarios.parentId = check.principal.parent_account_id;
  // A scenario armed for an account applies only to calls of the partner that owns it:
  // another partner's call on that account is a plain 404 later, and uses up nothing.
  const account = ownedAccount(c);
  if (account) {
    scenarios.accountId = account.account_id;
    c.set('account', account);
    c.set('accountId', account.account_id);
  }
  scenarios.drawChaos(c.get('dryRun'), c.req.method, c.req.path);
  if (scenarios.take('token-expired')) throw expired();
  return undefined;
}
