/**
 * A real retry library against a listening sandbox (issue 14, "keep them fixed"): ky
 * honours `Retry-After` on a 429 (the rate-limited scenario, armed on the control plane for
 * one request) and on the 409 idempotency_key_in_progress (the same key sent while the
 * first request is held in flight with the latency scenario), then succeeds: the 429's
 * write executes once on the retry, the 409's retry replays the first request's answer.
 */
import { randomUUID } from 'node:crypto';
import ky, { HTTPError, type Options } from 'ky';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { DEMO, REGISTER, registerBody, STATUS, testConfig } from '../helpers/harness.js';

let server: Running;
let headers: Record<string, string>;

beforeAll(async () => {
  server = await startServer(testConfig({ port: 0, host: '127.0.0.1' }));
  const token = await ky
    .post(`${server.url}/oauth/token`, {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: DEMO.clientId,
        client_secret: DEMO.clientSecret,
      }),
    })
    .json<{ access_token: string }>();
  headers = { Authorization: `Bearer ${token.access_token}`, 'X-Platform-Parent-Account-Id': DEMO.parent };
});
afterAll(() => server?.close());

async function register(): Promise<string> {
  const body = await ky
    .post(`${server.url}${REGISTER}`, { headers, json: registerBody() })
    .json<{ data: { account_id: string } }>();
  return body.data.account_id;
}

async function arm(scenario: Record<string, unknown>) {
  const res = await fetch(`${server.url}/__sandbox/scenarios`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(scenario),
  });
  expect(res.status).toBe(200);
}

interface Attempt {
  at: number;
  status: number;
  retryAfter: string | null;
  code: string | undefined;
}

/** A ky instance that records every attempt (time, status, Retry-After, error code). */
function recorded(retry: Options['retry']) {
  const attempts: Attempt[] = [];
  let sentAt = 0;
  const client = ky.create({
    retry,
    timeout: 10_000,
    hooks: {
      // ky 2 runs beforeRequest once per call and beforeRetry before each retry: both mark a send.
      beforeRequest: [
        () => {
          sentAt = performance.now();
        },
      ],
      beforeRetry: [
        () => {
          sentAt = performance.now();
        },
      ],
      afterResponse: [
        async ({ response }) => {
          const body = (await response.json().catch(() => null)) as {
            error?: { code?: string } | string | null;
          } | null;
          const code = typeof body?.error === 'string' ? body.error : (body?.error?.code ?? undefined);
          attempts.push({
            at: sentAt,
            status: response.status,
            retryAfter: response.headers.get('retry-after'),
            code,
          });
        },
      ],
    },
  });
  const gaps = () => attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
  return { client, attempts, gaps };
}

interface JournalEntry {
  status: number;
  time: string;
  scenarios_applied: string[];
  request_headers: Record<string, string>;
}
async function journal(query: string): Promise<JournalEntry[]> {
  const res = await fetch(`${server.url}/__sandbox/requests?${query}`);
  return ((await res.json()) as { requests: JournalEntry[] }).requests;
}

describe('ky honours Retry-After', () => {
  it('429 rate-limited (armed for one request): waits Retry-After seconds, then the write executes once', async () => {
    const account = await register();
    await arm({ scenario: 'rate-limited', value: 1, parent_account_id: DEMO.parent, times: 1 });
    const { client, attempts, gaps } = recorded({
      limit: 2,
      methods: ['put'],
      statusCodes: [429, 503],
      afterStatusCodes: [429, 503],
    });
    const key = randomUUID();
    const res = await client.put(`${server.url}${STATUS(account)}`, {
      headers: { ...headers, 'Idempotency-Key': key },
      json: { status: 'paused' },
    });
    const body = await res.json<{ status: number; error: unknown; data: { status: string } }>();

    expect(attempts.map((a) => [a.status, a.retryAfter, a.code])).toEqual([
      [429, '1', 'rate_limited'],
      [200, null, undefined],
    ]);
    // ky's own backoff would have retried after 300 ms: this wait is the Retry-After
    expect(gaps()[0]).toBeGreaterThanOrEqual(950);
    expect(gaps()[0]).toBeLessThan(3000);
    expect(body).toMatchObject({ status: 200, error: null, data: { status: 'paused' } });
    // the 429 applied nothing and left the key free: the retry was executed, not replayed
    expect(res.headers.get('idempotent-replayed')).toBeNull();

    const seen = await journal(`account_id=${account}&method=PUT`);
    expect(seen.map((e) => [e.status, e.scenarios_applied])).toEqual([
      [200, []],
      [429, ['rate-limited=1']],
    ]);
  });

  it('429 on the token endpoint (armed for the parent): a POST retried after Retry-After gets a token', async () => {
    await arm({ scenario: 'rate-limited', value: 1, parent_account_id: DEMO.parent, times: 1 });
    const { client, attempts, gaps } = recorded({
      limit: 2,
      methods: ['post'], // a token grant changes nothing: safe to retry
      statusCodes: [429, 503],
      afterStatusCodes: [429, 503],
    });
    const token = await client
      .post(`${server.url}/oauth/token`, {
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: DEMO.clientId,
          client_secret: DEMO.clientSecret,
        }),
      })
      .json<{ access_token: string; token_type: string }>();
    expect(attempts.map((a) => [a.status, a.retryAfter, a.code])).toEqual([
      [429, '1', 'temporarily_unavailable'],
      [200, null, undefined],
    ]);
    expect(gaps()[0]).toBeGreaterThanOrEqual(950);
    expect(token.token_type).toBe('Bearer');
    expect(token.access_token).toMatch(/^sbx_/);
  });

  it('409 idempotency_key_in_progress: waits Retry-After, then replays the first request’s answer', async () => {
    const account = await register();
    const key = randomUUID();
    const url = `${server.url}${STATUS(account)}`;
    const write = { status: 'paused' };
    // the first request holds the key for 1.5 s
    const first = fetch(url, {
      method: 'PUT',
      headers: {
        ...headers,
        'Content-Type': 'application/json',
        'Idempotency-Key': key,
        'X-Sandbox-Scenario': 'latency=1500',
      },
      body: JSON.stringify(write),
    });
    await new Promise((resolve) => setTimeout(resolve, 600));

    const { client, attempts, gaps } = recorded({
      limit: 2,
      methods: ['put'],
      statusCodes: [409],
      afterStatusCodes: [409],
    });
    const res = await client.put(url, { headers: { ...headers, 'Idempotency-Key': key }, json: write });
    const replayed = await res.json<{ request_id: string; data: { status: string } }>();
    const original = (await (await first).json()) as { request_id: string; data: { status: string } };

    // one or two 409s (depending on when the first request finishes), each with Retry-After: 1
    const waited = attempts.slice(0, -1);
    expect(waited.length).toBeGreaterThanOrEqual(1);
    for (const a of waited)
      expect([a.status, a.retryAfter, a.code]).toEqual([409, '1', 'idempotency_key_in_progress']);
    for (const gap of gaps()) expect(gap).toBeGreaterThanOrEqual(950);
    expect(attempts.at(-1)?.status).toBe(200);

    expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.request_id).toBe(original.request_id);
    expect(replayed.data.status).toBe('paused');
    // the journal saw the first request's 200, ky's 409s and its replay (in completion order)
    const seen = await journal(`account_id=${account}&method=PUT`);
    expect(seen.map((e) => e.status).sort()).toEqual([200, 200, ...waited.map(() => 409)]);
  });

  it('a control: told to ignore Retry-After, ky retries after its own 300 ms backoff', async () => {
    const account = await register();
    await arm({ scenario: 'rate-limited', value: 1, parent_account_id: DEMO.parent, times: 1 });
    const { client, gaps } = recorded({
      limit: 2,
      methods: ['put'],
      statusCodes: [429],
      afterStatusCodes: [], // ignore Retry-After: ky's backoff of 300 ms
    });
    const res = await client.put(`${server.url}${STATUS(account)}`, {
      headers: { ...headers, 'Idempotency-Key': randomUUID() },
      json: { status: 'paused' },
    });
    expect(res.status).toBe(200);
    // below the 1 s Retry-After it was told to ignore, with room for a busy machine
    expect(gaps()[0]).toBeLessThan(950);
  });

  it('a 409 content_hash_mismatch carries no Retry-After (re-read instead of waiting); ky’s defaults do not retry it', async () => {
    const account = await register();
    const controls = `${server.url}/v1/partnership/accounts/${account}/marketplacecontrolslists`;
    const error = await ky
      .put(controls, {
        headers: { ...headers, 'Idempotency-Key': randomUUID(), 'X-Sandbox-Scenario': 'stale-content-hash' },
        json: { blockedVerticals: [], domains: [], contentHash: null },
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(HTTPError);
    const response = (error as HTTPError).response;
    expect(response.status).toBe(409);
    expect(response.headers.get('retry-after')).toBeNull();
    // ky 2 reads the error body into `data` (the response's own body is spent)
    expect(((error as HTTPError).data as { error: { code: string } }).error.code).toBe(
      'content_hash_mismatch',
    );
  });
});
