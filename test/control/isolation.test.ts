/**
 * Test isolation (docs/parallel-tests.md, issue 15): a partner is a full tenant. Its reset and its
 * clock leave every other partner's accounts, keys, tokens, journal and clock intact; its
 * own credentials, mapping and tokens survive its reset; its clock is honoured wherever a
 * call of its reads time; "this call was made N times" is the journal's filtered length.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createControlClient } from '../../src/client/control-client.js';
import { DOT_SEGMENT_MESSAGE } from '../../src/control/dot-segments.js';
import { type Running, startServer } from '../../src/server.js';
import {
  CONTROLS,
  createHarness,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  MAPPINGS,
  STATUS,
  testConfig,
} from '../helpers/harness.js';
import { count, journalLength, newTenant, sleep } from '../helpers/tenants.js';

const DAY_PLUS_ONE = 25 * 3600;

const partnerClock = async (h: Harness, parent: string) => {
  const res = await h.request('GET', `/__sandbox/partners/${parent}/clock`);
  expect(res.status).toBe(200);
  return res.body as {
    parent_account_id: string;
    now: string;
    offset_seconds: number;
    global_offset_seconds: number;
  };
};

const advance = (h: Harness, parent: string, seconds: number) =>
  h.request('POST', `/__sandbox/partners/${parent}/clock/advance`, { body: { seconds } });

describe('two partners interleaved', () => {
  it("A's clock (25 h) and reset leave B's accounts, keys, tokens, journal and clock intact", async () => {
    const h = createHarness();
    const a = await newTenant(h, 'a');
    const b = await newTenant(h, 'b');
    const accountA = await a.client.account();
    const accountB = await b.client.account();
    // The same Idempotency-Key string under each partner (keys are scoped per parent).
    const key = { 'Idempotency-Key': 'shared-key-1' };
    expectOk(await a.client.put(STATUS(accountA), { status: 'paused' }, key));
    expectOk(await b.client.put(STATUS(accountB), { status: 'paused' }, key));
    const journalB = await count(h, { parent_account_id: b.parent });
    expect(journalB).toBeGreaterThan(0);

    // A's clock moves 25 h: A's token expires and its key's window passes; B sees none of it.
    const moved = await advance(h, a.parent, DAY_PLUS_ONE);
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      parent_account_id: a.parent,
      offset_seconds: DAY_PLUS_ONE,
      global_offset_seconds: 0,
    });
    expect((await partnerClock(h, b.parent)).offset_seconds).toBe(0);
    const global = await h.request('GET', '/__sandbox/clock');
    expect(global.body.offset_seconds).toBe(0);
    expect(Date.parse(moved.body.now) - Date.parse(global.body.now)).toBeGreaterThanOrEqual(
      DAY_PLUS_ONE * 1000 - 1000,
    );

    expectErrorEnvelope(await a.client.get(MAPPINGS), 401, 'token_expired');
    expectOk(await b.client.get(MAPPINGS));
    const a2 = await h.client(a.creds);
    const again = await a2.put(STATUS(accountA), { status: 'active' }, key);
    expectOk(again);
    expect(again.headers.get('idempotent-replayed')).toBeNull(); // A's window passed: executed
    const replayB = await b.client.put(STATUS(accountB), { status: 'active' }, key);
    expect(replayB.headers.get('idempotent-replayed')).toBe('true'); // B's did not: replayed
    expect(replayB.body.data.status).toBe('paused'); // the stored answer

    // A's reset: its account, keys, journal and clock go; its credentials, mapping and tokens stay.
    const reset = await h.request('POST', `/__sandbox/partners/${a.parent}/reset`);
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({
      reset: true,
      parent_account_id: a.parent,
      clock: { offset_seconds: 0 },
    });
    expect(await count(h, { parent_account_id: a.parent })).toBe(0);
    expectErrorEnvelope(await h.request('GET', `/__sandbox/accounts/${accountA}`), 404, 'account_not_found');
    expectErrorEnvelope(await a2.get(STATUS(accountA)), 404, 'account_not_found'); // a2's token still valid
    expect(expectOk(await a2.get(MAPPINGS)).vertical_mappings.length).toBeGreaterThan(0); // mapping kept
    expect((await partnerClock(h, a.parent)).offset_seconds).toBe(0);
    await h.client(a.creds); // credentials kept
    const fresh = await a2.put(STATUS(await a2.account()), { status: 'paused' }, key);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull(); // A's keys went

    // B: untouched.
    expectOk(await b.client.get(STATUS(accountB)));
    expect(
      (await b.client.put(STATUS(accountB), { status: 'active' }, key)).headers.get('idempotent-replayed'),
    ).toBe('true');
    expect((await partnerClock(h, b.parent)).offset_seconds).toBe(0);
    // B's journal: what it had plus the four calls made since, nothing removed.
    expect(await count(h, { parent_account_id: b.parent })).toBe(journalB + 4);
    expect(
      h.sandbox.store.db
        .prepare('SELECT count(*) AS n FROM idempotency_keys WHERE parent_account_id = ?')
        .get(b.parent),
    ).toEqual({ n: 1 });
  });

  it("a partner reset disarms that partner's scenarios (parent and account) and no other's", async () => {
    const h = createHarness();
    const a = await newTenant(h, 'a');
    const b = await newTenant(h, 'b');
    const accountA = await a.client.account();
    for (const body of [
      { scenario: 'server-error', value: 503, parent_account_id: a.parent },
      { scenario: 'rate-limited', account_id: accountA },
      { scenario: 'server-error', value: 502, parent_account_id: b.parent },
    ]) {
      expect((await h.request('PUT', '/__sandbox/scenarios', { body })).status).toBe(200);
    }
    await h.request('POST', `/__sandbox/partners/${a.parent}/reset`);
    const armed = (await h.request('GET', '/__sandbox/scenarios')).body.armed;
    expect(armed.map((x: { parent_account_id?: string }) => x.parent_account_id)).toEqual([b.parent]);
    expectOk(await a.client.get(MAPPINGS));
    expectErrorEnvelope(await b.client.get(MAPPINGS), 502, 'bad_gateway');
  });

  it('a partner reset or clock of an unknown partner is 404; seconds are validated', async () => {
    const h = createHarness();
    expectErrorEnvelope(await h.request('POST', '/__sandbox/partners/pa_nobody/reset'), 404, 'not_found');
    expectErrorEnvelope(await h.request('GET', '/__sandbox/partners/pa_nobody/clock'), 404, 'not_found');
    expectErrorEnvelope(await advance(h, 'pa_nobody', 10), 404, 'not_found');
    const a = await newTenant(h, 'a');
    for (const seconds of [0, -5, 'ten']) {
      const res = await advance(h, a.parent, seconds as number);
      expect(expectErrorEnvelope(res, 400, 'validation_error').error.details.fields[0].field).toBe('seconds');
    }
  });

  it("a partner's own clock stays inside 100 years, and leaves the global clock its own 100", async () => {
    const h = createHarness();
    const a = await newTenant(h, 'a');
    const tenYears = 10 * 365 * 86_400;
    for (let i = 0; i < 10; i++) expect((await advance(h, a.parent, tenYears)).status).toBe(200);
    const over = expectErrorEnvelope(await advance(h, a.parent, 1), 400, 'validation_error');
    expect(over.message).toContain(`POST /__sandbox/partners/${a.parent}/reset`);
    // The global clock has its own 100 years: a partner's moves take none of them.
    expect(
      (await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: tenYears } })).status,
    ).toBe(200);
    expect((await partnerClock(h, a.parent)).offset_seconds).toBe(10 * tenYears);
    expect((await h.request('POST', `/__sandbox/partners/${a.parent}/reset`)).status).toBe(200);
    expect((await advance(h, a.parent, tenYears)).status).toBe(200);
  });

  it('the global reset sets every partner clock back to 0', async () => {
    const h = createHarness();
    await advance(h, 'pa_demo_platform', 3600);
    expect((await partnerClock(h, 'pa_demo_platform')).offset_seconds).toBe(3600);
    await h.request('POST', '/__sandbox/reset');
    expect((await partnerClock(h, 'pa_demo_platform')).offset_seconds).toBe(0);
  });
});

describe("a partner's clock is honoured for its calls", () => {
  it('propagation: 90 s on one partner clock readies its account, not the other partner account', async () => {
    const h = createHarness();
    const a = await newTenant(h, 'a');
    const b = await newTenant(h, 'b');
    const propagation = { 'X-Sandbox-Scenario': 'auth-propagation=90' };
    const accountA = expectOk(await a.client.register({}, propagation)).account_id;
    const accountB = expectOk(await b.client.register({}, propagation)).account_id;
    expect((await a.client.get(CONTROLS(accountA))).status).toBe(401);
    await advance(h, a.parent, 91);
    expectOk(await a.client.get(CONTROLS(accountA)));
    expect([401, 403]).toContain((await b.client.get(CONTROLS(accountB))).status);
    const view = await h.request('GET', `/__sandbox/accounts/${accountB}`);
    expect(view.body.propagation.pending).toBe(true);
    expect((await h.request('GET', `/__sandbox/accounts/${accountA}`)).body.propagation.pending).toBe(false);
  });

  it('timestamps it writes and the journal entry carry the partner time; the global time stays in `time`', async () => {
    const h = createHarness();
    const a = await newTenant(h, 'a');
    await advance(h, a.parent, 7 * 86_400);
    const before = Date.now();
    const client = await h.client(a.creds); // the tenant's first token expired with the week
    const accountId = await client.account();
    const view = await h.request('GET', `/__sandbox/accounts/${accountId}`);
    const created = Date.parse(view.body.account.created_at);
    expect(created - before).toBeGreaterThanOrEqual(7 * 86_400_000 - 1000);
    expect(created - before).toBeLessThan(7 * 86_400_000 + 60_000);
    const write = await client.put(STATUS(accountId), { status: 'paused' });
    expectOk(write);
    expect(Date.parse(view.body.variants[0].created_at)).toBe(created);
    expect(
      Date.parse((await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.last_status_write.at),
    ).toBeGreaterThanOrEqual(created);

    const journal = await h.request('GET', `/__sandbox/requests?parent_account_id=${a.parent}&limit=1`);
    const entry = journal.body.requests[0];
    const skew = Date.parse(entry.partner_time) - Date.parse(entry.time);
    expect(skew).toBe(7 * 86_400_000);
    // An unauthenticated call has no partner time.
    await h.request('GET', MAPPINGS);
    const anon = (await h.request('GET', '/__sandbox/requests?limit=1')).body.requests[0];
    expect(anon.parent_account_id).toBeNull();
    expect(anon.partner_time).toBeNull();
  });

  it('a token is issued on the partner clock: advancing the global clock later expires it, its reset does not', async () => {
    const h = createHarness();
    const a = await newTenant(h, 'a');
    await advance(h, a.parent, 7200);
    const c = await h.client(a.creds); // expires at partner time + 1 h
    await h.request('POST', `/__sandbox/partners/${a.parent}/reset`); // partner time back by 2 h
    expectOk(await c.get(MAPPINGS)); // still valid (3 h of headroom now)
    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 3 * 3600 + 60 } });
    expectErrorEnvelope(await c.get(MAPPINGS), 401, 'token_expired');
  });
});

describe('a partner reset is atomic with respect to its requests', () => {
  it("A's writes held in flight across A's reset start over (404: the account went); B's in flight complete and keep their key", async () => {
    const h = createHarness();
    const a = await newTenant(h, 'a');
    const b = await newTenant(h, 'b');
    const accountA = await a.client.account();
    const accountB = await b.client.account();
    const latency = { 'X-Sandbox-Scenario': 'latency=150' };
    const inFlightA = a.client.put(
      STATUS(accountA),
      { status: 'paused' },
      { ...latency, 'Idempotency-Key': 'ka' },
    );
    const inFlightB = b.client.put(
      STATUS(accountB),
      { status: 'paused' },
      { ...latency, 'Idempotency-Key': 'kb' },
    );
    await sleep(50);
    expect((await h.request('POST', `/__sandbox/partners/${a.parent}/reset`)).status).toBe(200);
    const [resA, resB] = await Promise.all([inFlightA, inFlightB]);
    expectErrorEnvelope(resA, 404, 'account_not_found');
    expect(expectOk(resB).status).toBe('paused');
    // B's key was completed, not left in progress by a restart: the retry replays.
    const retry = await b.client.put(STATUS(accountB), { status: 'paused' }, { 'Idempotency-Key': 'kb' });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(
      h.sandbox.store.db
        .prepare("SELECT count(*) AS n FROM idempotency_keys WHERE state = 'in_progress'")
        .get(),
    ).toEqual({ n: 0 });
  });
});

describe('POST /__sandbox/requests/count', () => {
  async function traffic(h: Harness) {
    const a = await newTenant(h, 'a');
    const b = await newTenant(h, 'b');
    const accountA = await a.client.account({ brand: 'Count Brand' });
    const accountB = await b.client.account();
    for (let i = 0; i < 3; i++) await a.client.put(STATUS(accountA), { status: i % 2 ? 'active' : 'paused' });
    await a.client.get(STATUS(accountA), { 'X-Trace': 'trace-1' });
    await a.client.get(STATUS(accountA), { 'X-Trace': 'trace-2' });
    await b.client.get(STATUS(accountB), { 'X-Trace': 'trace-1' });
    await b.client.get(STATUS('acct_missing'));
    return { a, b, accountA, accountB };
  }

  it('matches exactly the length of the journal filtered the same way', async () => {
    const h = createHarness();
    const { a, b, accountA } = await traffic(h);
    const filters: Record<string, string>[] = [
      {},
      { parent_account_id: a.parent },
      { parent_account_id: b.parent },
      { account_id: accountA },
      { method: 'put' },
      { method: 'GET', parent_account_id: b.parent },
      { path: '/status' },
      { path: '/oauth/token' },
      { status: '404' },
      { status: '200', account_id: accountA, method: 'PUT' },
    ];
    for (const filter of filters) {
      const expected = await journalLength(h, filter);
      const status = filter.status === undefined ? {} : { status: Number(filter.status) };
      expect(await count(h, { ...filter, ...status }), JSON.stringify(filter)).toBe(expected);
    }
    expect(await count(h, { account_id: accountA, method: 'PUT' })).toBe(3);
    const since = new Date(Date.now() + 60_000).toISOString();
    expect(await count(h, { since })).toBe(0);
  });

  it('matches a header by name (any case), and by its value as sent, secrets included but never shown', async () => {
    const h = createHarness();
    const { a } = await traffic(h);
    expect(await count(h, { header: { name: 'x-trace' } })).toBe(3);
    expect(await count(h, { header: { name: 'X-Trace', value: 'trace-1' } })).toBe(2);
    expect(
      await count(h, { header: { name: 'X-Trace', value: 'trace-1' }, parent_account_id: a.parent }),
    ).toBe(1);
    expect(await count(h, { header: { name: 'X-Trace', value: 'TRACE-1' } })).toBe(0);
    // "Were these calls made with this token?": the raw Authorization header.
    const withToken = await count(h, {
      header: { name: 'authorization', value: `Bearer ${a.client.token}` },
    });
    expect(withToken).toBe(await count(h, { parent_account_id: a.parent, path: '/v1/' }));
    expect(await count(h, { header: { name: 'authorization', value: 'Bearer [REDACTED]' } })).toBe(0);
  });

  it('body_contains matches the body as the journal shows it (redacted, compact JSON)', async () => {
    const h = createHarness();
    const { a } = await traffic(h);
    expect(await count(h, { body_contains: '"brand":"Count Brand"' })).toBe(1);
    expect(await count(h, { body_contains: '"status":"paused"', parent_account_id: a.parent })).toBe(2);
    expect(await count(h, { body_contains: 'client_secret=[REDACTED]' })).toBe(2); // the two token grants
    // A secret is not searchable: a client secret sent in a token body is not matched.
    expect(await count(h, { body_contains: a.clientSecret.slice(0, 12) })).toBe(0);
  });

  it('rejects a bad filter with 400 naming the field', async () => {
    const h = createHarness();
    for (const [body, field] of [
      [{ status: 'two hundred' }, 'status'],
      [{ header: { name: 'bad header' } }, 'header.name'],
      [{ header: { value: 'x' } }, 'header.name'],
      [{ body_contains: '' }, 'body_contains'],
      [{ limit: 3 }, 'limit'],
    ] as const) {
      const res = await h.request('POST', '/__sandbox/requests/count', { body });
      const err = expectErrorEnvelope(res, 400, 'validation_error');
      expect(err.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
  });
});

describe('a dot segment never turns a partner route into a global one (over a real socket)', () => {
  /** One request with its target sent exactly as written (fetch would resolve the dot segments first). */
  const raw = (url: string, method: string, target: string, body?: unknown) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const { hostname, port } = new URL(url);
      const text = body === undefined ? undefined : JSON.stringify(body);
      const req = httpRequest(
        {
          hostname,
          port,
          method,
          path: target,
          headers: text === undefined ? {} : { 'content-type': 'application/json' },
        },
        (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (data += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: data ? JSON.parse(data) : {} }));
        },
      );
      req.on('error', reject);
      req.end(text);
    });

  let server: Running | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('POST /__sandbox/partners/%2E%2E/reset and its kin are 400 naming the path; the other partner, its clock and the global clock stay', async () => {
    server = await startServer(testConfig({ port: 0 }));
    const { url } = server;
    const created = await raw(url, 'POST', '/__sandbox/partners', { parent_account_id: 'pa.survivor' });
    expect(created.status).toBe(201);
    expect(
      (await raw(url, 'POST', '/__sandbox/partners/pa.survivor/clock/advance', { seconds: 60 })).status,
    ).toBe(200);

    for (const [method, target, body] of [
      ['POST', '/__sandbox/partners/%2E%2E/reset'],
      ['POST', '/__sandbox/partners/../reset'],
      ['POST', '/__sandbox/partners/.%2e/reset'],
      ['POST', '/__sandbox/partners/pa.survivor/%2e%2E/%2E%2E/reset'],
      ['POST', '/v1/%2E%2E/__sandbox/reset'],
      ['GET', '/__sandbox/partners/%2E%2E/clock'],
      ['GET', '/__sandbox/partners/%2E/clock'],
      ['POST', '/__sandbox/partners/%2e%2e/clock/advance', { seconds: 1000 }],
      ['POST', '/__sandbox/partners/%2E%2E/reset?x=1'],
    ] as const) {
      const res = await raw(url, method, target, body);
      expect(res.status, target).toBe(400);
      expect(res.body, target).toMatchObject({
        status: 400,
        error: {
          code: 'validation_error',
          details: { fields: [{ field: 'path', message: DOT_SEGMENT_MESSAGE }] },
        },
        data: null,
      });
    }

    const survivor = await raw(url, 'GET', '/__sandbox/partners/pa.survivor/clock');
    expect(survivor.status).toBe(200);
    expect(survivor.body).toMatchObject({ parent_account_id: 'pa.survivor', offset_seconds: 60 });
    expect((await raw(url, 'GET', '/__sandbox/clock')).body.offset_seconds).toBe(0);
    // A dot inside a segment is an ordinary character.
    expect((await raw(url, 'GET', '/__sandbox/partners/pa.survivor/bundle')).status).toBe(200);
  });

  it("the control-plane client refuses '.' and '..' instead of sending what fetch resolves to a global route", async () => {
    server = await startServer(testConfig({ port: 0 }));
    const control = createControlClient(server.url);
    const created = await control.partners.create({ parent_account_id: 'pa_client_survivor' });
    await expect(control.partners.reset('..')).rejects.toThrow(TypeError);
    await expect(control.partners.reset('.')).rejects.toThrow(/"\." and "\.\." are not identifiers/);
    await expect(control.partners.clock.advance('..', 1000)).rejects.toThrow(TypeError);
    await expect(control.bundles.export('..')).rejects.toThrow(TypeError);
    expect((await control.clock.get()).offset_seconds).toBe(0);
    expect((await control.partners.clock.get(created.parent_account_id)).parent_account_id).toBe(
      'pa_client_survivor',
    );
  });
});
