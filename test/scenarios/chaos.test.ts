/**
 * Chaos profiles (docs/chaos.md, issue 22), in process: the control plane's PUT/GET/DELETE
 * and each 400, reproducibility (the same seed and calls fail the same way, whatever the
 * partner's name or another partner's traffic), only where a scenario applies, never with a
 * header or armed scenario, never the control plane, the evidence (headers, journal,
 * counts), resets, snapshots and bundles. The partner flow over a real socket is in
 * chaos-flow.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { chaosRandom } from '../../src/scenarios/chaos.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  MAPPINGS,
  type Reply,
  STATUS,
} from '../helpers/harness.js';
import { newTenant } from '../helpers/tenants.js';

const APPLIED = 'x-sandbox-scenario-applied';
const CHAOS = 'x-sandbox-chaos';

type Tenant = Awaited<ReturnType<typeof newTenant>>;

async function setChaos(h: Harness, body: Record<string, unknown>) {
  const res = await h.request('PUT', '/__sandbox/chaos', { body });
  expect(res.status, res.text).toBe(200);
  return res.body.profile;
}

async function profiles(h: Harness) {
  const res = await h.request('GET', '/__sandbox/chaos');
  expect(res.status).toBe(200);
  return res.body.profiles as {
    parent_account_id: string | null;
    seed: number;
    calls_seen: number;
    calls_failed: number;
    failed_by_scenario: Record<string, number>;
    positions: Record<string, number>;
    token_positions: Record<string, number>;
  }[];
}

/** What a call met: its status, the scenario applied and the chaos evidence (or "-"). */
const outcome = (res: Reply) =>
  `${res.status} ${res.headers.get(APPLIED) ?? '-'} ${res.headers.get(CHAOS) ?? '-'}`;

/** A fixed sequence of partner calls: reads, status writes with fresh keys, token calls. */
async function sequence(h: Harness, t: Tenant, accountId: string, length = 36): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    let res: Reply;
    switch (i % 6) {
      case 0:
        res = await t.client.get(CONTROLS(accountId));
        break;
      case 1:
        res = await t.client.get(STATUS(accountId));
        break;
      case 2:
        res = await t.client.put(STATUS(accountId), { status: i % 4 ? 'active' : 'paused' });
        break;
      case 3:
        res = await t.client.get(`${MAPPINGS}?parent_account_id=${t.parent}`);
        break;
      case 4:
        res = await h.request('POST', '/oauth/token', {
          raw: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: t.clientId,
            client_secret: t.clientSecret,
          }).toString(),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        });
        break;
      default:
        res = await t.client.put(`${CONTROLS(accountId)}?dry_run=true`, {
          blockedVerticals: [],
          domains: [],
          contentHash: null,
        });
    }
    out.push(outcome(res));
  }
  return out;
}

/**
 * The position `sequence()`'s i-th call has (its 5th of every 6 is a token call, counted in the
 * token calls' own sequence): `call=<n>` or `token_call=<n>`.
 */
function positionOf(i: number): { call: number } | { token_call: number } {
  let calls = 0;
  let tokens = 0;
  for (let j = 0; j <= i; j++) j % 6 === 4 ? tokens++ : calls++;
  return i % 6 === 4 ? { token_call: tokens } : { call: calls };
}
const positionText = (i: number) =>
  Object.entries(positionOf(i))
    .map(([k, v]) => `${k}=${v}`)
    .join('');

describe('PUT /__sandbox/chaos: a bad profile is a 400 naming the field', () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['a rate above 1', { rate: 1.5, seed: 1 }, 'rate', ''],
    ['a negative rate', { rate: -0.1, seed: 1 }, 'rate', ''],
    ['a rate that is not a number', { rate: '0.5', seed: 1 }, 'rate', ''],
    ['no rate', { seed: 1 }, 'rate', ''],
    ['a seed that is not an integer', { rate: 0.5, seed: 1.5 }, 'seed', ''],
    ['a seed that is a string', { rate: 0.5, seed: '42' }, 'seed', ''],
    [
      'an unknown scenario',
      { rate: 0.5, seed: 1, scenarios: ['nope'] },
      'scenarios[0]',
      'unknown scenario "nope"',
    ],
    ...['toString', '__proto__', 'constructor', 'hasOwnProperty'].map(
      (name): [string, Record<string, unknown>, string, string] => [
        `${name} (a property every JavaScript object has)`,
        { rate: 1, seed: 1, scenarios: ['server-error', name] },
        'scenarios[1]',
        `unknown scenario "${name}"`,
      ],
    ),
    [
      'unseeded-mappings',
      { rate: 0.5, seed: 1, scenarios: ['server-error', 'unseeded-mappings'] },
      'scenarios[1]',
      'unseeded-mappings is not a transient failure',
    ],
    [
      'token-expired',
      { rate: 0.5, seed: 1, scenarios: ['token-expired'] },
      'scenarios[0]',
      'token-expired is not a transient failure',
    ],
    [
      'status-partial-failure',
      { rate: 0.5, seed: 1, scenarios: ['status-partial-failure'] },
      'scenarios[0]',
      'status-partial-failure is not a transient failure',
    ],
    [
      'latency (not a failure)',
      { rate: 0.5, seed: 1, scenarios: ['latency'] },
      'scenarios[0]',
      'latency is not a failure',
    ],
    [
      'a preset with a failure that is not transient',
      { rate: 0.5, seed: 1, scenarios: ['support-ticket-day'] },
      'scenarios[0]',
      'preset "support-ticket-day" has status-partial-failure',
    ],
    ['an unknown field', { rate: 0.5, seed: 1, sead: 2 }, 'sead', ''],
  ];
  for (const [what, body, field, message] of cases) {
    it(`${what}: 400 validation_error naming ${field}, nothing set`, async () => {
      const h = createHarness();
      const res = await h.request('PUT', '/__sandbox/chaos', { body });
      const error = expectErrorEnvelope(res, 400, 'validation_error');
      const fields = error.error.details.fields as { field: string; message: string }[];
      expect(fields.map((f) => f.field)).toContain(field);
      if (message) expect(fields.find((f) => f.field === field)!.message).toContain(message);
      expect(await profiles(h)).toEqual([]);
    });
  }

  it('an unknown partner: 404; not JSON: 415', async () => {
    const h = createHarness();
    expectErrorEnvelope(
      await h.request('PUT', '/__sandbox/chaos', {
        body: { rate: 0.1, seed: 1, parent_account_id: 'pa_nobody' },
      }),
      404,
      'not_found',
    );
    const res = await h.request('PUT', '/__sandbox/chaos', {
      raw: '{"rate":0.1,"seed":1}',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(await profiles(h)).toEqual([]);
  });

  it('a preset whose every effect is transient is accepted (flaky-network: latency and a 503)', async () => {
    const h = createHarness();
    const profile = await setChaos(h, { rate: 0.2, seed: 3, scenarios: ['flaky-network', 'rate-limited'] });
    expect(profile).toMatchObject({ scenarios: ['flaky-network', 'rate-limited'], rate: 0.2, seed: 3 });
  });
});

describe('PUT, GET and DELETE /__sandbox/chaos', () => {
  it('answers the profile (defaults filled in), lists it with its counts, replaces and ends it', async () => {
    const h = createHarness();
    const all = await setChaos(h, { rate: 0.25, seed: 42 });
    expect(all).toEqual({
      parent_account_id: null,
      rate: 0.25,
      seed: 42,
      scenarios: [
        'auth-propagation',
        'stale-content-hash',
        'server-error',
        'rate-limited',
        'connection-reset',
      ],
      set_at: expect.any(String),
      from_call: 1,
      calls_seen: 0,
      calls_failed: 0,
      failed_by_scenario: {},
      positions: {},
      token_positions: {},
    });
    await setChaos(h, { rate: 1, seed: 7, scenarios: ['server-error'], parent_account_id: DEMO.parent });
    // A partner's profile replaces its previous one.
    await setChaos(h, { rate: 1, seed: 8, scenarios: ['rate-limited'], parent_account_id: DEMO.parent });
    let list = await profiles(h);
    expect(list.map((p) => [p.parent_account_id, p.seed])).toEqual([
      [null, 42],
      [DEMO.parent, 8],
    ]);

    const ended = await h.request('DELETE', `/__sandbox/chaos?parent_account_id=${DEMO.parent}`);
    expect(ended.status).toBe(200);
    expect(ended.body.profiles.map((p: { seed: number }) => p.seed)).toEqual([42]);
    expectErrorEnvelope(
      await h.request('DELETE', '/__sandbox/chaos?parent_account_id=pa_nobody'),
      404,
      'not_found',
    );
    const none = await h.request('DELETE', '/__sandbox/chaos');
    expect(none.body).toEqual({ profiles: [] });
    list = await profiles(h);
    expect(list).toEqual([]);
  });

  it('a partner profile wins over the one for every partner', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'own');
    const account = await t.client.account();
    await setChaos(h, { rate: 0, seed: 1 });
    await setChaos(h, { rate: 1, seed: 5, scenarios: ['server-error'], parent_account_id: t.parent });
    const res = await t.client.get(STATUS(account));
    expectErrorEnvelope(res, 503, 'service_unavailable');
    const demo = await h.client();
    expect((await demo.get(`${MAPPINGS}?parent_account_id=${DEMO.parent}`)).status).toBe(200);
  });
});

describe('the draw', () => {
  it('is a stateless function of (seed, call): spread over [0, 1), different for other seeds', () => {
    const draws = Array.from({ length: 2000 }, (_, n) => chaosRandom(42, n + 1, 0));
    expect(draws.every((u) => u >= 0 && u < 1)).toBe(true);
    const share = draws.filter((u) => u < 0.1).length / draws.length;
    expect(share).toBeGreaterThan(0.07);
    expect(share).toBeLessThan(0.13);
    expect(chaosRandom(42, 7, 0)).toBe(chaosRandom(42, 7, 0));
    expect(chaosRandom(43, 7, 0)).not.toBe(chaosRandom(42, 7, 0));
    expect(chaosRandom(2 ** 40 + 42, 7, 0)).not.toBe(chaosRandom(42, 7, 0));
  });

  it('the same seed and calls fail the same calls the same way, whatever the partner name and its traffic around', async () => {
    const h = createHarness();
    const a = await newTenant(h, 'alpha');
    const b = await newTenant(h, 'a-much-longer-partner-name');
    const noise = await newTenant(h, 'noise');
    const accountA = await a.client.account();
    const accountB = await b.client.account();
    const accountNoise = await noise.client.account();
    await setChaos(h, { rate: 0.4, seed: 2026 });

    const first = await sequence(h, a, accountA);
    // B runs the same calls while another partner's calls land between each of them.
    const interleaved: string[] = [];
    const original = b.client.get;
    b.client.get = async (path, headers) => {
      await noise.client.get(STATUS(accountNoise));
      return original(path, headers);
    };
    interleaved.push(...(await sequence(h, b, accountB)));
    expect(interleaved).toEqual(first);
    const failed = first.filter((o) => !o.startsWith('200'));
    expect(failed.length).toBeGreaterThan(5);
    expect(first.length - failed.length).toBeGreaterThan(5);
    // Every failure with an answer names its seed and its call: the n-th partnership call of the
    // partner, or its n-th token call (a reset connection has no answer; the journal keeps its evidence).
    first.forEach((o, i) => {
      if (!o.startsWith('200') && !o.startsWith('0 ')) expect(o).toContain(`seed=2026; ${positionText(i)}`);
    });
    expect(first.some((o) => o.startsWith('0 '))).toBe(true);
    // Another seed fails other calls.
    await setChaos(h, { rate: 0.4, seed: 2027, parent_account_id: a.parent });
    expect(await sequence(h, a, accountA)).not.toEqual(first);
  });

  it('draws only what applies: stale-content-hash only on a controls PUT that is no dry run, auth-propagation only on controls and status', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'apply');
    const account = await t.client.account();
    await setChaos(h, { rate: 1, seed: 9, scenarios: ['stale-content-hash', 'auth-propagation'] });
    // Nothing applies to the mappings GET, the register, a token call: never failed.
    for (let i = 0; i < 3; i++) {
      const res = await t.client.get(`${MAPPINGS}?parent_account_id=${t.parent}`);
      expect(outcome(res)).toBe('200 - -');
    }
    expect((await t.client.register()).status).toBe(200);
    // A controls PUT dry run: only auth-propagation applies.
    const dry = await t.client.put(`${CONTROLS(account)}?dry_run=true`, {
      blockedVerticals: [],
      domains: [],
      contentHash: null,
    });
    expect(dry.status).toBe(401);
    expect(dry.headers.get(APPLIED)).toBe('auth-propagation');
    expect(dry.headers.get(CHAOS)).toMatch(/^seed=9; call=\d+$/);
    // The status GET: auth-propagation.
    const status = await t.client.get(STATUS(account));
    expectErrorEnvelope(status, 401, 'auth_propagation_pending');
    expect(status.headers.get(APPLIED)).toBe('auth-propagation');
    const list = await profiles(h);
    expect(list[0]!.failed_by_scenario).toEqual({ 'auth-propagation': 2 });
    expect(list[0]!.positions[t.parent]).toBe(6);
  });

  it('server-error is a 503 and rate-limited a 429 with Retry-After: 1, in the envelope; the token endpoint answers them in RFC 6749 bodies', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'codes');
    const account = await t.client.account();
    await setChaos(h, { rate: 1, seed: 1, scenarios: ['server-error'], parent_account_id: t.parent });
    const failed = await t.client.get(STATUS(account));
    const body = expectErrorEnvelope(failed, 503, 'service_unavailable');
    expect(JSON.stringify(body)).not.toMatch(/chaos|seed/i); // nothing sandbox-only in the body (§8)
    expect(failed.headers.get(APPLIED)).toBe('server-error=503');
    expect(failed.headers.get(CHAOS)).toBe('seed=1; call=1');
    await setChaos(h, { rate: 1, seed: 1, scenarios: ['rate-limited'], parent_account_id: t.parent });
    const limited = await t.client.get(STATUS(account));
    expectErrorEnvelope(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.headers.get(APPLIED)).toBe('rate-limited=1');
    const token = await h.request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: t.clientId, client_secret: t.clientSecret },
    });
    expect(token.status).toBe(429);
    expect(token.body).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    // Token calls are a sequence of their own: this is token call 1 (the partnership call was call 1).
    expect(token.headers.get(CHAOS)).toBe('seed=1; token_call=1');
  });

  it('a drawn preset applies its own effects and values: throttled is a 429 with Retry-After 2, flaky-network 800 ms then a 503', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'presets');
    const account = await t.client.account();
    await setChaos(h, { rate: 1, seed: 2, scenarios: ['throttled'], parent_account_id: t.parent });
    const limited = await t.client.get(STATUS(account));
    expectErrorEnvelope(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.headers.get(APPLIED)).toBe('rate-limited=2');
    await setChaos(h, { rate: 1, seed: 2, scenarios: ['flaky-network'], parent_account_id: t.parent });
    const started = performance.now();
    const flaky = await t.client.get(STATUS(account));
    expect(performance.now() - started).toBeGreaterThanOrEqual(790);
    expectErrorEnvelope(flaky, 503, 'service_unavailable');
    expect(flaky.headers.get(APPLIED)).toBe('latency=800, server-error=503');
    const [profile] = await profiles(h);
    expect(profile!.failed_by_scenario).toEqual({ 'flaky-network': 1 });
    const journal = await h.request('GET', `/__sandbox/requests?parent_account_id=${t.parent}&limit=1`);
    expect(journal.body.requests[0].chaos).toEqual({ seed: 2, call: 1, scenario: 'flaky-network' });
  });

  it('a connection reset (in process: a network error) is journaled with status 0 and its evidence', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'reset');
    const account = await t.client.account();
    await setChaos(h, { rate: 1, seed: 11, scenarios: ['connection-reset'], parent_account_id: t.parent });
    const res = await t.client.get(STATUS(account));
    expect(res.status).toBe(0);
    const journal = await h.request('GET', `/__sandbox/requests?parent_account_id=${t.parent}&limit=1`);
    expect(journal.body.requests[0]).toMatchObject({
      status: 0,
      scenarios_applied: ['connection-reset'],
      chaos: { seed: 11, call: 1, scenario: 'connection-reset' },
    });
  });
});

describe('what chaos never touches', () => {
  it('a call with X-Sandbox-Scenario, or one an armed scenario meets, is counted but never drawn', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'header');
    const account = await t.client.account();
    await setChaos(h, { rate: 1, seed: 4, parent_account_id: t.parent });
    for (let i = 0; i < 4; i++) {
      const res = await t.client.get(STATUS(account), { 'X-Sandbox-Scenario': 'latency=0' });
      expect(outcome(res)).toBe('200 latency=0 -');
    }
    const armed = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'latency', value: 0, parent_account_id: t.parent },
    });
    expect(armed.status).toBe(200);
    for (let i = 0; i < 4; i++) expect(outcome(await t.client.get(STATUS(account)))).toBe('200 latency=0 -');
    await h.request('DELETE', '/__sandbox/scenarios');
    // Disarmed: rate 1 fails the next call.
    expect((await t.client.get(STATUS(account))).headers.get(CHAOS)).toBe('seed=4; call=9');
    const [profile] = await profiles(h);
    expect(profile).toMatchObject({ calls_seen: 9, calls_failed: 1 });
  });

  it('the control plane, health and a token call of an unknown client are no partner calls', async () => {
    const h = createHarness();
    await setChaos(h, { rate: 1, seed: 4 });
    for (const path of [
      '/__sandbox/health',
      '/__sandbox/clock',
      '/__sandbox/chaos',
      '/__sandbox/scenarios',
    ]) {
      for (let i = 0; i < 3; i++) {
        const res = await h.request('GET', path);
        expect(res.status, path).toBe(200);
        expect(res.headers.get(CHAOS)).toBeNull();
      }
    }
    const unknown = await h.request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'nothing' },
    });
    expect(unknown.status).toBe(401);
    // A call without a valid token has no partner either.
    expect(
      (await h.request('GET', STATUS('acct_x'), { headers: { Authorization: 'Bearer nope' } })).status,
    ).toBe(401);
    const [profile] = await profiles(h);
    expect(profile).toMatchObject({ calls_seen: 0, positions: {} });
  });
});

describe('partner IDs a JavaScript object has as properties (__proto__, toString, constructor)', () => {
  it('are partners like any other under chaos: their calls draw, nothing answers 500, no other partner or object is touched', async () => {
    const h = createHarness();
    expect((await h.request('PUT', '/__sandbox/chaos', { body: { rate: 0.5, seed: 3 } })).status).toBe(200);
    for (const parent of ['__proto__', 'toString', 'constructor', 'valueOf']) {
      const created = await h.request('POST', '/__sandbox/partners', { body: { parent_account_id: parent } });
      expect(created.status, created.text).toBe(201);
      const token = (secret: string) =>
        h.request('POST', '/oauth/token', {
          raw: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: created.body.client_id,
            client_secret: secret,
          }).toString(),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        });
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await token(created.body.client_secret)).status);
      expect(
        statuses.every((status) => [200, 429, 503, 0].includes(status)),
        `${parent}: ${statuses}`,
      ).toBe(true);
      expect(statuses).toContain(200);
    }
    // Nothing leaked into Object.prototype (the harness runs in this process).
    expect(Object.hasOwn(Object.prototype, 'calls')).toBe(false);
    expect(({} as Record<string, unknown>).calls).toBeUndefined();
    const listed = await profiles(h);
    expect(Object.keys(listed[0]!.positions).sort()).toEqual([
      '__proto__',
      'constructor',
      'toString',
      'valueOf',
    ]);
    // Eight token calls each: their own sequence; no partnership call yet.
    expect(Object.getOwnPropertyDescriptor(listed[0]!.token_positions, '__proto__')?.value).toBe(8);
    expect(Object.getOwnPropertyDescriptor(listed[0]!.positions, '__proto__')?.value).toBe(0);
    for (const path of ['/__sandbox/health', '/__sandbox/requests', '/__sandbox/partners/__proto__/bundle'])
      expect((await h.request('GET', path)).status, path).toBe(200);
    expect((await h.request('POST', '/__sandbox/partners', { body: {} })).status).toBe(201);
    // Its token call may be failed by chaos; the next one gets through (convergent).
    const demo = await h.client().catch(() => h.client());
    expect([200, 429, 503]).toContain(
      (await demo.get(`${MAPPINGS}?parent_account_id=${DEMO.parent}`)).status,
    );
    expect((await h.request('POST', '/__sandbox/partners/__proto__/reset')).status).toBe(200);
    expect((await h.request('POST', '/__sandbox/reset')).status).toBe(200);
  });
});

describe('convergence and evidence', () => {
  it('right after chaos fails a call, the next call with the same method and path gets through; the key stays free', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'converge');
    const account = await t.client.account();
    await setChaos(h, { rate: 1, seed: 77, scenarios: ['server-error'], parent_account_id: t.parent });
    const key = { 'Idempotency-Key': 'chaos-key-1' };
    const first = await t.client.put(STATUS(account), { status: 'active' }, key);
    expectErrorEnvelope(first, 503, 'service_unavailable');
    // Another operation in between is failed (rate 1) ...
    expect((await t.client.get(STATUS(account))).status).toBe(503);
    // ... and the retry of the PUT with the same key executes (an injected failure stores nothing).
    const retry = await t.client.put(STATUS(account), { status: 'active' }, key);
    expect(expectOk(retry).status).toBe('active');
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.headers.get(CHAOS)).toBeNull();
    // The one after it may fail again: convergence owes one call, not a truce.
    expect((await t.client.put(STATUS(account), { status: 'active' })).status).toBe(503);
  });

  it('the journal records the evidence of every injected call; GET /__sandbox/chaos counts them by scenario', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'journal');
    const account = await t.client.account();
    await setChaos(h, {
      rate: 0.5,
      seed: 123,
      scenarios: ['server-error', 'rate-limited'],
      parent_account_id: t.parent,
    });
    const seen = await sequence(h, t, account, 24);
    const journal = await h.request('GET', `/__sandbox/requests?parent_account_id=${t.parent}&limit=24`);
    const entries = [...journal.body.requests].reverse() as {
      status: number;
      chaos: { seed: number; call?: number; token_call?: number; scenario: string } | null;
      scenarios_applied: string[];
    }[];
    expect(entries).toHaveLength(24);
    const byScenario: Record<string, number> = {};
    entries.forEach((e, i) => {
      if (seen[i]!.startsWith('200')) {
        expect(e.chaos).toBeNull();
        return;
      }
      expect(e.chaos).toEqual({ seed: 123, ...positionOf(i), scenario: expect.any(String) });
      expect(e.scenarios_applied).toHaveLength(1);
      expect(e.scenarios_applied[0]!.startsWith(e.chaos!.scenario)).toBe(true);
      byScenario[e.chaos!.scenario] = (byScenario[e.chaos!.scenario] ?? 0) + 1;
    });
    const [profile] = await profiles(h);
    expect(profile!.calls_seen).toBe(24);
    expect(profile!.failed_by_scenario).toEqual(byScenario);
    expect(profile!.calls_failed).toBe(Object.values(byScenario).reduce((x, y) => x + y, 0));
    expect(profile!.calls_failed).toBeGreaterThan(3);
  });
});

describe('replay: bundles and snapshots carry the profile and the call position', () => {
  /** Controls and status calls only: the scenarios drawn never apply to the token call a new client makes. */
  const settings = { rate: 0.5, seed: 31337, scenarios: ['stale-content-hash', 'auth-propagation'] };

  it('a bundle exported mid-sequence and loaded into a fresh sandbox continues the same sequence', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'bundle');
    const account = await t.client.account();
    await setChaos(h, { ...settings, parent_account_id: t.parent });
    const before = await sequence(h, t, account, 11);
    expect(before.some((o) => o.startsWith('401'))).toBe(true);
    const bundle = await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`);
    expect(bundle.status).toBe(200);
    // 11 calls: 9 partnership calls and token calls 1 and 2 (of the 6-call cycle).
    expect(bundle.body.chaos).toMatchObject({ ...settings, call: 9, token_call: 2 });

    // The rest of the sequence here: a new client (its token call is token call 3), then 18 calls.
    const here = { ...t, client: await h.client(t.creds) };
    const expected = await sequence(h, here, account, 18);

    const fresh = createHarness();
    const loaded = await fresh.request('POST', '/__sandbox/bundles', { body: bundle.body });
    expect(loaded.status, loaded.text).toBe(200);
    const [profile] = await profiles(fresh);
    expect(profile).toMatchObject({
      parent_account_id: t.parent,
      seed: 31337,
      positions: { [t.parent]: 9 },
      token_positions: { [t.parent]: 2 },
    });
    const there = { ...t, client: await fresh.client(t.creds) };
    expect(await sequence(fresh, there, account, 18)).toEqual(expected);
    expect(expected.some((o) => o.includes('call=1'))).toBe(true);
  });

  it('a bundle without a chaos part (written before chaos) loads, and the partner has no profile of its own', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'old');
    await t.client.account();
    const bundle = await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`);
    expect(bundle.body.chaos).toBeNull();
    const { chaos: _none, ...old } = bundle.body;
    for (const entry of old.journal) delete entry.chaos;
    const fresh = createHarness();
    await setChaos(fresh, { rate: 0.3, seed: 1, parent_account_id: DEMO.parent });
    const loaded = await fresh.request('POST', '/__sandbox/bundles', { body: old });
    expect(loaded.status, loaded.text).toBe(200);
    expect((await profiles(fresh)).map((p) => p.parent_account_id)).toEqual([DEMO.parent]);
    const journal = await fresh.request('GET', `/__sandbox/requests?parent_account_id=${t.parent}`);
    expect(journal.body.requests.every((e: { chaos: unknown }) => e.chaos === null)).toBe(true);
  });

  it('a bundle whose profile names a scenario that is no transient failure is a 400 naming it', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'bad');
    await setChaos(h, { ...settings, parent_account_id: t.parent });
    const bundle = await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`);
    bundle.body.chaos.scenarios = ['server-error', 'token-expired'];
    const res = await createHarness().request('POST', '/__sandbox/bundles', { body: bundle.body });
    const error = expectErrorEnvelope(res, 400, 'validation_error');
    expect(error.error.details.fields).toContainEqual({
      field: 'chaos.scenarios[1]',
      message: 'token-expired is not a transient failure a retry can get past',
    });
    // A call position where counting on no longer changes it is no position a run reaches.
    bundle.body.chaos.scenarios = ['server-error'];
    bundle.body.chaos.call = Number.MAX_SAFE_INTEGER;
    const far = await createHarness().request('POST', '/__sandbox/bundles', { body: bundle.body });
    expect(
      expectErrorEnvelope(far, 400, 'validation_error').error.details.fields.map(
        (f: { field: string }) => f.field,
      ),
    ).toEqual(['chaos.call']);
  });

  it('a snapshot restores the profiles and positions: the same calls after the restore fail the same way', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'snap');
    const account = await t.client.account();
    await setChaos(h, { ...settings, parent_account_id: t.parent });
    await sequence(h, t, account, 5);
    expect((await h.request('POST', '/__sandbox/snapshots', { body: { name: 'mid' } })).status).toBe(201);
    const first = await sequence(h, t, account, 12);
    const [after] = await profiles(h);
    expect(after!.positions[t.parent]).toBe(14); // 17 calls, 3 of them token calls
    expect((await h.request('POST', '/__sandbox/snapshots/mid/restore')).status).toBe(200);
    const [restored] = await profiles(h);
    expect(restored!.positions[t.parent]).toBe(4);
    expect(await sequence(h, t, account, 12)).toEqual(first);
  });

  it('POST /__sandbox/reset ends the profiles; a partner reset ends its own and starts its sequence over', async () => {
    const h = createHarness();
    const a = await newTenant(h, 'ra');
    const b = await newTenant(h, 'rb');
    const account = await a.client.account();
    await setChaos(h, { rate: 0, seed: 5 });
    await setChaos(h, { rate: 1, seed: 5, parent_account_id: b.parent });
    await sequence(h, a, account, 3);
    let list = await profiles(h);
    expect(list[0]!.positions[a.parent]).toBe(3);
    const reset = await h.request('POST', `/__sandbox/partners/${a.parent}/reset`);
    expect(reset.status).toBe(200);
    const resetB = await h.request('POST', `/__sandbox/partners/${b.parent}/reset`);
    expect(resetB.status).toBe(200);
    list = await profiles(h);
    expect(list.map((p) => p.parent_account_id)).toEqual([null]);
    expect(list[0]!.positions).toEqual({});
    expect((await h.request('POST', '/__sandbox/reset')).status).toBe(200);
    expect(await profiles(h)).toEqual([]);
  });
});

describe('the report grades resilience', () => {
  it('a failure never retried, and a 429 retried before its Retry-After, fail their scenario; JSON and JUnit', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'graded');
    const account = await t.client.account();
    await setChaos(h, { rate: 1, seed: 3, scenarios: ['server-error'], parent_account_id: t.parent });
    const failed = await t.client.get(STATUS(account));
    expect(failed.status).toBe(503);
    await setChaos(h, { rate: 1, seed: 3, scenarios: ['rate-limited'], parent_account_id: t.parent });
    const limited = await t.client.get(CONTROLS(account));
    expect(limited.status).toBe(429);
    const tooSoon = await t.client.get(CONTROLS(account));
    expect(tooSoon.status).toBe(200);

    const res = await h.request('GET', `/__sandbox/report?parent_account_id=${t.parent}`);
    expect(res.status).toBe(200);
    expect(res.body.resilience).toEqual([
      {
        scenario: 'rate-limited',
        injected: 1,
        recovered: 0,
        recovered_by_http_client: 0,
        outcome: 'failed',
        evidence: [
          expect.stringMatching(
            new RegExp(
              `^call 1: GET ${CONTROLS(account)} -> 429 \\(request_id ${limited.body.request_id}\\): retried after 0\\.\\d\\d s, before its Retry-After of 1 s \\(request_id ${tooSoon.body.request_id}\\)$`,
            ),
          ),
        ],
      },
      {
        scenario: 'server-error',
        injected: 1,
        recovered: 0,
        recovered_by_http_client: 0,
        outcome: 'failed',
        evidence: [
          `call 1: GET ${STATUS(account)} -> 503 (request_id ${failed.body.request_id}): never called again`,
        ],
      },
    ]);
    const junit = await h.request('GET', `/__sandbox/report?parent_account_id=${t.parent}&format=junit`);
    expect(junit.text).toContain('Recovered from chaos: server-error (0 of 1)');
    expect(junit.text).toMatch(/<testsuite name="[^"]+ resilience" tests="2" failures="2"/);
    const suite = junit.text.slice(junit.text.indexOf(' resilience"'));
    expect(suite.match(/<testcase /g)).toHaveLength(2);
    expect(suite.match(/<failure /g)).toHaveLength(2);
    // The checks grade the same calls too: 429 and 5xx answers retried (429 after Retry-After).
    expect(res.body.checks.find((c: { id: string }) => c.id === 'retried-429-5xx').outcome).toBe('failed');

    // The failed status GET, retried now, recovers: its scenario passes.
    await h.request('DELETE', '/__sandbox/chaos');
    expect((await t.client.get(STATUS(account))).status).toBe(200);
    const later = await h.request('GET', `/__sandbox/report?parent_account_id=${t.parent}`);
    expect(later.body.resilience[1]).toMatchObject({
      scenario: 'server-error',
      recovered: 1,
      outcome: 'passed',
    });
  });

  it('a reset the HTTP library resent at once is graded "recovered by the HTTP client, not seen by the caller", not passed; a retry that backed off passes', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'resent');
    const account = await t.client.account();
    await setChaos(h, { rate: 1, seed: 11, scenarios: ['connection-reset'], parent_account_id: t.parent });
    const cut = await t.client.get(STATUS(account), { 'User-Agent': 'GuzzleHttp/7' });
    expect(cut.status).toBe(0);
    // The library's resend: the same request a few ms later (chaos spares the next call of the same path).
    const resent = await t.client.get(STATUS(account), { 'User-Agent': 'GuzzleHttp/7' });
    expect(resent.status).toBe(200);
    expect(resent.headers.get('x-sandbox-warning')).toMatch(/connection-reset drill cut off \d+ ms ago/);

    const res = await h.request('GET', `/__sandbox/report?parent_account_id=${t.parent}`);
    expect(res.status).toBe(200);
    expect(res.body.resilience).toEqual([
      {
        scenario: 'connection-reset',
        injected: 1,
        recovered: 0,
        recovered_by_http_client: 1,
        outcome: 'recovered_by_http_client',
        evidence: [
          expect.stringMatching(
            new RegExp(
              `^call 1: GET ${STATUS(account)} -> reset \\(request_id \\S+\\): recovered by the HTTP client, not seen by the caller: the library resent it at once, request_id ${resent.body.request_id} -> 200$`,
            ),
          ),
        ],
      },
    ]);
    const junit = await h.request('GET', `/__sandbox/report?parent_account_id=${t.parent}&format=junit`);
    expect(junit.text).toMatch(/<testsuite name="[^"]+ resilience" tests="1" failures="0" skipped="1"/);
    expect(junit.text).toContain(
      '<skipped message="1 of 1 recovered by the HTTP client, not seen by the caller"/>',
    );

    // Another partner whose caller saw the reset and retried after backing off 150 ms: passed.
    const u = await newTenant(h, 'backed-off');
    const other = await u.client.account();
    await setChaos(h, { rate: 1, seed: 11, scenarios: ['connection-reset'], parent_account_id: u.parent });
    expect((await u.client.get(STATUS(other))).status).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const retried = await u.client.get(STATUS(other));
    expect(retried.status).toBe(200);
    expect(retried.headers.get('x-sandbox-warning')).toBeNull();
    const graded = await h.request('GET', `/__sandbox/report?parent_account_id=${u.parent}`);
    expect(graded.body.resilience).toEqual([
      expect.objectContaining({
        scenario: 'connection-reset',
        injected: 1,
        recovered: 1,
        recovered_by_http_client: 0,
        outcome: 'passed',
      }),
    ]);
  });

  it('without chaos the resilience part is empty and the JUnit form has no resilience suite', async () => {
    const h = createHarness();
    const demo = await h.client();
    await demo.account();
    const res = await h.request('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}`);
    expect(res.body.resilience).toEqual([]);
    const junit = await h.request('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}&format=junit`);
    expect(junit.text).not.toContain('resilience');
  });
});

describe('a rate-0 profile', () => {
  it('fails nothing, counts every call, and still gives the operation chaos failed its owed pass', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'rate0');
    const account = await t.client.account();
    await setChaos(h, { rate: 1, seed: 5, scenarios: ['server-error'], parent_account_id: t.parent });
    expect((await t.client.get(STATUS(account))).status).toBe(503);
    const bundle = await h.request('GET', `/__sandbox/partners/${t.parent}/bundle`);
    const owed = `GET ${STATUS(account)}`;
    expect(bundle.body.chaos).toMatchObject({ rate: 1, call: 1, owed: [owed] });
    // The same partner on a laptop, its profile now at rate 0: the pass it is owed is kept.
    const laptop = createHarness();
    const body = { ...bundle.body, chaos: { ...bundle.body.chaos, rate: 0 } };
    expect((await laptop.request('POST', '/__sandbox/bundles', { body })).status).toBe(200);
    const there = await laptop.client(t.creds);
    const chaosThere = async () =>
      (await laptop.request('GET', `/__sandbox/partners/${t.parent}/bundle`)).body.chaos;
    expect(outcome(await there.get(CONTROLS(account)))).toBe('200 - -');
    expect(await chaosThere()).toMatchObject({ rate: 0, call: 2, owed: [owed] });
    expect(outcome(await there.get(STATUS(account)))).toBe('200 - -');
    expect(await chaosThere()).toMatchObject({ rate: 0, call: 3, owed: [] });
    // The journal (newest first): the two calls at rate 0 carry no chaos, the imported 503 its own.
    const journal = (await laptop.request('GET', `/__sandbox/requests?parent_account_id=${t.parent}`)).body;
    const [status, controls] = journal.requests;
    expect([status.chaos, status.path, controls.chaos, controls.path]).toEqual([
      null,
      STATUS(account),
      null,
      CONTROLS(account),
    ]);
    expect(journal.requests.map((r: { chaos: unknown }) => r.chaos)).toContainEqual({
      seed: 5,
      call: 1,
      scenario: 'server-error',
    });
  });
});
