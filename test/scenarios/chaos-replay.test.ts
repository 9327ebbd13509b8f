/**
 * The recipe of docs/chaos.md, end to end (SANDBOX.md section 11, the last item; issue 30 item 3):
 * a CI run under chaos, then the failing test's first call read from the journal, then a rerun
 * of that test alone on a fresh sandbox with `from_call`, which must fail the same calls in the
 * same way, though the rerun first gets a token of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CONTROLS,
  createHarness,
  type Harness,
  MAPPINGS,
  REGISTER,
  registerBody,
  STATUS,
} from '../helpers/harness.js';

const CHAOS = 'x-sandbox-chaos';
const APPLIED = 'x-sandbox-scenario-applied';
const PARENT = 'pa_replayed_partner';
const CLIENT = { client_id: 'replayed-client', client_secret: 'replayed-secret-1' };
const PROFILE = { rate: 0.35, seed: 8128 };

/** A client that follows the spec's advice: any failure is retried once more (chaos never fails the same call twice). */
function retryingClient(h: Harness, token: string) {
  const log: string[] = [];
  const firstIds: string[] = [];
  let key = 0;
  async function call(label: string, method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${token}`,
      'X-Platform-Parent-Account-Id': PARENT,
    };
    if (method !== 'GET') headers['Idempotency-Key'] = `replay-${label}-${++key}`;
    for (let attempt = 1; ; attempt++) {
      const res = await h.request(method, path, body === undefined ? { headers } : { headers, body });
      log.push(
        `${label}#${attempt}: ${res.status} ${res.headers.get(APPLIED) ?? '-'} ${res.headers.get(CHAOS) ?? '-'}`,
      );
      if (attempt === 1) firstIds.push(res.body?.request_id ?? `reset:${label}`);
      if (res.status >= 200 && res.status < 300) return res.body.data;
      if (attempt > 3) throw new Error(`${label} failed 3 times: ${log.join('\n')}`);
    }
  }
  return { call, log, firstIds };
}

/** One "test" of a partner's suite: its own account, then reads and writes on it. */
async function aTest(c: ReturnType<typeof retryingClient>, name: string) {
  const account = (await c.call(
    `${name}:register`,
    'POST',
    REGISTER,
    registerBody({ platform_parent_account_id: PARENT, external_account_id: `ext-${name}` }),
  )) as { account_id: string };
  const id = account.account_id;
  await c.call(`${name}:controls`, 'GET', CONTROLS(id));
  await c.call(`${name}:status`, 'GET', STATUS(id));
  await c.call(`${name}:activate`, 'PUT', STATUS(id), { status: 'active' });
  await c.call(`${name}:mappings`, 'GET', MAPPINGS);
  await c.call(`${name}:status-again`, 'GET', STATUS(id));
  await c.call(`${name}:pause`, 'PUT', STATUS(id), { status: 'paused' });
  await c.call(`${name}:controls-again`, 'GET', CONTROLS(id));
}

async function sandboxWithPartner(db?: string): Promise<Harness> {
  const h = createHarness(db ? { db } : {});
  const created = await h.request('POST', '/__sandbox/partners', {
    body: { parent_account_id: PARENT, ...CLIENT },
  });
  expect(created.status, created.text).toBe(201);
  const mapping = h.sandbox.fixtures.partners[0]!.mapping;
  const seeded = await h.request('PUT', `/__sandbox/partners/${PARENT}/vertical-mappings`, {
    body: { vertical_mappings: mapping },
  });
  expect(seeded.status, seeded.text).toBe(200);
  return h;
}

/** Token calls retried as a client does (chaos fails token calls too). */
async function tokenOf(h: Harness): Promise<string> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    const res = await h.request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', ...CLIENT },
    });
    if (res.status === 200) return res.body.access_token;
  }
  throw new Error('no token');
}

describe('chaos replay from where a failing test began (docs/chaos.md recipe)', () => {
  it('a CI run, the failing test found in the journal, a laptop rerun with from_call: the same failures', async () => {
    // CI: one profile for every partner, a suite of four tests on one token.
    const ci = await sandboxWithPartner();
    expect((await ci.request('PUT', '/__sandbox/chaos', { body: PROFILE })).status).toBe(200);
    const suite = retryingClient(ci, await tokenOf(ci));
    const boundaries: number[] = [];
    for (const name of ['first', 'second', 'third', 'fourth']) {
      boundaries.push(suite.log.length);
      await aTest(suite, name);
    }
    boundaries.push(suite.log.length);
    // "third" is the test that failed in CI: its lines of the log.
    const failing = 'third';
    const ciLines = suite.log.slice(boundaries[2], boundaries[3]);
    expect(ciLines.some((l) => !/: 2\d\d /.test(l))).toBe(true); // chaos did fail some of its calls
    expect(ciLines.some((l) => l.includes('#1: 2'))).toBe(true);

    // The test's first call, read from the journal: the position of its register.
    const firstId =
      suite.firstIds[suite.log.slice(0, boundaries[2]).filter((l) => l.includes('#1:')).length]!;
    const journal = await ci.request('GET', `/__sandbox/requests?parent_account_id=${PARENT}`);
    const partnership = [...journal.body.requests]
      .reverse()
      .filter((e: { path: string }) => e.path.startsWith('/v1/')) as { request_id: string; chaos: unknown }[];
    const at = partnership.findIndex((e) => e.request_id === firstId);
    expect(at).toBeGreaterThan(0);
    const fromCall = at + 1; // the partner's partnership calls are numbered from 1
    const first = partnership[at]!;
    if (first.chaos) expect(first.chaos).toMatchObject({ call: fromCall });

    // The laptop: a fresh sandbox, the same partner, the test alone, with its own token first.
    const laptop = await sandboxWithPartner();
    const set = await laptop.request('PUT', '/__sandbox/chaos', {
      body: { ...PROFILE, parent_account_id: PARENT, from_call: fromCall },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.profile).toMatchObject({ from_call: fromCall, positions: {} });
    const rerun = retryingClient(laptop, await tokenOf(laptop));
    await aTest(rerun, failing);
    expect(rerun.log).toEqual(ciLines);

    // Without from_call the rerun meets other failures: the position is what replays them.
    const plain = await sandboxWithPartner();
    await plain.request('PUT', '/__sandbox/chaos', { body: { ...PROFILE, parent_account_id: PARENT } });
    const other = retryingClient(plain, await tokenOf(plain));
    await aTest(other, failing);
    expect(other.log).not.toEqual(ciLines);
  });

  it('token calls do not move the partnership calls: the same calls fail with one token or with five', async () => {
    const runs: string[][] = [];
    for (const tokens of [1, 5]) {
      const h = await sandboxWithPartner();
      await h.request('PUT', '/__sandbox/chaos', { body: { ...PROFILE, parent_account_id: PARENT } });
      let token = '';
      for (let i = 0; i < tokens; i++) token = await tokenOf(h);
      const c = retryingClient(h, token);
      await aTest(c, 'only');
      runs.push(c.log);
      const [profile] = (await h.request('GET', '/__sandbox/chaos')).body.profiles;
      expect(profile.token_positions[PARENT]).toBeGreaterThanOrEqual(tokens);
    }
    expect(runs[1]).toEqual(runs[0]);
  });

  it('from_call must be a whole number from 1: anything else is a 400 naming it', async () => {
    const h = createHarness();
    for (const from_call of [0, 1.5, '3', -1]) {
      const res = await h.request('PUT', '/__sandbox/chaos', { body: { ...PROFILE, from_call } });
      expect(res.status, JSON.stringify(from_call)).toBe(400);
      expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['from_call']);
    }
  });
});

describe('on a durable store, chaos profiles and positions survive a restart as the clock does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-chaos-durable-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a restart in the middle of a suite: the profile, its positions and what it failed are back, and the rest fails as without the restart', async () => {
    // Without a restart: the whole suite in memory.
    const memory = await sandboxWithPartner();
    await memory.request('PUT', '/__sandbox/chaos', { body: { ...PROFILE, parent_account_id: PARENT } });
    const whole = retryingClient(memory, await tokenOf(memory));
    await aTest(whole, 'one');
    const half = whole.log.length;
    await aTest(whole, 'two');

    // With one: the same suite on a file store, stopped (a clean stop) and started again.
    const db = join(dir, 'sandbox.db');
    const before = await sandboxWithPartner(db);
    await before.request('PUT', '/__sandbox/chaos', { body: { ...PROFILE, parent_account_id: PARENT } });
    const c1 = retryingClient(before, await tokenOf(before));
    await aTest(c1, 'one');
    expect(c1.log).toEqual(whole.log.slice(0, half));
    const [saved] = (await before.request('GET', '/__sandbox/chaos')).body.profiles;
    before.sandbox.close();

    const after = createHarness({ db });
    const [restored] = (await after.request('GET', '/__sandbox/chaos')).body.profiles;
    expect(restored).toEqual(saved);
    expect(restored.positions[PARENT]).toBeGreaterThan(0);
    const c2 = retryingClient(after, await tokenOf(after));
    await aTest(c2, 'two');
    expect(c2.log).toEqual(whole.log.slice(half));
    after.sandbox.close();
  });

  it('SANDBOX_CHAOS: the same setting continues its sequences after a restart; another one starts over', async () => {
    const db = join(dir, 'env.db');
    const chaos = `rate=${PROFILE.rate},seed=${PROFILE.seed}`;
    const first = await sandboxWithPartner(db);
    first.sandbox.close();
    const running = createHarness({ db, chaos });
    const c = retryingClient(running, await tokenOf(running));
    await aTest(c, 'one');
    const [was] = (await running.request('GET', '/__sandbox/chaos')).body.profiles;
    expect(was.positions[PARENT]).toBeGreaterThan(7);
    running.sandbox.close();

    const same = createHarness({ db, chaos });
    expect((await same.request('GET', '/__sandbox/chaos')).body.profiles[0].positions).toEqual(was.positions);
    same.sandbox.close();
    const other = createHarness({ db, chaos: `rate=${PROFILE.rate},seed=1` });
    const [fresh] = (await other.request('GET', '/__sandbox/chaos')).body.profiles;
    expect([fresh.seed, fresh.positions]).toEqual([1, {}]);
    other.sandbox.close();
  });
});
