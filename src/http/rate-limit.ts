/**
 * The fair-share check of a call (docs/hosting.md#limits-and-what-a-partner-sees-past-them),
 * made once where the partner is known: after the bearer token for partnership calls
 * (http/auth.ts), at the client_id lookup for token calls (api/oauth.ts). A call past the
 * limit is answered at once with the 429 envelope (the token endpoint words it as RFC 6749
 * does): nothing is read, drawn or written; the journal records it.
 */
import { ApiError } from '../contract/api/errors.js';
import { rateLimitedMessage } from '../contract/api/messages.js';
import type { RateLimiter } from '../core/rate-limit.js';

/** Takes a call from the partner's bucket (NO_PARTNER: calls of no known partner), or throws the 429. */
export function limitCall(limiter: RateLimiter, partner: string): void {
  const seconds = limiter.take(partner);
  if (seconds === 0) return;
  const { perSecond, burst } = limiter.spec;
  throw new ApiError('rate_limited', rateLimitedMessage(perSecond, burst, seconds), {
    headers: { 'Retry-After': String(seconds) },
    details: { retry_after_seconds: seconds },
  });
}
