/**
 * A fair share (SANDBOX_RATE_LIMIT, docs/hosting.md#limits-and-what-a-partner-sees-past-them):
 * a token bucket per partner, refilled on real time (it protects the process, so the sandbox
 * clock, which partners move, has no say). Calls of no known partner share one bucket.
 * Checked once per call, where the partner is known (http/auth.ts, api/token-endpoint.ts), before
 * anything is read or written; unset, the sandbox holds no limiter and the check is one branch.
 */

/** A setting as SANDBOX_RATE_LIMIT spells it: `<calls per second>[,burst=<n>]`. */
export interface RateLimitSpec {
  /** Calls per second a partner's bucket refills with (more than 0). */
  perSecond: number;
  /** How many calls the bucket holds: what a partner may send at once after a quiet spell. */
  burst: number;
}

export const RATE_LIMIT_MAX_PER_SECOND = 1_000_000;
export const RATE_LIMIT_MAX_BURST = 1_000_000;
export const RATE_LIMIT_FORMAT = '<calls per second>[,burst=<n>], e.g. 25 or 25,burst=50';

/** Parses `25`, `0.5`, `25,burst=50`; throws an Error saying what is wrong. */
export function parseRateLimit(text: string): RateLimitSpec {
  const [rate, ...rest] = text.split(',').map((part) => part.trim());
  if (!rate || !/^(?:\d+(?:\.\d+)?|\.\d+)$/.test(rate) || !(Number(rate) > 0)) {
    throw new Error(`calls per second must be a number above 0; the format is ${RATE_LIMIT_FORMAT}`);
  }
  const perSecond = Number(rate);
  if (perSecond > RATE_LIMIT_MAX_PER_SECOND)
    throw new Error(`calls per second must be at most ${RATE_LIMIT_MAX_PER_SECOND}`);
  // One second's calls by default, and at least one call (a rate below 1 still lets one through).
  let burst = Math.max(1, Math.ceil(perSecond));
  if (rest.length > 1) throw new Error(`too many parts; the format is ${RATE_LIMIT_FORMAT}`);
  if (rest.length === 1) {
    const match = /^burst=(\d+)$/.exec(rest[0]!);
    const n = match ? Number(match[1]) : Number.NaN;
    if (!(n >= 1 && n <= RATE_LIMIT_MAX_BURST)) {
      throw new Error(`burst must be a whole number from 1 to ${RATE_LIMIT_MAX_BURST} (burst=<n>)`);
    }
    burst = n;
  }
  return { perSecond, burst };
}

/** The bucket of calls that no known partner made (no valid token, an unknown client_id). */
export const NO_PARTNER = '';

interface Bucket {
  tokens: number;
  /** performance.now() of the last refill. */
  at: number;
}

/** Buckets are forgotten once full (a full bucket is what a new one is), past this many. */
const PRUNE_PAST = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    readonly spec: RateLimitSpec,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.perMs = spec.perSecond / 1000;
  }

  /**
   * Takes one call from the partner's bucket (NO_PARTNER for calls of no known partner):
   * 0 when the call may go on, else the whole seconds until the bucket holds a call again
   * (at least 1): the answer's Retry-After.
   */
  take(partner: string): number {
    const now = this.now();
    let bucket = this.buckets.get(partner);
    if (bucket === undefined) {
      if (this.buckets.size >= PRUNE_PAST) this.prune(now);
      bucket = { tokens: this.spec.burst, at: now };
      this.buckets.set(partner, bucket);
    } else {
      bucket.tokens = Math.min(this.spec.burst, bucket.tokens + (now - bucket.at) * this.perMs);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
  }

  /**
   * take() for a call that may not go on: the whole seconds take() would answer when the
   * partner's bucket holds no call (the bucket then is as take() leaves it), else 0 and the
   * call is not taken (take() it where the call goes on). No bucket yet is a full one: 0.
   */
  short(partner: string): number {
    const bucket = this.buckets.get(partner);
    if (bucket === undefined) return 0;
    const now = this.now();
    bucket.tokens = Math.min(this.spec.burst, bucket.tokens + (now - bucket.at) * this.perMs);
    bucket.at = now;
    return bucket.tokens >= 1 ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000));
  }

  /** Drops the buckets that are full again: they behave as new ones would. */
  private prune(now: number): void {
    for (const [partner, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.perMs >= this.spec.burst) this.buckets.delete(partner);
    }
  }
}
