/**
 * A fair share (docs/hosting.md#limits-and-what-a-partner-sees-past-them): SANDBOX_RATE_LIMIT
 * gives each partner a token bucket of calls, its token calls included; calls of no known
 * partner share one bucket. A call past it is the 429 envelope (rate_limited, Retry-After in
 * whole seconds, at least 1) that executes nothing and is journaled; a token call past it is
 * the token endpoint's own 429 (RFC 6749 body). The control plane is never limited.
 */
import { describe, expect, it } from 'vitest';
import { StartupError } from '../../src/base/startup-error.js';
import { loadConfig } from '../../src/core/config.js';
import { parseRateLimit, RateLimiter } from '../../src/core/rate-limit.js';
import {
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  MAPPINGS,
  STATUS,
  UNSEEDED,
} from '../helpers/harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const tokenForm = (clientId: string, clientSecret: string) => ({
  raw: new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
  }).toString(),
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
});

/** The 429 of a partnership call past the limit, with its Retry-After. */
function expectLimited(
  res: Awaited<ReturnType<ReturnType<typeof createHarness>['request']>>,
  seconds: number,
) {
  const body = expectErrorEnvelope(res, 429, 'rate_limited');
  expect(res.headers.get('retry-after')).toBe(String(seconds));
  expect(body.error.details).toEqual({ retry_after_seconds: seconds });
  expect(body.message).toMatch(/^Too many requests: .*retry after \d+ s\. Nothing was applied\.$/);
}

describe('a partner past its fair share (SANDBOX_RATE_LIMIT)', () => {
  it('the call past it is 429 rate_limited with Retry-After; nothing is written, no key kept; journaled under the partner', async () => {
    // A call back every 4 s: far more than the three calls take, even on a loaded machine.
    const h = createHarness({ rateLimit: '0.25,burst=3' });
    const partner = await h.client(); // its token call: 1 of 3
    const accountId = await partner.account(); // 2 of 3
    expectOk(await partner.get(MAPPINGS)); // 3 of 3

    const limitedPut = await partner.put(
      STATUS(accountId),
      { status: 'paused' },
      { 'Idempotency-Key': 'k-1' },
    );
    const retryAfter = Number(limitedPut.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(4);
    expectLimited(limitedPut, retryAfter);
    const limitedRegister = await partner.register({ external_account_id: 'never-created' });
    expect(limitedRegister.status).toBe(429);
    expectErrorEnvelope(limitedRegister, 429, 'rate_limited');

    // The control plane is not limited: the bundle shows nothing was written.
    const bundle = await h.request('GET', `/__sandbox/partners/${DEMO.parent}/bundle`);
    expect(bundle.status).toBe(200);
    expect(bundle.body.accounts.map((a: { account_id: string }) => a.account_id)).toEqual([accountId]);
    expect(bundle.body.idempotency_keys).toEqual([]);
    const journal = await h.request('GET', `/__sandbox/requests?parent_account_id=${DEMO.parent}&status=429`);
    expect(
      journal.body.requests.map((e: { method: string; path: string }) => `${e.method} ${e.path}`),
    ).toEqual(['POST /v1/accounts/register/partnership', `PUT ${STATUS(accountId)}`]);

    // Once a call is back in the bucket, the same key executes (no replay of the 429).
    await sleep(retryAfter * 1000 + 50);
    const retried = await partner.put(STATUS(accountId), { status: 'paused' }, { 'Idempotency-Key': 'k-1' });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('Retry-After is the whole seconds until a call is back in the bucket, rounded up', async () => {
    const h = createHarness({ rateLimit: '0.1' });
    const partner = await h.client(); // the bucket holds one call: the token's
    expectLimited(await partner.get(MAPPINGS), 10);
  });

  it("a token call past its client's limit is the token endpoint's 429 (RFC 6749 body, Retry-After)", async () => {
    const h = createHarness({ rateLimit: '0.1,burst=1' });
    expect(
      (await h.request('POST', '/oauth/token', tokenForm(DEMO.clientId, DEMO.clientSecret))).status,
    ).toBe(200);
    const limited = await h.request('POST', '/oauth/token', tokenForm(DEMO.clientId, DEMO.clientSecret));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('10');
    expect(limited.headers.get('cache-control')).toBe('no-store');
    expect(limited.body).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.stringMatching(/^Too many requests: .*retry after 10 s/),
    });
    // Its secret was not checked: journaled with the calls of no known partner.
    const journal = await h.request('GET', '/__sandbox/requests?path=/oauth/token&status=429');
    expect(journal.body.requests).toHaveLength(1);
    expect(journal.body.requests[0].parent_account_id).toBeNull();
    // Another partner has a bucket of its own.
    expect(
      (await h.request('POST', '/oauth/token', tokenForm(UNSEEDED.clientId, UNSEEDED.clientSecret))).status,
    ).toBe(200);
  });

  it("a partner's token calls and partnership calls share its bucket", async () => {
    const h = createHarness({ rateLimit: '0.1,burst=2' });
    const partner = await h.client();
    expectOk(await partner.get(MAPPINGS));
    const limited = await h.request('POST', '/oauth/token', tokenForm(DEMO.clientId, DEMO.clientSecret));
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('temporarily_unavailable');
  });

  it('calls of no known partner share one bucket, apart from every partner', async () => {
    const h = createHarness({ rateLimit: '0.1,burst=2' });
    expectErrorEnvelope(await h.request('GET', MAPPINGS), 401, 'unauthorized');
    const badToken = { headers: { Authorization: 'Bearer not-a-token' } };
    expectErrorEnvelope(await h.request('GET', MAPPINGS, badToken), 401, 'unauthorized');
    expectLimited(await h.request('GET', MAPPINGS, badToken), 10);
    const unknownClient = await h.request('POST', '/oauth/token', tokenForm('nobody', 'nothing'));
    expect(unknownClient.status).toBe(429);
    // A known partner is untouched.
    const partner = await h.client();
    expectOk(await partner.get(MAPPINGS));
  });

  it("a limited call draws nothing from its partner's chaos sequence (reproducible runs stay so)", async () => {
    const h = createHarness({ rateLimit: '0.1,burst=2' });
    const partner = await h.client(); // 1 of 2
    const set = await h.request('PUT', '/__sandbox/chaos', {
      body: { rate: 0.5, seed: 7, parent_account_id: DEMO.parent },
    });
    expect(set.status).toBe(200);
    await partner.get(MAPPINGS); // 2 of 2: the partner's call 1 (failed by chaos or not)
    const limited = await partner.get(MAPPINGS);
    expectLimited(limited, 10);
    expect(limited.headers.get('x-sandbox-chaos')).toBeNull();
    const chaos = await h.request('GET', '/__sandbox/chaos');
    expect(chaos.body.profiles[0]).toMatchObject({ parent_account_id: DEMO.parent, calls_seen: 1 });
  });

  it('the control plane is not limited', async () => {
    const h = createHarness({ rateLimit: '1,burst=1' });
    for (let i = 0; i < 20; i++) {
      expect((await h.request('GET', '/__sandbox/health')).status).toBe(200);
      expect((await h.request('GET', `/__sandbox/partners/${DEMO.parent}/clock`)).status).toBe(200);
    }
  });

  it('unset, there is no limit', async () => {
    const h = createHarness();
    const partner = await h.client();
    for (let i = 0; i < 50; i++) expectOk(await partner.get(MAPPINGS));
  });
});

describe('the token bucket (core/rate-limit.ts)', () => {
  it('refills on real time at the rate, up to the burst', () => {
    let now = 0;
    const limiter = new RateLimiter(parseRateLimit('2,burst=3'), () => now);
    expect([1, 2, 3, 4].map(() => limiter.take('p'))).toEqual([0, 0, 0, 1]);
    now = 499;
    expect(limiter.take('p')).toBe(1); // 0.998 of a call
    now = 500;
    expect(limiter.take('p')).toBe(0);
    now = 10_000; // a long quiet spell fills it to the burst, no more
    expect([1, 2, 3, 4].map(() => limiter.take('p'))).toEqual([0, 0, 0, 1]);
    expect(limiter.take('q')).toBe(0);
  });

  it('the default burst is one second of calls, at least one', () => {
    expect(parseRateLimit('25')).toEqual({ perSecond: 25, burst: 25 });
    expect(parseRateLimit('0.5')).toEqual({ perSecond: 0.5, burst: 1 });
    expect(parseRateLimit(' 2.5 , burst=7 ')).toEqual({ perSecond: 2.5, burst: 7 });
  });
});

describe('SANDBOX_RATE_LIMIT and SANDBOX_CELL: a bad value names the setting (exit 2: test/hosted/)', () => {
  for (const [value, message] of [
    ['0', 'calls per second must be a number above 0'],
    ['abc', 'calls per second must be a number above 0'],
    ['-1', 'calls per second must be a number above 0'],
    ['5,burst=0', 'burst must be a whole number from 1 to 1000000'],
    ['5,bursts=2', 'burst must be a whole number from 1'],
    ['5,burst=2,x', 'too many parts'],
    ['2000000', 'calls per second must be at most 1000000'],
  ] as const) {
    it(`SANDBOX_RATE_LIMIT=${value}: ${message}`, () => {
      expect(() => loadConfig([], { SANDBOX_RATE_LIMIT: value })).toThrow(StartupError);
      expect(() => loadConfig([], { SANDBOX_RATE_LIMIT: value })).toThrow(
        `invalid configuration: SANDBOX_RATE_LIMIT=${JSON.stringify(value)}: ${message}`,
      );
    });
  }

  it('--rate-limit is named when the flag set it, and wins over the environment', () => {
    expect(() => loadConfig(['--rate-limit', 'fast'], {})).toThrow(/--rate-limit="fast": calls per second/);
    expect(loadConfig(['--rate-limit', '25,burst=50'], { SANDBOX_RATE_LIMIT: '1' }).rateLimit).toBe(
      '25,burst=50',
    );
  });

  for (const value of ['Cell-A', 'cell_a', 'a'.repeat(64), 'cell.a', 'café']) {
    it(`SANDBOX_CELL=${value.length > 20 ? `${value.slice(0, 8)}… (${value.length})` : value} is refused`, () => {
      expect(() => loadConfig([], { SANDBOX_CELL: value })).toThrow(
        `SANDBOX_CELL=${JSON.stringify(value)}: must be a DNS label: 1 to 63 of a-z, 0-9 and -`,
      );
    });
  }

  it('a DNS label is a cell; --cell names itself', () => {
    expect(loadConfig([], { SANDBOX_CELL: 'cell-a' }).cell).toBe('cell-a');
    expect(loadConfig(['--cell', 'b'.repeat(63)], {}).cell).toBe('b'.repeat(63));
    expect(() => loadConfig(['--cell', 'B'], {})).toThrow(/--cell="B": must be a DNS label/);
  });
});
