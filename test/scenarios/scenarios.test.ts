/**
 * Fault injection (docs/fault-injection.md): every built-in scenario on every endpoint (through the
 * shared suite in scenarios.case.ts), the auth-propagation window as a real client meets
 * it, stale-content-hash recovery, unseeded mappings, bad names and values, precedence of
 * header over armed and account over parent, `times` counting, and presets.
 */
import { describe, expect, it } from 'vitest';
import {
  EXPIRED_TOKEN_MESSAGE,
  mappingNotSeededMessage,
  PROPAGATION_MESSAGE,
  partialFailureMessage,
  STALE_CONTENT_HASH_MESSAGE,
  unmappedPairsEmptyMappingMessage,
} from '../../src/contract/api/messages.js';
import { BUILT_IN_NAMES } from '../helpers/fixed-names.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  MAPPINGS,
  pair,
  REGISTER,
  type Reply,
  registerBody,
  STATUS,
} from '../helpers/harness.js';
import {
  APPLIED,
  expectNothingApplied,
  type Outcome,
  onEveryEndpoint,
  SCENARIO,
  scenarioCases,
} from '../helpers/scenarios.case.js';

type Partner = Awaited<ReturnType<Harness['client']>>;

/** docs/fault-injection.md: the fixed built-in names. */
const PRESET_NAMES = ['flaky-network', 'slow-onboarding', 'support-ticket-day', 'throttled'];

const CONTROLS_BODY = (contentHash: string | null, domain = 'shop.example.com') => ({
  blockedVerticals: [{ partnerVerticalId: 20, partnerSubVerticalId: 2001 }],
  domains: [{ domain }],
  contentHash,
});

async function advance(h: Harness, seconds: number) {
  const res = await h.request('POST', '/__sandbox/clock/advance', { body: { seconds } });
  expect(res.status).toBe(200);
}

async function arm(h: Harness, body: Record<string, unknown>) {
  const res = await h.request('PUT', '/__sandbox/scenarios', { body });
  expect(res.status, res.text).toBe(200);
  return res.body.armed;
}

async function armedList(h: Harness) {
  const res = await h.request('GET', '/__sandbox/scenarios');
  expect(res.status).toBe(200);
  return res.body.armed as { scenario: string; remaining?: number }[];
}

async function adminAccount(h: Harness, accountId: string) {
  const res = await h.request('GET', `/__sandbox/accounts/${accountId}`);
  expect(res.status).toBe(200);
  return res.body;
}

async function currentHash(partner: Partner, accountId: string): Promise<string> {
  return expectOk(await partner.get(CONTROLS(accountId))).marketplace_controls_list.content_hash;
}

function expectPropagation(res: Reply, status: 401 | 403) {
  const body = expectErrorEnvelope(res, status, 'auth_propagation_pending');
  expect(body.message).toBe(PROPAGATION_MESSAGE);
  if (status === 401) expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
}

// ---------------------------------------------------------------------------------------
// The universal faults: every endpoint
// ---------------------------------------------------------------------------------------

const serverErrors = [
  [500, 'internal_error'],
  [502, 'bad_gateway'],
  [503, 'service_unavailable'],
] as const;
for (const [status, code] of serverErrors) {
  scenarioCases('server-error', {
    header: `server-error=${status}`,
    applies: onEveryEndpoint(async (o) => {
      const body = expectErrorEnvelope(o.res!, status, code);
      expect(body.message).toContain('Nothing was applied');
      expect(o.res!.headers.get(APPLIED)).toBe(`server-error=${status}`);
      await expectNothingApplied(o);
    }),
  });
}

scenarioCases('rate-limited', {
  header: 'rate-limited=7',
  applies: onEveryEndpoint(async (o) => {
    const body = expectErrorEnvelope(o.res!, 429, 'rate_limited');
    expect(o.res!.headers.get('retry-after')).toBe('7');
    expect(body.error.details).toEqual({ retry_after_seconds: 7 });
    expect(o.res!.headers.get(APPLIED)).toBe('rate-limited=7');
    await expectNothingApplied(o);
  }),
});

scenarioCases('rate-limited', {
  header: 'rate-limited',
  applies: onEveryEndpoint(async (o) => {
    expectErrorEnvelope(o.res!, 429, 'rate_limited');
    expect(o.res!.headers.get('retry-after')).toBe('1');
    expect(o.res!.headers.get(APPLIED)).toBe('rate-limited=1');
    await expectNothingApplied(o);
  }),
});

scenarioCases('token-expired', {
  applies: onEveryEndpoint(async (o) => {
    const body = expectErrorEnvelope(o.res!, 401, 'token_expired');
    expect(body.message).toBe(EXPIRED_TOKEN_MESSAGE);
    expect(o.res!.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    expect(o.res!.headers.get(APPLIED)).toBe('token-expired');
    await expectNothingApplied(o);
  }),
});

scenarioCases('latency', {
  header: 'latency=150',
  applies: onEveryEndpoint(async (o) => {
    // Node's timers run on the event loop's clock of whole milliseconds, so a 150 ms timer
    // may fire at 149.x ms by performance.now() (seen once on a loaded machine).
    expect(o.ms).toBeGreaterThanOrEqual(149);
    await o.endpoint.expectSuccess(o.ctx, o.res!);
    expect(o.res!.headers.get(APPLIED)).toBe('latency=150');
  }),
});

// ---------------------------------------------------------------------------------------
// The scenarios that apply to some endpoints only
// ---------------------------------------------------------------------------------------

/** auth-propagation on a controls or status call: that call answers the propagation 401 now. */
async function propagationNow(o: Outcome) {
  expectPropagation(o.res!, 401);
  expect(o.res!.headers.get(APPLIED)).toBe('auth-propagation=90');
  await expectNothingApplied(o);
}

scenarioCases('auth-propagation', {
  applies: {
    register: async (o) => {
      const data = expectOk(o.res!);
      expect(o.res!.headers.get(APPLIED)).toBe('auth-propagation=90');
      const created = await o.ctx.send('GET', `/__sandbox/accounts/${data.account_id}`);
      expect(created.body.propagation.pending).toBe(true);
      const clock = await o.ctx.send('GET', '/__sandbox/clock');
      const left = Date.parse(created.body.propagation.ready_at) - Date.parse(clock.body.now);
      expect(left).toBeGreaterThan(85_000);
      expect(left).toBeLessThanOrEqual(90_000);
      expectPropagation(await o.ctx.call('GET', CONTROLS(data.account_id)), 401);
    },
    'controls.get': propagationNow,
    'controls.put': propagationNow,
    'status.get': propagationNow,
    'status.put': propagationNow,
  },
});

scenarioCases('stale-content-hash', {
  applies: {
    'controls.put': async (o) => {
      const body = expectErrorEnvelope(o.res!, 409, 'content_hash_mismatch');
      expect(body.message).toBe(STALE_CONTENT_HASH_MESSAGE);
      expect(o.res!.headers.get(APPLIED)).toBe('stale-content-hash');
      // biome-ignore lint/suspicious/noExplicitAny: control-plane view
      const [before, after] = [o.before, o.after] as any[];
      // The concurrent writer issued a new hash but wrote the same content; this write did nothing.
      expect(after.controls.content_hash).not.toBe(before.controls.content_hash);
      expect(after.controls.version).toBe(before.controls.version + 1);
      expect(after.controls.blocked_internal).toEqual(before.controls.blocked_internal);
      expect(after.controls.domains).toEqual(before.controls.domains);
      expect(after.controls.domains).toEqual([]);
    },
  },
});

scenarioCases('status-partial-failure', {
  applies: {
    'status.put': (o) => {
      const res = o.res!;
      expect(res.status).toBe(200);
      expect(res.body.error.code).toBe('partial_failure');
      expect(res.headers.get(APPLIED)).toBe('status-partial-failure');
      // biome-ignore lint/suspicious/noExplicitAny: control-plane view
      const after = o.after as any;
      const [first, second] = after.variants;
      expect(res.body.error.details).toEqual({ failed_count: 1, variant_count: 2 });
      expect(res.headers.get('x-sandbox-warning')).toContain(first.variant_id);
      expect(res.body.message).toBe(partialFailureMessage(1, 2, 'paused', 'mixed', res.body.request_id));
      expect(res.body.data.status).toBe('mixed');
      expect([first.enabled, second.enabled]).toEqual([true, false]);
      expect(after.status).toBe('mixed');
    },
  },
});

scenarioCases('unseeded-mappings', {
  applies: {
    'mappings.get': (o) => {
      expect(expectOk(o.res!)).toEqual({ vertical_mappings: [] });
      expect(o.res!.headers.get(APPLIED)).toBe('unseeded-mappings');
    },
    register: async (o) => {
      const body = expectErrorEnvelope(o.res!, 400, 'vertical_mapping_not_seeded');
      expect(body.message).toBe(mappingNotSeededMessage(DEMO.parent));
      expect(o.res!.headers.get(APPLIED)).toBe('unseeded-mappings');
      await expectNothingApplied(o);
    },
    'controls.get': (o) => {
      // As a parent whose mapping is really empty reads it: no vertical to translate.
      const data = expectOk(o.res!);
      expect(data.translated_verticals).toEqual([]);
      expect(data.marketplace_controls_list.content_hash).toEqual(expect.any(String));
      expect(o.res!.headers.get(APPLIED)).toBe('unseeded-mappings');
      expect(o.after).toEqual(o.before);
    },
    'controls.put': async (o) => {
      const body = expectErrorEnvelope(o.res!, 400, 'vertical_mapping_not_seeded');
      expect(body.message).toBe(unmappedPairsEmptyMappingMessage([pair(10, 1001)], DEMO.parent));
      expect(o.res!.headers.get(APPLIED)).toBe('unseeded-mappings');
      await expectNothingApplied(o);
    },
  },
});

// ---------------------------------------------------------------------------------------
// auth-propagation as a client meets it
// ---------------------------------------------------------------------------------------

describe('auth-propagation: the window opened at register', () => {
  it("register with auth-propagation=90: the account's controls and status calls answer 401, then 403, alternating", async () => {
    const h = createHarness();
    const partner = await h.client();
    const reg = await partner.register({}, { [SCENARIO]: 'auth-propagation=90' });
    const accountId = expectOk(reg).account_id;
    expect(reg.headers.get(APPLIED)).toBe('auth-propagation=90');

    const hash = (await adminAccount(h, accountId)).controls.content_hash;
    const answers = [
      await partner.get(CONTROLS(accountId)),
      await partner.put(CONTROLS(accountId), CONTROLS_BODY(hash)),
      await partner.get(STATUS(accountId)),
      await partner.put(STATUS(accountId), { status: 'paused' }),
      await partner.get(CONTROLS(accountId)),
    ];
    expect(answers.map((r) => r.status)).toEqual([401, 403, 401, 403, 401]);
    answers.forEach((r) => {
      expectPropagation(r, r.status as 401 | 403);
    });
    // Nothing was written meanwhile.
    const view = await adminAccount(h, accountId);
    expect(view.controls.content_hash).toBe(hash);
    expect(view.status).toBe('active');
  });

  it('a client retrying every 20 s of sandbox clock (up to 120 s) succeeds once 90 s have passed', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = expectOk(await partner.register({}, { [SCENARIO]: 'auth-propagation=90' })).account_id;

    const attempts: { at: number; status: number; warning: string | null }[] = [];
    let waited = 0;
    for (;;) {
      const res = await partner.get(CONTROLS(accountId));
      attempts.push({ at: waited, status: res.status, warning: res.headers.get('x-sandbox-warning') });
      if (res.status === 200 || waited >= 120) break;
      expectPropagation(res, res.status as 401 | 403);
      await advance(h, 20);
      waited += 20;
    }
    expect(attempts.map((a) => [a.at, a.status])).toEqual([
      [0, 401],
      [20, 403],
      [40, 401],
      [60, 403],
      [80, 401],
      [100, 200],
    ]);
    // Retries 20 s apart are what the spec advises: no coaching warning.
    expect(attempts.map((a) => a.warning)).toEqual([null, null, null, null, null, null]);
  });

  it('advancing the clock past the window ends it at once (89 s: still pending; 90 s: ready)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = expectOk(await partner.register({}, { [SCENARIO]: 'auth-propagation=90' })).account_id;
    expectPropagation(await partner.get(CONTROLS(accountId)), 401);
    await advance(h, 89);
    expectPropagation(await partner.get(STATUS(accountId)), 403);
    await advance(h, 1);
    expectOk(await partner.get(CONTROLS(accountId)));
    expect(expectOk(await partner.put(STATUS(accountId), { status: 'paused' })).status).toBe('paused');
    expect((await adminAccount(h, accountId)).propagation.pending).toBe(false);
  });

  it('config authPropagationSeconds 60 opens the window on every register without a header', async () => {
    const h = createHarness({ authPropagationSeconds: 60 });
    const partner = await h.client();
    const reg = await partner.register();
    const accountId = expectOk(reg).account_id;
    expect(reg.headers.get(APPLIED)).toBeNull();
    expectPropagation(await partner.get(CONTROLS(accountId)), 401);
    await advance(h, 59);
    expectPropagation(await partner.get(STATUS(accountId)), 403);
    await advance(h, 1);
    expectOk(await partner.get(CONTROLS(accountId)));
    expectOk(await partner.get(STATUS(accountId)));
  });

  it('armed auth-propagation=30 for the parent (times 1) applies at register, not at the mappings GET', async () => {
    const h = createHarness();
    const partner = await h.client();
    const armed = await arm(h, {
      scenario: 'auth-propagation',
      value: 30,
      parent_account_id: DEMO.parent,
      times: 1,
    });
    expect(armed).toMatchObject({
      scenario: 'auth-propagation',
      effects: [{ name: 'auth-propagation', value: 30 }],
      parent_account_id: DEMO.parent,
      remaining: 1,
    });

    const mappings = await partner.get(MAPPINGS);
    expectOk(mappings);
    expect(mappings.headers.get(APPLIED)).toBeNull();
    expect((await armedList(h)).map((a) => a.remaining)).toEqual([1]);

    const reg = await partner.register();
    const accountId = expectOk(reg).account_id;
    expect(reg.headers.get(APPLIED)).toBe('auth-propagation=30');
    expect(await armedList(h)).toEqual([]);

    expectPropagation(await partner.get(CONTROLS(accountId)), 401);
    await advance(h, 30);
    expectOk(await partner.get(CONTROLS(accountId)));

    // Used up: the next account is ready at once.
    const next = await partner.account();
    expectOk(await partner.get(CONTROLS(next)));
  });

  it('register and the mappings GET never answer the propagation error', async () => {
    const h = createHarness();
    const partner = await h.client();
    const body = registerBody();
    const withHeader = { [SCENARIO]: 'auth-propagation=90' };
    const first = await partner.call('POST', REGISTER, { body, headers: withHeader });
    const accountId = expectOk(first).account_id;
    expectPropagation(await partner.get(CONTROLS(accountId)), 401);

    // During the window: the mappings GET and a repeated register (a match) succeed.
    const mappings = await partner.get(MAPPINGS, { [SCENARIO]: 'auth-propagation' });
    expect(expectOk(mappings).vertical_mappings.length).toBeGreaterThan(0);
    expect(mappings.headers.get(APPLIED)).toBeNull();

    const again = await partner.call('POST', REGISTER, { body, headers: withHeader });
    expect(expectOk(again).account_id).toBe(accountId);
    // A new registration with the scenario also succeeds (it only opens that account's window).
    const other = await partner.register({}, { [SCENARIO]: 'auth-propagation=90' });
    expectOk(other);
  });
});

// ---------------------------------------------------------------------------------------
// stale-content-hash and unseeded-mappings as a client meets them
// ---------------------------------------------------------------------------------------

describe('drills that must not touch what a call does not change (issue 14 B15)', () => {
  it('a matched re-register does not report auth-propagation as applied and does not use up an armed count', async () => {
    const h = createHarness();
    const partner = await h.client();
    const body = registerBody();
    expectOk(await partner.register(body));
    await arm(h, { scenario: 'auth-propagation', value: 60, parent_account_id: DEMO.parent, times: 1 });
    const again = await partner.register(body);
    expectOk(again);
    expect(again.headers.get(APPLIED)).toBeNull();
    expect((await armedList(h)).map((a) => a.remaining)).toEqual([1]);
    // The next new account takes it.
    const fresh = await partner.register(registerBody());
    expect(fresh.headers.get(APPLIED)).toBe('auth-propagation=60');
    expect(await armedList(h)).toEqual([]);
  });

  it('stale-content-hash on a dry run changes nothing: the stored hash and version stay, and the dry run shows the clean result', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const hash = await currentHash(partner, accountId);
    const before = await adminAccount(h, accountId);
    const dry = await partner.put(`${CONTROLS(accountId)}?dry_run=true`, CONTROLS_BODY(hash), {
      [SCENARIO]: 'stale-content-hash',
    });
    expect(dry.status).toBe(200);
    expect(dry.body.dry_run).toBe(true);
    expect(dry.headers.get(APPLIED)).toBeNull();
    const after = await adminAccount(h, accountId);
    expect(after.controls.version).toBe(before.controls.version);
    expect(after.controls.content_hash).toBe(before.controls.content_hash);
    expect(await currentHash(partner, accountId)).toBe(hash);
  });
});

describe('stale-content-hash', () => {
  it('the PUT gets 409; a re-read shows a new hash; a retry with it succeeds; the writer left the blocks alone', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const read = expectOk(await partner.get(CONTROLS(accountId)));
    const sent = read.marketplace_controls_list.content_hash;

    const stale = await partner.put(CONTROLS(accountId), CONTROLS_BODY(sent), {
      [SCENARIO]: 'stale-content-hash',
    });
    const body = expectErrorEnvelope(stale, 409, 'content_hash_mismatch');
    expect(body.message).toBe(STALE_CONTENT_HASH_MESSAGE);
    expect(body.error.details).toEqual({ sent_content_hash: sent });
    expect(stale.headers.get(APPLIED)).toBe('stale-content-hash');

    const reread = expectOk(await partner.get(CONTROLS(accountId)));
    const fresh = reread.marketplace_controls_list.content_hash;
    expect(fresh).not.toBe(sent);
    expect(reread.translated_verticals).toEqual(read.translated_verticals);
    expect(reread.marketplace_controls_list.domains).toEqual(read.marketplace_controls_list.domains);

    const retry = expectOk(await partner.put(CONTROLS(accountId), CONTROLS_BODY(fresh)));
    expect(retry.marketplace_controls_list.content_hash).not.toBe(fresh);
    expect(retry.marketplace_controls_list.domains).toEqual([
      { domain: 'shop.example.com', policy: 'Block' },
    ]);
    const stored = await adminAccount(h, accountId);
    expect(stored.controls.content_hash).toBe(retry.marketplace_controls_list.content_hash);
  });
});

describe('unseeded-mappings', () => {
  it('mappings GET is [], register and controls PUT are 400 vertical_mapping_not_seeded; the real mapping is intact', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const real = expectOk(await partner.get(MAPPINGS)).vertical_mappings;
    expect(real.length).toBeGreaterThan(0);
    const header = { [SCENARIO]: 'unseeded-mappings' };

    expect(expectOk(await partner.get(MAPPINGS, header)).vertical_mappings).toEqual([]);
    const reg = expectErrorEnvelope(await partner.register({}, header), 400, 'vertical_mapping_not_seeded');
    expect(reg.message).toBe(mappingNotSeededMessage(DEMO.parent));
    const before = await adminAccount(h, accountId);
    const put = expectErrorEnvelope(
      await partner.put(CONTROLS(accountId), CONTROLS_BODY(null), header),
      400,
      'vertical_mapping_not_seeded',
    );
    expect(put.message).toBe(unmappedPairsEmptyMappingMessage([pair(20, 2001)], DEMO.parent));
    expect(await adminAccount(h, accountId)).toEqual(before);

    expect(expectOk(await partner.get(MAPPINGS)).vertical_mappings).toEqual(real);
    // Seeded as ever: a register without the scenario is accepted.
    expectOk(await partner.register());
  });
});

// ---------------------------------------------------------------------------------------
// Names and values
// ---------------------------------------------------------------------------------------

describe('scenario names and values', () => {
  it('spaces around "," and "=" in the header are ignored', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.get(MAPPINGS, { [SCENARIO]: ' server-error = 502 , latency= 1' });
    expectErrorEnvelope(res, 502, 'bad_gateway');
    expect(res.headers.get(APPLIED)).toBe('latency=1, server-error=502');
  });

  it('an unknown scenario is 400 unknown_scenario listing the known names and presets', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.get(MAPPINGS, { [SCENARIO]: 'no-such-fault' });
    const body = expectErrorEnvelope(res, 400, 'unknown_scenario');
    expect(body.message).toContain('unknown scenario "no-such-fault"');
    for (const name of [...BUILT_IN_NAMES, ...PRESET_NAMES]) expect(body.message).toContain(name);
    expect([...body.error.details.known_scenarios].sort()).toEqual([...BUILT_IN_NAMES].sort());
    expect([...body.error.details.presets].sort()).toEqual(PRESET_NAMES);

    const armed = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'no-such-fault', parent_account_id: DEMO.parent },
    });
    expect(expectErrorEnvelope(armed, 400, 'unknown_scenario').error.details.known_scenarios).toHaveLength(
      BUILT_IN_NAMES.length,
    );
  });

  const badValues = [
    ['latency=abc', ['latency takes an integer 0 to 60000 (milliseconds)', '"abc"']],
    ['server-error=404', ['server-error takes one of 500, 502, 503', '404']],
    ['rate-limited=0', ['rate-limited takes an integer 1 to 3600 (seconds)', 'got 0']],
    ['stale-content-hash=3', ['stale-content-hash takes no value']],
    ['latency=', ['latency takes an integer 0 to 60000 (milliseconds)', 'got ""']],
    ['latency=5,latency=6', ['latency is given more than once']],
    [
      'flaky-network,server-error=500',
      ['server-error is given more than once (directly or through a preset)'],
    ],
  ] as const;
  for (const [header, accepted] of badValues) {
    it(`a bad value (${header}) is 400 naming what is accepted; nothing is applied`, async () => {
      const h = createHarness();
      const partner = await h.client();
      const accountId = await partner.account();
      const res = await partner.put(STATUS(accountId), { status: 'paused' }, { [SCENARIO]: header });
      const body = expectErrorEnvelope(res, 400, 'unknown_scenario');
      for (const text of accepted) expect(body.message).toContain(text);
      expect((await adminAccount(h, accountId)).status).toBe('active');
    });
  }

  it('a bad value when arming is 400 naming the value field', async () => {
    const h = createHarness();
    const res = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'server-error', value: 404, parent_account_id: DEMO.parent },
    });
    const body = expectErrorEnvelope(res, 400, 'validation_error');
    expect(body.error.details.fields).toEqual([
      { field: 'value', message: expect.stringContaining('one of 500, 502, 503') },
    ]);
    // "a string of digits is accepted too" (docs/control-plane.md): digits only, no blank around them.
    for (const value of [' 1', '1 ', '', '1.5', '-1']) {
      const armed = await h.request('PUT', '/__sandbox/scenarios', {
        body: { scenario: 'rate-limited', value, parent_account_id: DEMO.parent },
      });
      expect(expectErrorEnvelope(armed, 400, 'validation_error').error.details.fields[0].field, value).toBe(
        'value',
      );
    }
    const digits = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'rate-limited', value: '2', parent_account_id: DEMO.parent, times: 1 },
    });
    expect(digits.body.armed.effects).toEqual([{ name: 'rate-limited', value: 2 }]);
    await h.request('DELETE', '/__sandbox/scenarios');
    expect(await armedList(h)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------
// Precedence and counting
// ---------------------------------------------------------------------------------------

describe('precedence: header, then armed for the account, then armed for the parent', () => {
  it('the header applies on top of an armed latency=0 for the parent: server-error -> 500', async () => {
    const h = createHarness();
    const partner = await h.client();
    await arm(h, { scenario: 'latency', value: 0, parent_account_id: DEMO.parent });
    const res = await partner.get(MAPPINGS, { [SCENARIO]: 'server-error' });
    expectErrorEnvelope(res, 500, 'internal_error');
    expect(res.headers.get(APPLIED)?.split(', ')).toContain('server-error=500');
  });

  it('header server-error=503 beats armed server-error=502 for the account (the armed entry is not used)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    await arm(h, { scenario: 'server-error', value: 502, account_id: accountId, times: 3 });
    const res = await partner.get(STATUS(accountId), { [SCENARIO]: 'server-error=503' });
    expectErrorEnvelope(res, 503, 'service_unavailable');
    expect(res.headers.get(APPLIED)).toBe('server-error=503');
    expect((await armedList(h)).map((a) => a.remaining)).toEqual([3]);
    expectErrorEnvelope(await partner.get(STATUS(accountId)), 502, 'bad_gateway');
  });

  it('header server-error=503 beats armed server-error=502 for the parent', async () => {
    const h = createHarness();
    const partner = await h.client();
    await arm(h, { scenario: 'server-error', value: 502, parent_account_id: DEMO.parent });
    expectErrorEnvelope(
      await partner.get(MAPPINGS, { [SCENARIO]: 'server-error=503' }),
      503,
      'service_unavailable',
    );
    expectErrorEnvelope(await partner.get(MAPPINGS), 502, 'bad_gateway');
  });

  it('armed for the account (502) beats armed for the parent (503); other accounts get the parent one', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const other = await partner.account();
    await arm(h, { scenario: 'server-error', value: 503, parent_account_id: DEMO.parent });
    await arm(h, { scenario: 'server-error', value: 502, account_id: accountId });
    const mine = await partner.get(CONTROLS(accountId));
    expectErrorEnvelope(mine, 502, 'bad_gateway');
    expect(mine.headers.get(APPLIED)).toBe('server-error=502');
    expectErrorEnvelope(await partner.get(CONTROLS(other)), 503, 'service_unavailable');
  });
});

describe('armed times', () => {
  it('stale-content-hash armed for the parent with times 2: a GET does not use it; two PUTs get 409, the third succeeds', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    await arm(h, { scenario: 'stale-content-hash', parent_account_id: DEMO.parent, times: 2 });

    const hash0 = await currentHash(partner, accountId);
    expect((await armedList(h)).map((a) => a.remaining)).toEqual([2]);

    const first = await partner.put(CONTROLS(accountId), CONTROLS_BODY(hash0));
    expectErrorEnvelope(first, 409, 'content_hash_mismatch');
    expect(first.headers.get(APPLIED)).toBe('stale-content-hash');
    expect((await armedList(h)).map((a) => a.remaining)).toEqual([1]);

    const hash1 = await currentHash(partner, accountId);
    expect(hash1).not.toBe(hash0);
    expectErrorEnvelope(
      await partner.put(CONTROLS(accountId), CONTROLS_BODY(hash1)),
      409,
      'content_hash_mismatch',
    );
    expect(await armedList(h)).toEqual([]);

    const hash2 = await currentHash(partner, accountId);
    const third = await partner.put(CONTROLS(accountId), CONTROLS_BODY(hash2));
    expectOk(third);
    expect(third.headers.get(APPLIED)).toBeNull();
  });

  it('a preset armed with times applies all its effects to each matching request and counts it once (flaky-network times 2: 503, 503, then 200 at once)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    await arm(h, { scenario: 'flaky-network', account_id: accountId, times: 2 });
    const timed = async () => {
      const started = performance.now();
      const res = await partner.get(CONTROLS(accountId));
      return { res, ms: performance.now() - started };
    };
    for (let i = 0; i < 2; i++) {
      const { res, ms } = await timed();
      expectErrorEnvelope(res, 503, 'service_unavailable');
      expect(ms).toBeGreaterThanOrEqual(790);
      expect(res.headers.get(APPLIED)).toBe('latency=800, server-error=503');
    }
    expect(await armedList(h)).toEqual([]);
    const { res, ms } = await timed();
    expectOk(res);
    // no scenario applied, so no 800 ms wait (a bound below the latency, with room for a busy machine)
    expect(res.headers.get(APPLIED)).toBeNull();
    expect(ms).toBeLessThan(790);
  });

  it('flaky-network armed with times 1 fails the next call with its 503 (the latency does not use the entry up alone)', async () => {
    const h = createHarness();
    const partner = await h.client();
    await arm(h, { scenario: 'flaky-network', parent_account_id: DEMO.parent, times: 1 });
    expectErrorEnvelope(await partner.get(MAPPINGS), 503, 'service_unavailable');
    expectOk(await partner.get(MAPPINGS));
  });

  it("a scenario armed for an account does not fire for another partner's call on it: a plain 404, the drill is not used up, and the journal does not file the probe under the account", async () => {
    const h = createHarness();
    const owner = await h.client();
    const accountId = await owner.account();
    await arm(h, { scenario: 'token-expired', account_id: accountId, times: 1 });
    const created = await h.request('POST', '/__sandbox/partners', {
      body: { parent_account_id: 'pa_prober' },
    });
    const prober = await h.client({
      parent: 'pa_prober',
      clientId: created.body.client_id,
      clientSecret: created.body.client_secret,
    });
    const probe = await prober.get(CONTROLS(accountId));
    expectErrorEnvelope(probe, 404, 'account_not_found');
    expect(probe.headers.get(APPLIED)).toBeNull();
    expect((await armedList(h)).map((a) => a.remaining)).toEqual([1]);
    const filed = await h.request('GET', `/__sandbox/requests?account_id=${accountId}`);
    expect(filed.body.requests.map((e: { parent_account_id: string }) => e.parent_account_id)).not.toContain(
      'pa_prober',
    );
    // The owner's next call gets the drill.
    expectErrorEnvelope(await owner.get(CONTROLS(accountId)), 401, 'token_expired');
  });

  it('armed without times stays until DELETE /__sandbox/scenarios', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    await arm(h, { scenario: 'server-error', value: 503, account_id: accountId });
    for (let i = 0; i < 3; i++) {
      expectErrorEnvelope(await partner.get(STATUS(accountId)), 503, 'service_unavailable');
    }
    expect(await armedList(h)).toHaveLength(1);
    const cleared = await h.request('DELETE', '/__sandbox/scenarios');
    expect(cleared.status).toBe(200);
    expect(cleared.body).toEqual({ armed: [] });
    const res = await partner.get(STATUS(accountId));
    expectOk(res);
    expect(res.headers.get(APPLIED)).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------
// Presets
// ---------------------------------------------------------------------------------------

describe('presets', () => {
  it('X-Sandbox-Scenario: throttled is a 429 with Retry-After 2 (applied rate-limited=2)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.get(MAPPINGS, { [SCENARIO]: 'throttled' });
    expectErrorEnvelope(res, 429, 'rate_limited');
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.headers.get(APPLIED)).toBe('rate-limited=2');
  });

  it('support-ticket-day on a status PUT applies status-partial-failure only', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const res = await partner.put(
      STATUS(accountId),
      { status: 'paused' },
      { [SCENARIO]: 'support-ticket-day' },
    );
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe('partial_failure');
    expect(res.headers.get(APPLIED)).toBe('status-partial-failure');
    expect((await adminAccount(h, accountId)).status).toBe('mixed');
  });

  it('GET /__sandbox/scenarios lists the built-ins (value, applies_to) and the presets (effects)', async () => {
    const h = createHarness();
    const res = await h.request('GET', '/__sandbox/scenarios');
    expect(res.status).toBe(200);
    const builtIns = res.body.built_ins as {
      name: string;
      description: string;
      value: string;
      applies_to: string[];
    }[];
    expect(builtIns.map((b) => b.name).sort()).toEqual([...BUILT_IN_NAMES].sort());
    for (const b of builtIns) expect(b.description.length).toBeGreaterThan(10);
    const byName = Object.fromEntries(builtIns.map((b) => [b.name, b]));
    expect(byName['stale-content-hash']).toMatchObject({ value: 'no value', applies_to: ['controls.put'] });
    expect(byName['status-partial-failure']!.applies_to).toEqual(['status.put']);
    expect([...byName['unseeded-mappings']!.applies_to].sort()).toEqual([
      'controls.get',
      'controls.put',
      'mappings.get',
      'register',
    ]);
    expect([...byName['auth-propagation']!.applies_to].sort()).toEqual([
      'controls.get',
      'controls.put',
      'register',
      'status.get',
      'status.put',
    ]);
    expect(byName['auth-propagation']!.value).toContain('default 90');
    expect(byName.latency!.value).toContain('milliseconds');
    expect(byName['server-error']!.value).toContain('500, 502, 503');
    // docs/fault-injection.md: latency, server-error, rate-limited and connection-reset apply to the
    // token endpoint too; token-expired does not.
    for (const name of ['latency', 'server-error', 'rate-limited', 'connection-reset']) {
      expect(byName[name]!.applies_to, name).toHaveLength(8);
      expect(byName[name]!.applies_to, name).toContain('token');
    }
    expect(byName['token-expired']!.applies_to).not.toContain('token');

    const presets = res.body.presets as { name: string; description: string; effects: unknown[] }[];
    expect(presets.map((p) => p.name).sort()).toEqual(PRESET_NAMES);
    const preset = Object.fromEntries(presets.map((p) => [p.name, p]));
    expect(preset.throttled!.effects).toEqual([{ name: 'rate-limited', value: 2 }]);
    expect(preset['flaky-network']!.effects).toEqual([
      { name: 'latency', value: 800 },
      { name: 'server-error', value: 503 },
    ]);
    expect(preset['slow-onboarding']!.effects).toEqual([{ name: 'auth-propagation', value: 120 }]);
    expect(preset['support-ticket-day']!.effects).toEqual([
      { name: 'status-partial-failure' },
      { name: 'stale-content-hash' },
    ]);
    expect(res.body.armed).toEqual([]);
  });

  it('PUT /__sandbox/scenarios arms a preset by name (throttled, times 1)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const armed = await arm(h, { scenario: 'throttled', parent_account_id: DEMO.parent, times: 1 });
    expect(armed.effects).toEqual([{ name: 'rate-limited', value: 2 }]);
    const limited = await partner.get(MAPPINGS);
    expectErrorEnvelope(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('2');
    expectOk(await partner.get(MAPPINGS));
  });

  it('a preset with a value is 400 (armed and in the header)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const armed = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'throttled', value: 3, parent_account_id: DEMO.parent },
    });
    const body = expectErrorEnvelope(armed, 400, 'validation_error');
    expect(body.error.details.fields).toEqual([
      { field: 'value', message: 'preset "throttled" takes no value' },
    ]);
    expect(await armedList(h)).toEqual([]);
    const header = expectErrorEnvelope(
      await partner.get(MAPPINGS, { [SCENARIO]: 'throttled=3' }),
      400,
      'unknown_scenario',
    );
    expect(header.message).toContain('preset "throttled" takes no value');
  });
});

// ---------------------------------------------------------------------------------------
// connection-reset needs a real socket. Kept last in the file: starting @hono/node-server
// replaces the process's global Response, after which app.request() answers of the
// control plane lose the headers set by requestContext (reported as a src bug).
// ---------------------------------------------------------------------------------------

scenarioCases('connection-reset', {
  transport: 'server',
  applies: onEveryEndpoint(async (o) => {
    // The socket closed without an answer: fetch rejects.
    expect(o.res).toBeUndefined();
    expect(o.error).toBeInstanceOf(Error);
    await expectNothingApplied(o);
    // The server keeps serving: the same request without the scenario succeeds.
    await o.endpoint.expectSuccess(o.ctx, await o.endpoint.send(o.ctx));
  }),
});

describe('several scenarios on one request (docs/fault-injection.md): the first met on the path answers', () => {
  it('server-error=503 with rate-limited answers 429, and only rate-limited is reported applied; an armed server-error keeps its count', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = expectOk(await partner.register({})).account_id;
    const both = await partner.get(STATUS(accountId), { [SCENARIO]: 'server-error=503, rate-limited' });
    expectErrorEnvelope(both, 429, 'rate_limited');
    expect(both.headers.get(APPLIED)).toBe('rate-limited=1');

    const armed = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'server-error', value: 503, account_id: accountId, times: 1 },
    });
    expect(armed.status).toBe(200);
    const limited = await partner.get(STATUS(accountId), { [SCENARIO]: 'rate-limited' });
    expectErrorEnvelope(limited, 429, 'rate_limited');
    expect(limited.headers.get(APPLIED)).toBe('rate-limited=1');
    // The armed server-error was not met: it still answers the next call.
    expectErrorEnvelope(await partner.get(STATUS(accountId)), 503, 'service_unavailable');
    expect((await partner.get(STATUS(accountId))).status).toBe(200);
  });

  it('latency=50 with server-error answers 500 after the delay, both reported', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = expectOk(await partner.register({})).account_id;
    const started = performance.now();
    const res = await partner.get(STATUS(accountId), { [SCENARIO]: 'latency=50, server-error' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(49);
    expectErrorEnvelope(res, 500, 'internal_error');
    expect(res.headers.get(APPLIED)).toBe('latency=50, server-error=500');
  });
});
