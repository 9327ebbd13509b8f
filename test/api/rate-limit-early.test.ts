/**
 * A call past its partner's fair share answered before the app (src/http/early-limit.ts), over
 * a real socket: the first limited call of a token goes through the app, which notes it; the
 * next ones are answered in Node's request listener. These tests pin that the two answers are
 * the same bytes (status, envelope, headers, Retry-After) and the same journal entry, that
 * whatever changes a token's fate (its expiry, either clock, a reset, a restore, an import, the
 * bucket refilling) answers as the app answers, and that nothing else is answered early.
 *
 * The bucket refills on its limiter's clock (performance.now() in the sandbox): each server here
 * gets a limiter of the same spec on a clock held still, so that Retry-After is exact and no call
 * comes back into the bucket unless a test moves it (nothing global is stubbed: npm test shares
 * workers between files).
 */
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseRateLimit, RateLimiter } from '../../src/core/rate-limit.js';
import { earlyAnswers } from '../../src/http/early-limit.js';
import { startServer } from '../../src/server.js';
import { DEMO, MAPPINGS, STATUS, testConfig } from '../helpers/harness.js';

type Running = Awaited<ReturnType<typeof startServer>>;
let running: Running;
let now = 1_000_000;

beforeEach(() => {
  now = 1_000_000;
});
afterEach(async () => {
  await running?.close();
});

/** A server whose partners each have `burst` calls, refilled at one call per 1000 s (Retry-After 1000). */
async function serve(burst: number) {
  const rateLimit = `0.001,burst=${burst}`;
  running = await startServer(testConfig({ port: 0, rateLimit }));
  running.sandbox.rateLimit = new RateLimiter(parseRateLimit(rateLimit), () => now);
  return running;
}

interface Raw {
  /** The whole answer as sent. */
  text: string;
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  body: any;
}

/** One request on its own connection, the answer's bytes read whole (headers and Content-Length body). */
function raw(method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<Raw> {
  const lines = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${running.port}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return new Promise((resolve, reject) => {
    const socket = connect(running.port, '127.0.0.1');
    let data = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = text.slice(0, end).split('\r\n');
      const parsed: Record<string, string> = {};
      for (const line of head.slice(1)) {
        const colon = line.indexOf(':');
        parsed[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(parsed['content-length'] ?? 0);
      if (data.length < end + 4 + length) return;
      const payload = data.subarray(end + 4, end + 4 + length).toString('utf8');
      socket.destroy();
      resolve({
        text: data.toString('utf8'),
        status: Number(head[0]!.split(' ')[1]),
        headers: parsed,
        body: payload ? JSON.parse(payload) : null,
      });
    });
    socket.on('error', reject);
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

const control = async (method: string, path: string, body?: unknown) => {
  const res = await raw(
    method,
    path,
    body === undefined ? {} : { 'Content-Type': 'application/json' },
    body === undefined ? '' : JSON.stringify(body),
  );
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
};

/** A new partner and a token for it (the token call takes one call of its bucket). */
async function partner(parent: string) {
  const created = await control('POST', '/__sandbox/partners', { parent_account_id: parent });
  const grant = await raw(
    'POST',
    '/oauth/token',
    { 'Content-Type': 'application/x-www-form-urlencoded' },
    `grant_type=client_credentials&client_id=${created.client_id}&client_secret=${created.client_secret}`,
  );
  expect(grant.status).toBe(200);
  return {
    parent,
    clientId: created.client_id as string,
    clientSecret: created.client_secret as string,
    headers: { Authorization: `Bearer ${grant.body.access_token}`, 'X-Platform-Parent-Account-Id': parent },
  };
}

/** The answer with what differs between any two answers (Date, the request ID) masked. */
function masked(res: Raw): string {
  return res.text.replace(/^Date: .*$/m, 'Date: -').replaceAll(res.headers['x-request-id']!, 'REQUEST-ID');
}

const answered = () => earlyAnswers(running.sandbox.rateLimit!);

/** Gets the partner past its limit: one limited call through the app, the next answered early. */
async function limited(p: { headers: Record<string, string> }) {
  const before = answered();
  const slow = await raw('GET', MAPPINGS, p.headers);
  expect(slow.status).toBe(429);
  expect(answered()).toBe(before);
  const fast = await raw('GET', MAPPINGS, p.headers);
  expect(fast.status).toBe(429);
  expect(answered()).toBe(before + 1);
  return { slow, fast };
}

/** The journal's entries with what differs between two calls masked. */
async function journal429(parent: string | null) {
  const query = parent === null ? 'status=429' : `parent_account_id=${parent}&status=429`;
  const { requests } = await control('GET', `/__sandbox/requests?${query}`);
  // biome-ignore lint/suspicious/noExplicitAny: entries are compared whole
  return requests.map((e: any) => {
    const { id, request_id, time, partner_time, duration_ms, ...rest } = e;
    expect(typeof duration_ms).toBe('number');
    expect(typeof time).toBe('string');
    expect(partner_time === null || typeof partner_time === 'string').toBe(true);
    const body = rest.response_body.replaceAll(request_id, 'REQUEST-ID');
    const headers = { ...rest.response_headers, 'x-request-id': 'REQUEST-ID' };
    return { ...rest, response_body: body, response_headers: headers, partner_time: partner_time !== null };
  });
}

describe('a limited call answered before the app (http/early-limit.ts)', () => {
  it('is byte for byte the answer the app sends: status, envelope, headers, Retry-After rounded up', async () => {
    await serve(2);
    const p = await partner('pa_early_bytes');
    expect((await raw('GET', MAPPINGS, p.headers)).status).toBe(200); // 2 of 2
    now += 400_400; // 0.4004 of a call back: Retry-After is 599.6 s rounded up
    const { slow, fast } = await limited(p);
    expect(masked(fast)).toBe(masked(slow));
    expect(fast.headers['retry-after']).toBe('600');
    expect(fast.headers['cache-control']).toBe('no-store');
    expect(fast.headers['content-type']).toBe('application/json');
    expect(fast.headers['x-request-id']).toBe(fast.body.request_id);
    expect(fast.headers['x-request-id']).not.toBe(slow.headers['x-request-id']);
    // The envelope and nothing else (SANDBOX.md section 8).
    expect(Object.keys(fast.body)).toEqual(['status', 'error', 'message', 'request_id', 'data']);
    expect(fast.body).toMatchObject({
      status: 429,
      error: { code: 'rate_limited', details: { retry_after_seconds: 600 } },
      data: null,
    });
    expect(Object.keys(fast.headers).filter((h) => h.startsWith('x-sandbox'))).toEqual([]);
  });

  it('is journaled as the app journals it, under its partner, with its partner clock', async () => {
    await serve(1);
    const p = await partner('pa_early_journal');
    await control('POST', `/__sandbox/partners/${p.parent}/clock/advance`, { seconds: 60 });
    await raw('GET', MAPPINGS, {
      ...p.headers,
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    await raw('GET', MAPPINGS, {
      ...p.headers,
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    expect(answered()).toBe(1);
    const [fast, slow] = await journal429(p.parent);
    expect(fast).toEqual(slow);
    expect(fast).toMatchObject({ method: 'GET', path: MAPPINGS, status: 429, parent_account_id: p.parent });
    expect(fast.trace_id).toBe('0af7651916cd43dd8448eb211c80319c');
    const entries = (await control('GET', `/__sandbox/requests?parent_account_id=${p.parent}&status=429`))
      .requests;
    // The partner's clock is 60 s ahead on both.
    for (const e of entries) expect(Date.parse(e.partner_time) - Date.parse(e.time)).toBe(60_000);
  });

  it('calls without a token share the bucket of no known partner with unknown tokens, apart from partners', async () => {
    await serve(2);
    const p = await partner('pa_early_other'); // its own bucket: 1 of 2
    const unknown = { Authorization: 'Bearer not-a-token', 'X-Platform-Parent-Account-Id': DEMO.parent };
    expect((await raw('GET', MAPPINGS)).status).toBe(401); // no partner: 1 of 2
    expect((await raw('GET', MAPPINGS, unknown)).status).toBe(401); // 2 of 2
    const slow = await raw('GET', MAPPINGS, unknown); // an unknown token: through the app
    expect(slow.status).toBe(429);
    expect(answered()).toBe(0);
    const fast = await raw('GET', MAPPINGS); // no token: answered early
    expect(answered()).toBe(1);
    expect(masked(fast)).toBe(masked(slow));
    // The journal: the same entry but for the Authorization header sent.
    const [a, b] = await journal429(null);
    expect({ ...a, request_headers: {} }).toEqual({ ...b, request_headers: {} });
    expect(a.parent_account_id).toBeNull();
    // The partner's own bucket is untouched.
    expect((await raw('GET', MAPPINGS, p.headers)).status).toBe(200);
  });

  it('other partners, the control plane and calls the app answers first are not answered early', async () => {
    await serve(2);
    const noisy = await partner('pa_early_noisy');
    const quiet = await partner('pa_early_quiet');
    expect((await raw('GET', MAPPINGS, noisy.headers)).status).toBe(200);
    await limited(noisy);
    // Empty the bucket of no known partner too.
    expect((await raw('GET', MAPPINGS)).status).toBe(401);
    expect((await raw('GET', MAPPINGS)).status).toBe(401);
    const before = answered();
    // The control plane is not limited, with the noisy partner's token or without one.
    expect((await raw('GET', '/__sandbox/health')).status).toBe(200);
    expect((await raw('GET', `/__sandbox/partners/${noisy.parent}/clock`, noisy.headers)).status).toBe(200);
    // What the app answers before the limit, or shapes, still comes from the app.
    const dry = await raw('GET', `${MAPPINGS}?dry_run=true`, noisy.headers);
    expect(dry.status).toBe(429);
    expect(dry.body.dry_run).toBe(true);
    const unknownScenario = await raw('GET', MAPPINGS, { ...noisy.headers, 'X-Sandbox-Scenario': 'no-such' });
    expect(unknownScenario.status).toBe(400);
    expect((await raw('GET', '/v1/no-such-route', noisy.headers)).status).toBe(404);
    expect((await raw('DELETE', MAPPINGS, noisy.headers)).status).toBe(405);
    const put = await raw(
      'PUT',
      STATUS('acct_none'),
      { ...noisy.headers, 'Content-Type': 'application/json', 'Idempotency-Key': 'k' },
      '{"status":"paused"}',
    );
    expect(put.status).toBe(429);
    expect(answered()).toBe(before);
    // The quiet partner's first call since its token: served.
    expect((await raw('GET', MAPPINGS, quiet.headers)).status).toBe(200);
  });
});

describe('what changes a noted token answers as the app answers', () => {
  const expired = async (p: { headers: Record<string, string> }) => {
    const before = answered();
    const res = await raw('GET', MAPPINGS, p.headers);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('token_expired');
    expect(answered()).toBe(before);
  };

  it("the partner's clock moved past the token's expiry: 401 token_expired", async () => {
    await serve(1);
    const p = await partner('pa_early_clock');
    await limited(p);
    await control('POST', `/__sandbox/partners/${p.parent}/clock/advance`, { seconds: 86_400 });
    await expired(p);
  });

  it("the global clock moved past the token's expiry: 401 token_expired", async () => {
    await serve(1);
    const p = await partner('pa_early_global_clock');
    await limited(p);
    await control('POST', '/__sandbox/clock/advance', { seconds: 86_400 });
    await expired(p);
  });

  it('a partner reset keeps its credentials: its token is still past the limit, answered early', async () => {
    await serve(1);
    const p = await partner('pa_early_reset');
    await limited(p);
    await control('POST', `/__sandbox/partners/${p.parent}/reset`, {});
    const before = answered();
    expect((await raw('GET', MAPPINGS, p.headers)).status).toBe(429);
    expect(answered()).toBe(before + 1);
  });

  const gone = async (p: { headers: Record<string, string> }) => {
    const before = answered();
    const res = await raw('GET', MAPPINGS, p.headers);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(answered()).toBe(before);
  };

  it('the whole sandbox reset: the token is unknown, 401', async () => {
    await serve(1);
    const p = await partner('pa_early_global_reset');
    await limited(p);
    await control('POST', '/__sandbox/reset', {});
    await gone(p);
  });

  it('a snapshot from before the token restored: the token is unknown, 401', async () => {
    await serve(1);
    await control('POST', '/__sandbox/snapshots', { name: 'before' });
    const p = await partner('pa_early_restore');
    await limited(p);
    await control('POST', '/__sandbox/snapshots/before/restore', {});
    await gone(p);
  });

  it('the partner replaced by an import of its bundle: its tokens are gone, 401', async () => {
    await serve(1);
    const p = await partner('pa_early_import');
    await limited(p);
    const bundle = await control('GET', `/__sandbox/partners/${p.parent}/bundle`);
    await control('POST', '/__sandbox/bundles', bundle);
    await gone(p);
  });

  it("a Pact state's planted token forgotten at its teardown: 401; planted again for another partner, that partner's bucket", async () => {
    await serve(1);
    const state = (action: string, parent: string) =>
      control('POST', '/__sandbox/pact/states', {
        state: 'a partner',
        params: { parent_account_id: parent, access_token: 'planted-token' },
        action,
      });
    await state('setup', 'pa_early_pact');
    const p = {
      headers: { Authorization: 'Bearer planted-token', 'X-Platform-Parent-Account-Id': 'pa_early_pact' },
    };
    expect((await raw('GET', MAPPINGS, p.headers)).status).toBe(200); // 1 of 1
    await limited(p);
    await state('teardown', 'pa_early_pact');
    await gone(p);
    // The same string planted for another partner: its own bucket, served (not answered early).
    await state('setup', 'pa_early_pact_2');
    const before = answered();
    const other = {
      Authorization: 'Bearer planted-token',
      'X-Platform-Parent-Account-Id': 'pa_early_pact_2',
    };
    expect((await raw('GET', MAPPINGS, other)).status).toBe(200);
    expect(answered()).toBe(before);
  });

  it('the bucket refilled: the call is served by the app, and the note forgotten', async () => {
    await serve(1);
    const p = await partner('pa_early_refill');
    await limited(p);
    now += 1_000_000; // one call back in the bucket
    const before = answered();
    expect((await raw('GET', MAPPINGS, p.headers)).status).toBe(200);
    // Past it again: through the app once (noted again), then early.
    await limited(p);
    expect(answered()).toBe(before + 1);
  });
});
