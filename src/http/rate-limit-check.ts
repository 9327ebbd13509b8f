/**
 * The fair-share check of a call (docs/hosting.md#limits-and-what-a-partner-sees-past-them),
 * made once where the partner is known: after the bearer token for partnership calls
 * (http/auth.ts), at the client_id lookup for token calls (api/token-endpoint.ts). A call past the
 * limit is answered at once with the 429 envelope (the token endpoint words it as RFC 6749
 * does): nothing is read, drawn or written; the journal records it.
 *
 * Cheap by design: a partner sending as fast as it can must not cost the process what its
 * calls would. The answer is built without a stack trace (nothing is wrong in the sandbox)
 * and, on the partnership API, returned by the stage rather than thrown through the app.
 */
import type { Context } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import { rateLimitedMessage } from '../contract/api/messages.js';
import type { RateLimiter } from '../core/rate-limit.js';
import { errorResponse } from './answer-writer.js';
import type { AppEnv } from './env.js';

/** Takes a call from the partner's bucket (NO_PARTNER: calls of no known partner): the 429 past it, else undefined. */
export function overLimit(limiter: RateLimiter, partner: string): ApiError | undefined {
  const seconds = limiter.take(partner);
  if (seconds === 0) return undefined;
  const { message, headers, details } = limitedParts(limiter, seconds);
  const depth = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ApiError('rate_limited', message, { headers, details });
  } finally {
    Error.stackTraceLimit = depth;
  }
}

/** What a call past the limit answers, `seconds` (at least 1) before a call is back in its bucket. */
export function limitedParts(limiter: RateLimiter, seconds: number) {
  const { perSecond, burst } = limiter.spec;
  return {
    message: rateLimitedMessage(perSecond, burst, seconds),
    headers: { 'Retry-After': String(seconds) },
    details: { retry_after_seconds: seconds },
  };
}

/** The partnership API's 429 envelope for a call past its partner's limit, or undefined. */
export function limitCall(c: Context<AppEnv>, limiter: RateLimiter, partner: string): Response | undefined {
  const limited = overLimit(limiter, partner);
  return limited && errorResponse(c, limited);
}
