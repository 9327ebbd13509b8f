/**
 * Chaos is convergent (docs/chaos.md): with every call failing (rate 1), a client that
 * follows the spec's advice and retries each failed call once (after Retry-After, on a new
 * connection 150 ms after a reset) completes the whole partner flow, for ten seeds. Over a real
 * listening server: the reset drill needs a socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlClient } from '../../src/client/control-client.js';
import { type Running, startServer } from '../../src/server.js';
import {
  CONTROLS,
  MAPPINGS,
  REGISTER,
  registerBody,
  rejection,
  STATUS,
  testConfig,
} from '../helpers/harness.js';

let server: Running;
beforeAll(async () => {
  server = await startServer(testConfig({ port: 0 }));
});
afterAll(() => server.close());

interface Answer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
  body: any;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One attempt; a reset connection is status 0 (fetch rejects with ECONNRESET under it). */
async function attempt(url: string, init: RequestInit): Promise<Answer> {
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  } catch (e) {
    const code = (e as { cause?: { code?: string } }).cause?.code;
    expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain(code);
    return { status: 0, headers: new Headers(), body: null };
  }
}

/** The client of the drill: a transient failure (reset, 401/403, 429, 5xx) is retried once. */
function client(base: string) {
  const log: string[] = [];
  return {
    log,
    async send(method: string, path: string, headers: Record<string, string>, body?: unknown) {
      // A fresh connection each time: a reset socket is never reused.
      const init: RequestInit = {
        method,
        headers: {
          Connection: 'close',
          ...headers,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      };
      let res = await attempt(`${base}${path}`, init);
      log.push(`${method} ${path.split('?')[0]} ${res.status}`);
      if (
        res.status === 0 ||
        res.status === 401 ||
        res.status === 403 ||
        res.status === 429 ||
        res.status >= 500
      ) {
        // After a reset the caller backs off: a repeat within 100 ms would be taken for the
        // HTTP library's own resend (docs/other-languages.md), graded "not seen by the caller".
        const wait = res.status === 0 ? 0.15 : Number(res.headers.get('retry-after') ?? 0);
        await sleep(wait * 1000);
        res = await attempt(`${base}${path}`, init);
        log.push(`${method} ${path.split('?')[0]} ${res.status} (retry)`);
      }
      return res;
    },
  };
}

/** The partner flow of the spec: token, register, rule 5 with its 409 retry, a dry run then a fresh key, status PUT and GET. */
async function partnerFlow(base: string, parent: string, clientId: string, clientSecret: string) {
  const c = client(base);
  const token = await c.send(
    'POST',
    '/oauth/token',
    {},
    { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
  );
  expect(token.status, c.log.join('\n')).toBe(200);
  const auth = { Authorization: `Bearer ${token.body.access_token}`, 'X-Platform-Parent-Account-Id': parent };
  let keys = 0;
  const key = () => ({ 'Idempotency-Key': `${parent}-${++keys}` });

  const registered = await c.send(
    'POST',
    REGISTER,
    auth,
    registerBody({ platform_parent_account_id: parent }),
  );
  expect(registered.status, c.log.join('\n')).toBe(200);
  const account = registered.body.data.account_id as string;

  // Rule 5: add one blocked vertical to what is blocked, keeping domains, with the content_hash read.
  const mappings = await c.send('GET', `${MAPPINGS}?parent_account_id=${parent}`, auth);
  expect(mappings.status, c.log.join('\n')).toBe(200);
  const parentOf = new Map<number, number>(
    mappings.body.data.vertical_mappings.map(
      (m: { partner_sub_vertical_id: number; partner_vertical_id: number }) => [
        m.partner_sub_vertical_id,
        m.partner_vertical_id,
      ],
    ),
  );
  const putControls = async (writeKey: Record<string, string>) => {
    const read = await c.send('GET', CONTROLS(account), auth);
    expect(read.status, c.log.join('\n')).toBe(200);
    const list = read.body.data.marketplace_controls_list;
    const blocked = (read.body.data.translated_verticals as { vertical_id: number; policy: string }[])
      .filter((t) => t.policy === 'Block')
      .map((t) => ({ partnerVerticalId: parentOf.get(t.vertical_id)!, partnerSubVerticalId: t.vertical_id }));
    const body = {
      blockedVerticals: [
        ...blocked.filter((b) => b.partnerSubVerticalId !== 2001),
        { partnerVerticalId: 20, partnerSubVerticalId: 2001 },
      ],
      domains: list.domains.map((d: { domain: string }) => ({ domain: d.domain })),
      contentHash: list.content_hash,
    };
    return c.send('PUT', CONTROLS(account), { ...auth, ...writeKey }, body);
  };
  const controlsKey = key();
  let written = await putControls(controlsKey);
  if (written.status === 409) {
    // Rule 3 and 4: re-read, re-apply, retry (the same key may be reused after a stale-hash 409).
    expect(written.body.error.code).toBe('content_hash_mismatch');
    written = await putControls(controlsKey);
  }
  expect(written.status, c.log.join('\n')).toBe(200);
  expect(written.body.data.translated_verticals).toContainEqual(
    expect.objectContaining({ vertical_id: 2001, policy: 'Block' }),
  );

  // A dry run, then the real write with a fresh key.
  const dry = await c.send(
    'PUT',
    `${STATUS(account)}?dry_run=true`,
    { ...auth, ...key() },
    { status: 'active' },
  );
  expect(dry.status, c.log.join('\n')).toBe(200);
  const real = await c.send('PUT', STATUS(account), { ...auth, ...key() }, { status: 'active' });
  expect(real.status, c.log.join('\n')).toBe(200);
  expect(real.headers.get('idempotent-replayed')).toBeNull();
  const status = await c.send('GET', STATUS(account), auth);
  expect(status.status, c.log.join('\n')).toBe(200);
  expect(status.body.data.status).toBe('active');
  return { log: c.log, account };
}

describe('chaos at rate 1: a client that retries once completes the partner flow', () => {
  it('for 12 seeds (each partner its own profile), every step reached, every injected failure recovered', async () => {
    const control = createControlClient(server.url);
    const seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    const runs = await Promise.all(
      seeds.map(async (seed) => {
        const partner = await control.partners.create({ parent_account_id: `pa_chaos_flow_${seed}` });
        await control.partners.seedMappings(
          partner.parent_account_id,
          server.sandbox.fixtures.partners[0]!.mapping,
        );
        const set = await control.chaos.set({ rate: 1, seed, parent_account_id: partner.parent_account_id });
        expect(set.profile).toMatchObject({ rate: 1, seed, calls_seen: 0 });
        const run = await partnerFlow(
          server.url,
          partner.parent_account_id,
          partner.client_id,
          partner.client_secret,
        );
        return { seed, parent: partner.parent_account_id, ...run };
      }),
    );
    const { profiles } = await control.chaos.get();
    // The report grades it: every injection recovered, by scenario, with request_ids.
    for (const run of runs) {
      const profile = profiles.find((p) => p.parent_account_id === run.parent)!;
      const report = await control.report(run.parent);
      expect(
        Object.fromEntries(report.resilience.map((r) => [r.scenario, r.injected])),
        run.log.join('\n'),
      ).toEqual(profile.failed_by_scenario);
      for (const r of report.resilience) {
        expect(r, run.log.join('\n')).toMatchObject({ recovered: r.injected, outcome: 'passed' });
        expect(r.evidence.every((e) => /request_id \S+.*: recovered, request_id \S+ -> 200/.test(e))).toBe(
          true,
        );
      }
      const junit = await control.report(run.parent, 'junit');
      for (const r of report.resilience)
        expect(junit).toContain(`Recovered from chaos: ${r.scenario} (${r.injected} of ${r.injected})`);
      expect(junit).not.toContain('<failure');
    }
    const met = new Set<string>();
    for (const run of runs) {
      const profile = profiles.find((p) => p.parent_account_id === run.parent)!;
      expect(profile.seed).toBe(run.seed);
      expect(profile.calls_seen).toBe(run.log.length);
      // Rate 1: every call chaos could fail was failed once, and its retry got through.
      expect(profile.calls_failed).toBe(
        run.log.filter((l) => !l.endsWith('(retry)') && !/ 200$/.test(l)).length,
      );
      expect(profile.calls_failed).toBeGreaterThanOrEqual(8);
      for (const name of Object.keys(profile.failed_by_scenario)) met.add(name);
    }
    // Across the seeds every default scenario was met at least once.
    expect([...met].sort()).toEqual([
      'auth-propagation',
      'connection-reset',
      'rate-limited',
      'server-error',
      'stale-content-hash',
    ]);
  }, 60_000);
});

describe('the control client: chaos.set, chaos.get, chaos.end', () => {
  it('sets, reads and ends profiles; a bad profile throws ControlPlaneError 400 naming the field', async () => {
    const control = createControlClient(server.url);
    const partner = await control.partners.create({ parent_account_id: 'pa_chaos_client' });
    const all = await control.chaos.set({ rate: 0.1, seed: 42 });
    expect(all.profile).toMatchObject({ parent_account_id: null, rate: 0.1, seed: 42, calls_seen: 0 });
    const own = await control.chaos.set({
      rate: 0.5,
      seed: -7,
      scenarios: ['server-error', 'throttled'],
      parent_account_id: partner.parent_account_id,
    });
    expect(own.profile.scenarios).toEqual(['server-error', 'throttled']);
    const got = await control.chaos.get();
    expect(got.profiles.map((p) => [p.parent_account_id, p.seed])).toContainEqual([
      partner.parent_account_id,
      -7,
    ]);
    const left = await control.chaos.end(partner.parent_account_id);
    expect(left.profiles.map((p) => p.parent_account_id)).not.toContain(partner.parent_account_id);
    const err = await rejection(control.chaos.set({ rate: 2, seed: 1 }));
    expect(err.status).toBe(400);
    expect(err.code).toBe('validation_error');
    expect(JSON.stringify(err.body)).toContain('"field":"rate"');
    const missing = await rejection(control.chaos.end('pa_nobody_here'));
    expect(missing.status).toBe(404);
    expect((await control.chaos.end()).profiles).toEqual([]);
  });
});
