/**
 * Bundles (docs/parallel-tests.md, issue 15 item 5): one partner out as one JSON file, into
 * another sandbox; a round trip is equal apart from the export time and the clock, its
 * deadlines the same distance from the partner's clock whenever and wherever it is loaded;
 * a broken, hostile or foreign file is a 400 (or 413) naming the field, and nothing is
 * loaded. `--seed` / SANDBOX_SEED loads one at start-up.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PATH_SEGMENT_MESSAGE } from '../src/contract/admin.js';
import { loadConfig } from '../src/core/config.js';
import { StartupError } from '../src/core/startup-error.js';
import { createSandbox } from '../src/sandbox/create.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  MAPPINGS,
  pair,
  STATUS,
  testConfig,
} from './harness.js';
import { count, newTenant, sleep } from './tenants.js';

type BundleBody = {
  exported_at?: string;
  clock: { now: string; offset_seconds: number };
  accounts: { auth_ready_at: number }[];
  idempotency_keys: { expires_at: number }[];
};
/** Each deadline of a bundle as the ms left until it on its partner's clock at the export. */
const deadlinesOf = (b: BundleBody) => {
  const now = Date.parse(b.clock.now);
  return [
    ...b.accounts.map((a) => a.auth_ready_at - now),
    ...b.idempotency_keys.map((k) => k.expires_at - now),
  ];
};
/** A bundle without what moves with real time: exported_at, its clock and its deadlines. */
const timeless = (b: BundleBody) => ({
  ...b,
  exported_at: undefined,
  clock: undefined,
  accounts: b.accounts.map((a) => ({ ...a, auth_ready_at: undefined })),
  idempotency_keys: b.idempotency_keys.map((k) => ({ ...k, expires_at: undefined })),
});
/** Equal apart from exported_at and the clock; each deadline as far from clock.now (within 5 s: real time). */
function expectSameBundle(again: BundleBody, bundle: BundleBody) {
  expect(timeless(again)).toEqual(timeless(bundle));
  const [left, before] = [deadlinesOf(again), deadlinesOf(bundle)];
  expect(left).toHaveLength(before.length);
  left.forEach((ms, i) => {
    expect(ms).toBeLessThanOrEqual(before[i]!);
    expect(before[i]! - ms).toBeLessThan(5000);
  });
  expect(Math.abs(again.clock.offset_seconds - bundle.clock.offset_seconds)).toBeLessThan(5);
}

const exportOf = async (h: Harness, parent: string) => {
  const res = await h.request('GET', `/__sandbox/partners/${parent}/bundle`);
  expect(res.status).toBe(200);
  return res.body;
};
const importInto = (h: Harness, bundle: unknown) => h.request('POST', '/__sandbox/bundles', { body: bundle });
const fieldsOf = (res: Awaited<ReturnType<Harness['request']>>) =>
  expectErrorEnvelope(res, 400, 'validation_error').error.details.fields.map(
    (f: { field: string }) => f.field,
  );

/** A partner with a bit of everything: accounts, a controls write, a status write, keys, armed scenarios, a clock. */
async function busyPartner(h: Harness) {
  const t = await newTenant(h, 'busy');
  const first = await t.client.account({ brand: 'First' });
  const second = await t.client.account({
    brand: 'Second',
    pages: [{ surface: 'tracking', layout_type: 'Embedded' }],
  });
  const read = expectOk(await t.client.get(CONTROLS(first)));
  expectOk(
    await t.client.put(
      CONTROLS(first),
      {
        blockedVerticals: [pair(10, 1001)],
        domains: [{ domain: 'rival.example' }],
        contentHash: read.marketplace_controls_list.content_hash,
      },
      { 'Idempotency-Key': 'controls-key' },
    ),
  );
  expectOk(await t.client.put(STATUS(second), { status: 'paused' }, { 'Idempotency-Key': 'status-key' }));
  await h.request('POST', `/__sandbox/partners/${t.parent}/clock/advance`, { body: { seconds: 90 } });
  for (const body of [
    { scenario: 'rate-limited', value: 2, parent_account_id: t.parent, times: 3 },
    { scenario: 'flaky-network', account_id: second },
  ]) {
    const res = await h.request('PUT', '/__sandbox/scenarios', { body });
    expect(res.status, res.text).toBe(200);
  }
  return { ...t, first, second };
}

describe('bundle round trip', () => {
  it('export, import into a fresh sandbox, export again: equal apart from exported_at and the clock, each deadline as far from clock.now (within 5 s)', async () => {
    const h = createHarness();
    const other = await newTenant(h, 'other');
    await other.client.account(); // another partner's state stays out of the bundle
    const t = await busyPartner(h);
    const bundle = await exportOf(h, t.parent);
    expect(bundle).toMatchObject({ kind: 'partnership-sandbox-bundle', version: 2 });
    expect(bundle.accounts).toHaveLength(2);
    expect(bundle.armed).toHaveLength(2);
    expect(bundle.idempotency_keys.map((k: { key: string }) => k.key).sort()).toEqual([
      'controls-key',
      'status-key',
    ]);
    expect(bundle.clock.offset_seconds).toBe(90);
    expect(bundle.journal.length).toBe(await count(h, { parent_account_id: t.parent }));
    expect(JSON.stringify(bundle.journal)).not.toContain(t.client.token); // redacted as the journal is
    expect(JSON.stringify(bundle)).not.toContain(other.parent);

    const fresh = createHarness();
    const imported = await importInto(fresh, bundle);
    expect(imported.status).toBe(200);
    expect(imported.body.imported).toEqual({
      parent_account_id: t.parent,
      replaced: false,
      accounts: 2,
      idempotency_keys: 2,
      armed: 2,
      journal: bundle.journal.length,
    });
    const again = await exportOf(fresh, t.parent);
    expectSameBundle(again, bundle);
    expect(Math.abs(Date.parse(again.clock.now) - Date.parse(bundle.clock.now))).toBeLessThan(5000);
  });

  it('the imported partner replays: its credentials work, its lists, status and keys are as they were', async () => {
    const h = createHarness();
    const t = await busyPartner(h);
    const bundle = await exportOf(h, t.parent);
    const hash = (await h.request('GET', `/__sandbox/accounts/${t.first}`)).body.controls.content_hash;
    await h.request('DELETE', '/__sandbox/scenarios');
    const laptop = createHarness();
    expect((await importInto(laptop, bundle)).status).toBe(200);
    await laptop.request('DELETE', '/__sandbox/scenarios'); // the armed rate limit would answer the checks
    const c = await laptop.client(t.creds);
    expect(expectOk(await c.get(CONTROLS(t.first))).marketplace_controls_list.content_hash).toBe(hash);
    expect(expectOk(await c.get(STATUS(t.second))).status).toBe('paused');
    const replay = await c.put(STATUS(t.second), { status: 'paused' }, { 'Idempotency-Key': 'status-key' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // Its time is the bundle's clock.now again: 90 s ahead, less the real time since the export.
    const clock = (await laptop.request('GET', `/__sandbox/partners/${t.parent}/clock`)).body;
    expect(clock.offset_seconds).toBeGreaterThan(85);
    expect(clock.offset_seconds).toBeLessThanOrEqual(90);
    expect(Date.parse(clock.now) - Date.parse(bundle.clock.now)).toBeGreaterThanOrEqual(0);
    expect(Date.parse(clock.now) - Date.parse(bundle.clock.now)).toBeLessThan(5000);
    expect(await count(laptop, { parent_account_id: t.parent, method: 'PUT', status: 200 })).toBe(3);
  });

  it('an import replaces the partner when it exists: its old accounts, keys, armed scenarios and journal go', async () => {
    const h = createHarness();
    const t = await busyPartner(h);
    const bundle = await exportOf(h, t.parent);
    await h.request('DELETE', '/__sandbox/scenarios'); // the armed rate limit would answer the register
    const extra = await t.client.account({ brand: 'After export' });
    await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'token-expired', account_id: extra },
    });
    const res = await importInto(h, bundle);
    expect(res.body.imported.replaced).toBe(true);
    expectErrorEnvelope(await h.request('GET', `/__sandbox/accounts/${extra}`), 404, 'account_not_found');
    expect((await h.request('GET', `/__sandbox/accounts/${t.first}`)).status).toBe(200);
    const armed = (await h.request('GET', '/__sandbox/scenarios')).body.armed;
    expect(armed.map((a: { scenario: string }) => a.scenario).sort()).toEqual([
      'flaky-network',
      'rate-limited',
    ]);
    expect(await count(h, { account_id: extra })).toBe(0);
  });

  it('a partner re-seeded after a write (its list blocks a category the mapping no longer has) round-trips', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'reseeded');
    const account = await t.client.account();
    const read = expectOk(await t.client.get(CONTROLS(account)));
    expectOk(
      await t.client.put(
        CONTROLS(account),
        {
          blockedVerticals: [pair(10, 1001)],
          domains: [],
          contentHash: read.marketplace_controls_list.content_hash,
        },
        { 'Idempotency-Key': 'block-first' },
      ),
    );
    const mapping = h.sandbox.fixtures.partners[0]!.mapping.filter((m) => m.partner_vertical_id !== 10);
    const seeded = await h.request('PUT', `/__sandbox/partners/${t.parent}/vertical-mappings`, {
      body: { vertical_mappings: mapping },
    });
    expect(seeded.status, seeded.text).toBe(200);
    const before = expectOk(await t.client.get(CONTROLS(account)));
    const bundle = await exportOf(h, t.parent);
    const orphan = bundle.accounts[0].controls.blocked.map((b: { vertical_name: string }) => b.vertical_name);
    const names = new Set(bundle.vertical_mappings.map((m: { vertical_name: string }) => m.vertical_name));
    expect(orphan.some((name: string) => !names.has(name))).toBe(true);

    const laptop = createHarness();
    const imported = await importInto(laptop, bundle);
    expect(imported.status, imported.text).toBe(200);
    const c = await laptop.client(t.creds);
    expect(expectOk(await c.get(CONTROLS(account)))).toEqual(before);
    const again = await exportOf(laptop, t.parent);
    // The laptop's own calls (a token, a GET) join the journal: the rest is as exported.
    expect(again.journal.length).toBeGreaterThan(bundle.journal.length);
    expectSameBundle({ ...again, journal: [] }, { ...bundle, journal: [] });
  });

  it('an unknown partner is 404', async () => {
    const h = createHarness();
    expectErrorEnvelope(await h.request('GET', '/__sandbox/partners/pa_nobody/bundle'), 404, 'not_found');
  });
});

describe('the client secret travels only as a salted hash (docs/parallel-tests.md)', () => {
  /** A secret a person chose, with characters that HTTP Basic must form-encode (RFC 6749 §2.3.1). */
  const SECRET = 'CI job secret: p@ss+w%rd/42';
  const form = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  const basicOf = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${form(id)}:${form(secret)}`).toString('base64')}`;

  /** POST /oauth/token with the credentials in a form body, a JSON body, or HTTP Basic. */
  const tokenCall = (h: Harness, style: 'form' | 'json' | 'basic', id: string, secret: string) => {
    const grant = { grant_type: 'client_credentials' };
    if (style === 'json')
      return h.request('POST', '/oauth/token', { body: { ...grant, client_id: id, client_secret: secret } });
    return h.request('POST', '/oauth/token', {
      raw: new URLSearchParams(
        style === 'form' ? { ...grant, client_id: id, client_secret: secret } : grant,
      ).toString(),
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        ...(style === 'basic' ? { Authorization: basicOf(id, secret) } : {}),
      },
    });
  };

  /** A partner created with its own secret, which used every client authentication and made a call. */
  async function jobPartner(h: Harness, body: Record<string, string> = { client_secret: SECRET }) {
    const created = await h.request('POST', '/__sandbox/partners', { body });
    expect(created.status, created.text).toBe(201);
    const { parent_account_id: parent, client_id: clientId, client_secret: secret } = created.body;
    if (body.client_secret) expect(secret).toBe(body.client_secret); // the creation answer shows it, once
    for (const style of ['form', 'json', 'basic'] as const) {
      const res = await tokenCall(h, style, clientId, secret);
      expect(res.status, `${style}: ${res.text}`).toBe(200);
    }
    return { parent, clientId, secret: secret as string };
  }

  /** Every spelling of the secret a file could hold it in. */
  const spellings = (id: string, secret: string) => [
    secret,
    JSON.stringify(secret).slice(1, -1),
    form(secret),
    encodeURIComponent(secret),
    Buffer.from(`${id}:${secret}`).toString('base64'),
    basicOf(id, secret).slice('Basic '.length),
  ];

  it.each([
    ['a secret the partner chose (scrypt)', { client_secret: SECRET }, 'scrypt-n16384-r8-p1'],
    ['a generated secret, 238 random bits (salted SHA-256)', {}, 'sha256-salted'],
  ])(
    '%s: not in the bundle in any spelling; imported into a fresh sandbox, the same secret gets a token (form, JSON, Basic), a wrong one 401 invalid_client',
    async (_, body, algorithm) => {
      const h = createHarness();
      const job = await jobPartner(h, body);
      const res = await h.request('GET', `/__sandbox/partners/${job.parent}/bundle`);
      expect(res.status).toBe(200);
      for (const spelling of spellings(job.clientId, job.secret)) expect(res.text).not.toContain(spelling);
      expect(res.body.partner).toEqual({
        parent_account_id: job.parent,
        client_id: job.clientId,
        client_secret_hash: {
          algorithm,
          salt: expect.stringMatching(/^[0-9a-f]{32}$/),
          hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
        name: 'Sandbox partner',
        created_at: expect.any(String),
      });
      expect(res.body.journal.filter((e: { path: string }) => e.path === '/oauth/token')).toHaveLength(3);

      const laptop = createHarness();
      const imported = await importInto(laptop, JSON.parse(res.text));
      expect(imported.status, imported.text).toBe(200);
      for (const style of ['form', 'json', 'basic'] as const) {
        const granted = await tokenCall(laptop, style, job.clientId, job.secret);
        expect(granted.status, `${style}: ${granted.text}`).toBe(200);
        expect(granted.body).toMatchObject({ token_type: 'Bearer', scope: 'partnership' });
        const mappings = await laptop.request('GET', MAPPINGS, {
          headers: { Authorization: `Bearer ${granted.body.access_token}` },
        });
        expect(mappings.status, `${style}: ${mappings.text}`).toBe(200);
        for (const wrong of [`${job.secret}x`, job.secret.slice(0, -1), job.secret.toUpperCase()]) {
          const refused = await tokenCall(laptop, style, job.clientId, wrong);
          expect({ style, status: refused.status, body: refused.body }).toEqual({
            style,
            status: 401,
            body: { error: 'invalid_client', error_description: 'client authentication failed' },
          });
        }
      }
      // The laptop's own export carries the same hash: a round trip does not re-hash.
      const again = await exportOf(laptop, job.parent);
      expect(again.partner).toEqual(res.body.partner);
    },
  );

  it('no read-back shows the secret after its creation: partners list, account view, journal, report, snapshots, the store itself', async () => {
    const h = createHarness();
    const job = await jobPartner(h);
    const c = await h.client({ parent: job.parent, clientId: job.clientId, clientSecret: job.secret });
    const seeded = await h.request('PUT', `/__sandbox/partners/${job.parent}/vertical-mappings`, {
      body: { vertical_mappings: h.sandbox.fixtures.partners[0]!.mapping },
    });
    expect(seeded.status, seeded.text).toBe(200);
    const account = await c.account();
    expect((await h.request('POST', '/__sandbox/snapshots', { body: { name: 'after' } })).status).toBe(201);
    const reads = [
      await h.request('GET', '/__sandbox/partners'),
      await h.request('GET', `/__sandbox/accounts/${account}`),
      await h.request('GET', '/__sandbox/requests'),
      await h.request('GET', `/__sandbox/report?parent_account_id=${job.parent}`),
      await h.request('GET', `/__sandbox/report?parent_account_id=${job.parent}&format=junit`),
      await h.request('GET', '/__sandbox/snapshots'),
      await h.request('GET', `/__sandbox/partners/${job.parent}/bundle`),
    ];
    for (const res of reads) {
      expect(res.status, res.text).toBe(200);
      for (const spelling of spellings(job.clientId, job.secret)) expect(res.text).not.toContain(spelling);
    }
    expect(reads[0]!.text).toContain(job.clientId); // the reads are about this partner
    expect(h.sandbox.store.db.serialize().includes(job.secret)).toBe(false);
  });

  it('a bundle of an earlier version (version 1: the secret in clear) loads; the secret works, and only its hash is kept', async () => {
    const h = createHarness();
    const job = await jobPartner(h);
    const current = await exportOf(h, job.parent);
    const { client_secret_hash: _, ...partner } = current.partner;
    const earlier = { ...current, version: 1, partner: { ...partner, client_secret: job.secret } };

    const laptop = createHarness();
    const imported = await importInto(laptop, earlier);
    expect(imported.status, imported.text).toBe(200);
    expect(imported.body.imported).toMatchObject({ parent_account_id: job.parent, replaced: false });
    for (const style of ['form', 'json', 'basic'] as const) {
      expect((await tokenCall(laptop, style, job.clientId, job.secret)).status).toBe(200);
      const refused = await tokenCall(laptop, style, job.clientId, 'not-the-secret');
      expect([refused.status, refused.body.error]).toEqual([401, 'invalid_client']);
    }
    const res = await laptop.request('GET', `/__sandbox/partners/${job.parent}/bundle`);
    expect(res.body.version).toBe(2);
    expect(res.body.partner.client_secret_hash.algorithm).toBe('scrypt-n16384-r8-p1');
    for (const spelling of spellings(job.clientId, job.secret)) expect(res.text).not.toContain(spelling);
    expect(laptop.sandbox.store.db.serialize().includes(job.secret)).toBe(false);
    // A version 1 bundle whose secret RFC 6749 would refuse is refused naming it.
    const bad = { ...earlier, partner: { ...earlier.partner, client_secret: 'short' } };
    expect(fieldsOf(await importInto(createHarness(), bad))).toEqual(['partner.client_secret']);
  });

  it("the fixtures' documented default credentials, exported and imported, still get a token", async () => {
    const h = createHarness();
    const bundle = await exportOf(h, DEMO.parent);
    expect(JSON.stringify(bundle)).not.toContain(DEMO.clientSecret);
    const laptop = createHarness();
    expect((await importInto(laptop, bundle)).status).toBe(200);
    for (const style of ['form', 'json', 'basic'] as const) {
      expect((await tokenCall(laptop, style, DEMO.clientId, DEMO.clientSecret)).status).toBe(200);
    }
  });
});

describe('deadlines keep their distance from the partner clock, whenever and wherever a bundle loads', () => {
  const HOUR = 3600;

  it('imported after the propagation window passed in real time: still pending until the partner clock reaches the deadline, then 200', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'propagating');
    const registered = await t.client.register({}, { 'X-Sandbox-Scenario': 'auth-propagation=2' });
    expect(registered.status, registered.text).toBe(200);
    const account = registered.body.data.account_id;
    expectErrorEnvelope(await t.client.get(STATUS(account)), 401, 'auth_propagation_pending');
    const bundle = await exportOf(h, t.parent);
    expect(bundle.clock.offset_seconds).toBe(0);
    const left = bundle.accounts[0].auth_ready_at - Date.parse(bundle.clock.now);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(2000);
    await sleep(left + 500); // the window's length in real time: it would be over on the real clock

    const laptop = createHarness();
    expect((await importInto(laptop, bundle)).status).toBe(200);
    const c = await laptop.client(t.creds);
    expectErrorEnvelope(await c.get(STATUS(account)), 401, 'auth_propagation_pending');
    const view = (await laptop.request('GET', `/__sandbox/accounts/${account}`)).body;
    expect(view.propagation.pending).toBe(true);
    const clock = (await laptop.request('GET', `/__sandbox/partners/${t.parent}/clock`)).body;
    expect(clock.offset_seconds).toBe(0); // real time moved past clock.now: the deadline moved instead
    const now = Date.parse(clock.now);
    expect(now).toBeGreaterThan(Date.parse(bundle.clock.now) + left);
    const leftNow = Date.parse(view.propagation.ready_at) - now;
    expect(leftNow).toBeLessThanOrEqual(left);
    expect(left - leftNow).toBeLessThan(1000);

    const advanced = await laptop.request('POST', `/__sandbox/partners/${t.parent}/clock/advance`, {
      body: { seconds: Math.ceil(left / 1000) + 1 },
    });
    expect(advanced.status, advanced.text).toBe(200);
    expect(expectOk(await c.get(STATUS(account))).account_id).toBe(account);
    expect((await laptop.request('GET', `/__sandbox/accounts/${account}`)).body.propagation.pending).toBe(
      false,
    );
  });

  it('into a sandbox whose global clock is 25 h ahead: a stored key still replays, and expires 24 h (partner clock) after its first use', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'keys');
    const account = await t.client.account();
    const first = await t.client.put(STATUS(account), { status: 'paused' }, { 'Idempotency-Key': 'day-key' });
    expectOk(first);
    const bundle = await exportOf(h, t.parent);
    const stored = bundle.idempotency_keys.find((k: { key: string }) => k.key === 'day-key');
    const left = stored.expires_at - Date.parse(bundle.clock.now);
    expect(left).toBeGreaterThan(24 * HOUR * 1000 - 5000);
    expect(left).toBeLessThanOrEqual(24 * HOUR * 1000);

    const ahead = createHarness();
    const moved = await ahead.request('POST', '/__sandbox/clock/advance', { body: { seconds: 25 * HOUR } });
    expect(moved.status, moved.text).toBe(200);
    expect((await importInto(ahead, bundle)).status).toBe(200);
    const clock = (await ahead.request('GET', `/__sandbox/partners/${t.parent}/clock`)).body;
    expect(clock.offset_seconds).toBe(0); // never behind the global clock
    expect(clock.global_offset_seconds).toBe(25 * HOUR);
    const again = await exportOf(ahead, t.parent);
    const leftAgain = again.idempotency_keys[0].expires_at - Date.parse(again.clock.now);
    expect(left - leftAgain).toBeGreaterThanOrEqual(0);
    expect(left - leftAgain).toBeLessThan(1000);

    const replay = async () => {
      const c = await ahead.client(t.creds); // a new token each time: the partner clock moves by hours
      const res = await c.put(STATUS(account), { status: 'paused' }, { 'Idempotency-Key': 'day-key' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.account_id).toBe(account);
      return res.headers.get('idempotent-replayed');
    };
    expect(await replay()).toBe('true');
    const advance = async (seconds: number) => {
      const res = await ahead.request('POST', `/__sandbox/partners/${t.parent}/clock/advance`, {
        body: { seconds },
      });
      expect(res.status, res.text).toBe(200);
    };
    await advance(Math.floor(left / 1000) - 2); // 2 s before the 24 h are up: still the stored answer
    expect(await replay()).toBe('true');
    await advance(3); // 1 s past them: the key is free, the PUT runs again
    expect(await replay()).toBeNull();
  });
});

describe('last_status_write travels with its account', () => {
  it('a partial failure recorded before the export reads the same after an import elsewhere, and round-trips', async () => {
    const h = createHarness();
    const t = await newTenant(h, 'partial');
    const account = await t.client.account(); // two variants: a confirmation and a tracking page
    const res = await t.client.put(
      STATUS(account),
      { status: 'paused' },
      { 'X-Sandbox-Scenario': 'status-partial-failure=1' },
    );
    expect(res.headers.get('x-sandbox-scenario-applied')).toBe('status-partial-failure=1');
    expect(res.body.error.code).toBe('partial_failure');
    const record = (await h.request('GET', `/__sandbox/accounts/${account}`)).body.last_status_write;
    expect(record.variants.map((v: { result: string }) => v.result)).toContain('failed');
    const bundle = await exportOf(h, t.parent);
    expect(bundle.accounts[0].last_status_write).toEqual(record);

    const laptop = createHarness();
    expect((await importInto(laptop, bundle)).status).toBe(200);
    expect((await laptop.request('GET', `/__sandbox/accounts/${account}`)).body.last_status_write).toEqual(
      record,
    );
    expect((await exportOf(laptop, t.parent)).accounts[0].last_status_write).toEqual(record);

    // A bundle without the field (an older export) loads; replacing the partner drops the record.
    const older = structuredClone(bundle);
    delete older.accounts[0].last_status_write;
    const replaced = await importInto(laptop, older);
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.imported.replaced).toBe(true);
    expect((await laptop.request('GET', `/__sandbox/accounts/${account}`)).body.last_status_write).toBeNull();
    expect((await exportOf(laptop, t.parent)).accounts[0].last_status_write).toBeNull();
  });
});

describe('hostile and broken bundles: 400 naming the field, nothing loaded', () => {
  async function setup() {
    const source = createHarness();
    const t = await busyPartner(source);
    const bundle = await exportOf(source, t.parent);
    const target = createHarness();
    const resident = await newTenant(target, 'resident');
    const residentAccount = await resident.client.account();
    const before = (
      target.sandbox.store.db.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number }
    ).n;
    const journalBefore = await count(target, {});
    const nothingLoaded = async () => {
      expectErrorEnvelope(
        await target.request('GET', `/__sandbox/partners/${t.parent}/bundle`),
        404,
        'not_found',
      );
      expect(
        (target.sandbox.store.db.prepare('SELECT count(*) AS n FROM accounts').get() as { n: number }).n,
      ).toBe(before);
      expectOk(await resident.client.get(STATUS(residentAccount)));
      expect((await target.request('GET', '/__sandbox/scenarios')).body.armed).toEqual([]);
      expect(await count(target, { parent_account_id: t.parent })).toBe(0);
      expect(await count(target, {})).toBeGreaterThan(journalBefore);
    };
    const copy = () => structuredClone(bundle);
    return { t, bundle, copy, target, resident, residentAccount, nothingLoaded };
  }

  it('a wrong or missing version', async () => {
    const { copy, target, nothingLoaded } = await setup();
    for (const version of [3, 0, '2', '1', null, undefined]) {
      const b = copy();
      b.version = version;
      expect(fieldsOf(await importInto(target, b))).toEqual(['version']);
    }
    // Version 1 carries the secret in clear: this bundle's hash is not version 1.
    const v1 = copy();
    v1.version = 1;
    expect(fieldsOf(await importInto(target, v1)).sort()).toEqual([
      'partner.client_secret',
      'partner.client_secret_hash',
    ]);
    await nothingLoaded();
  });

  it('a client secret hash that is not one this sandbox makes, or a secret in clear beside it', async () => {
    const { copy, target, t, nothingLoaded } = await setup();
    const cases: [
      (p: Record<string, unknown> & { client_secret_hash: Record<string, unknown> }) => void,
      string,
    ][] = [
      [(p) => (p.client_secret_hash.algorithm = 'sha256'), 'partner.client_secret_hash.algorithm'],
      [(p) => (p.client_secret_hash.algorithm = 'scrypt-n1-r1-p1'), 'partner.client_secret_hash.algorithm'],
      [(p) => (p.client_secret_hash.salt = 'not hex'), 'partner.client_secret_hash.salt'],
      [(p) => (p.client_secret_hash.hash = 'ab'.repeat(16)), 'partner.client_secret_hash.hash'],
      [(p) => (p.client_secret_hash.hash = 'AB'.repeat(32)), 'partner.client_secret_hash.hash'],
      [(p) => (p.client_secret_hash.cost = 1), 'partner.client_secret_hash.cost'],
      [(p) => (p.client_secret_hash = undefined as never), 'partner.client_secret_hash'],
      [(p) => (p.client_secret = t.creds.clientSecret), 'partner.client_secret'],
    ];
    for (const [mutate, field] of cases) {
      const b = copy();
      mutate(b.partner);
      expect(fieldsOf(await importInto(target, b))).toEqual([field]);
    }
    await nothingLoaded();
  });

  it("another partner's IDs colliding: an account, a page, a variant or the client_id held by a resident partner", async () => {
    const { copy, target, resident, residentAccount, nothingLoaded } = await setup();
    const residentView = (await target.request('GET', `/__sandbox/accounts/${residentAccount}`)).body;
    const cases: [(b: ReturnType<typeof copy>) => void, string][] = [
      [(b) => (b.accounts[1].account_id = residentAccount), 'accounts[1].account_id'],
      [
        (b) => (b.accounts[0].pages[0].page_id = residentView.pages[0].page_id),
        'accounts[0].pages[0].page_id',
      ],
      [
        (b) => (b.accounts[0].variants[0].variant_id = residentView.variants[0].variant_id),
        'accounts[0].variants[0].variant_id',
      ],
      [(b) => (b.partner.client_id = resident.clientId), 'partner.client_id'],
      // a journal entry of the bundle's partner naming the resident's account: it would show
      // in the resident's journal filters and counts, and make the resident's bundle refused
      [(b) => (b.journal[0].account_id = residentAccount), 'journal[0].account_id'],
    ];
    for (const [mutate, field] of cases) {
      const b = copy();
      mutate(b);
      expect(fieldsOf(await importInto(target, b))).toContain(field);
    }
    await nothingLoaded();
  });

  it('inconsistent inside: a layout on a page of no account, a repeated account, an armed scenario on a foreign account, an unknown effect', async () => {
    const { copy, target, nothingLoaded } = await setup();
    const cases: [(b: ReturnType<typeof copy>) => void, string][] = [
      [(b) => (b.accounts[0].layouts[0].page_id = 'page_nowhere'), 'accounts[0].layouts[0].page_id'],
      [(b) => (b.accounts[1].account_id = b.accounts[0].account_id), 'accounts[1].account_id'],
      [(b) => (b.armed[1].account_id = 'acct_elsewhere'), 'armed[1].account_id'],
      [(b) => (b.armed[0].effects[0].name = 'meteor-strike'), 'armed[0].effects[0].name'],
      [(b) => (b.journal[0].parent_account_id = 'pa_someone_else'), 'journal[0].parent_account_id'],
      [
        (b) => (b.accounts[0].controls.blocked = [{ vertical_name: 'x', policy: 'Allow' }]),
        'accounts[0].controls.blocked[0].policy',
      ],
      [(b) => (b.partner.client_id = undefined), 'partner.client_id'],
      [(b) => (b.accounts[0].surprise = true), 'accounts[0].surprise'],
    ];
    for (const [mutate, field] of cases) {
      const b = copy();
      mutate(b);
      expect(fieldsOf(await importInto(target, b))).toContain(field);
    }
    await nothingLoaded();
  });

  it('a hostile last_status_write: a variant of another account or of none, a wrong page or name, a repeat, a bad enum, an unknown field', async () => {
    const { t, copy, target, nothingLoaded } = await setup();
    const at = (b: ReturnType<typeof copy>) =>
      b.accounts.findIndex((a: { account_id: string }) => a.account_id === t.second);
    const record = (b: ReturnType<typeof copy>) => b.accounts[at(b)].last_status_write;
    expect(record(copy()).variants.length).toBeGreaterThan(0);
    const cases: [(b: ReturnType<typeof copy>) => void, string, RegExp][] = [
      [
        (b) => (record(b).variants[0].variant_id = b.accounts[1 - at(b)].variants[0].variant_id),
        'variants[0].variant_id',
        /not a variant of this account/,
      ],
      [
        (b) => (record(b).variants[0].variant_id = 'var_nowhere'),
        'variants[0].variant_id',
        /not a variant of this account/,
      ],
      [
        (b) => (record(b).variants[0].page_id = 'page_other'),
        'variants[0].page_id',
        /the page of that variant/,
      ],
      [(b) => (record(b).variants[0].name = 'Renamed'), 'variants[0].name', /the name of that variant/],
      [
        (b) => record(b).variants.push({ ...record(b).variants[0] }),
        `variants[${record(copy()).variants.length}].variant_id`,
        /repeated/,
      ],
      [(b) => (record(b).variants[0].result = 'exploded'), 'variants[0].result', /updated|failed/],
      [(b) => (record(b).requested = 'mixed'), 'requested', /active|paused/],
      [(b) => (record(b).status = 'broken'), 'status', /mixed/],
      [(b) => (record(b).at = 'yesterday'), 'at', /./],
      [(b) => (record(b).evil = 1), 'evil', /unknown field/],
      [(b) => (b.accounts[at(b)].last_status_write = 'done'), '', /object/],
    ];
    for (const [mutate, suffix, message] of cases) {
      const b = copy();
      mutate(b);
      const field = `accounts[${at(b)}].last_status_write${suffix ? `.${suffix}` : ''}`;
      const res = await importInto(target, b);
      expect(fieldsOf(res), field).toEqual([field]);
      expect(res.body.error.details.fields[0].message, field).toMatch(message);
    }
    await nothingLoaded();
  });

  it('an identifier that is not a safe path segment: ".", "..", "a/b", "%2E%2E" anywhere an ID goes into a URL', async () => {
    const { copy, target, nothingLoaded } = await setup();
    const cases: [(b: ReturnType<typeof copy>, v: string) => void, string][] = [
      [(b, v) => (b.partner.parent_account_id = v), 'partner.parent_account_id'],
      [(b, v) => (b.partner.client_id = v), 'partner.client_id'],
      [(b, v) => (b.accounts[0].account_id = v), 'accounts[0].account_id'],
      [(b, v) => (b.accounts[0].pages[0].page_id = v), 'accounts[0].pages[0].page_id'],
      [(b, v) => (b.accounts[0].layouts[0].layout_id = v), 'accounts[0].layouts[0].layout_id'],
      [(b, v) => (b.accounts[0].variants[0].variant_id = v), 'accounts[0].variants[0].variant_id'],
      [(b, v) => (b.accounts[0].controls.list_id = v), 'accounts[0].controls.list_id'],
    ];
    for (const value of ['.', '..', 'a/b', '%2E%2E']) {
      for (const [mutate, field] of cases) {
        const b = copy();
        mutate(b, value);
        const res = await importInto(target, b);
        expect(fieldsOf(res), `${field} = ${value}`).toContain(field);
        const issue = res.body.error.details.fields.find((f: { field: string }) => f.field === field);
        expect(issue.message).toBe(PATH_SEGMENT_MESSAGE);
      }
    }
    await nothingLoaded();
  });

  it('values the API would refuse: country_code, store_identifier, domain, external_account_id, content_hash, a repeated blocked vertical', async () => {
    const { copy, target, nothingLoaded } = await setup();
    const cases: [(b: ReturnType<typeof copy>) => void, string, RegExp][] = [
      [(b) => (b.accounts[0].country_code = 'us'), 'accounts[0].country_code', /upper case|"US"/],
      [
        (b) => (b.accounts[0].store_identifier = 'javascript:alert(1)'),
        'accounts[0].store_identifier',
        /http or https/,
      ],
      [
        (b) => (b.accounts[1].controls.domains = [{ domain: 'http://x/y z', policy: 'Block' }]),
        'accounts[1].controls.domains[0].domain',
        /./,
      ],
      [
        (b) => (b.accounts[0].external_account_id = 'merchant\n42'),
        'accounts[0].external_account_id',
        /control character/,
      ],
      // a counter where adding 1 no longer changes it (2^53 - 1): every old content_hash would stay valid
      [
        (b) => (b.accounts[0].controls.version = Number.MAX_SAFE_INTEGER),
        'accounts[0].controls.version',
        /<=/,
      ],
      [
        (b) => (b.accounts[0].controls.content_hash = ''),
        'accounts[0].controls.content_hash',
        /40 lower-case hex/,
      ],
      [
        (b) => (b.accounts[0].controls.content_hash = 'A'.repeat(40)),
        'accounts[0].controls.content_hash',
        /40 lower-case hex/,
      ],
      [
        (b) =>
          (b.accounts[0].controls.blocked = [
            { vertical_name: 'Weapons > Everything', policy: 'Block', position_1_policy: 'Block' },
            { vertical_name: 'Weapons > Everything', policy: 'Block', position_1_policy: 'Block' },
          ]),
        'accounts[0].controls.blocked[1].vertical_name',
        /repeats accounts\[0\]\.controls\.blocked\[0\]\.vertical_name/,
      ],
    ];
    for (const [mutate, field, message] of cases) {
      const b = copy();
      mutate(b);
      const res = await importInto(target, b);
      expect(fieldsOf(res), field).toEqual([field]);
      expect(res.body.error.details.fields[0].message).toMatch(message);
    }
    await nothingLoaded();
  });

  it('a list ID held by another partner here, or repeated inside the bundle, is refused: two partners never read one list', async () => {
    const { copy, target, residentAccount, nothingLoaded } = await setup();
    const residentList = (await target.request('GET', `/__sandbox/accounts/${residentAccount}`)).body.controls
      .list_id;
    const foreign = copy();
    foreign.accounts[0].controls.list_id = residentList;
    const res = await importInto(target, foreign);
    expect(fieldsOf(res)).toEqual(['accounts[0].controls.list_id']);
    expect(res.body.error.details.fields[0].message).toBe('belongs to another partner in this sandbox');
    const twice = copy();
    twice.accounts[1].controls.list_id = twice.accounts[0].controls.list_id;
    expect(fieldsOf(await importInto(target, twice))).toEqual(['accounts[1].controls.list_id']);
    await nothingLoaded();
  });

  it('a stored idempotency answer that its operation could not have given: it would be replayed as is', async () => {
    const { copy, target, nothingLoaded } = await setup();
    const key = (b: ReturnType<typeof copy>, name: string) =>
      b.idempotency_keys.find((k: { key: string }) => k.key === name);
    const edit = (
      b: ReturnType<typeof copy>,
      name: string,
      change: (body: Record<string, unknown>) => void,
    ) => {
      const k = key(b, name);
      const body = JSON.parse(k.body);
      change(body);
      k.body = JSON.stringify(body);
    };
    const at = (b: ReturnType<typeof copy>, name: string) =>
      `idempotency_keys[${b.idempotency_keys.indexOf(key(b, name))}]`;
    const cases: [(b: ReturnType<typeof copy>) => void, (b: ReturnType<typeof copy>) => string][] = [
      [(b) => (key(b, 'status-key').body = 'not json'), (b) => `${at(b, 'status-key')}.body`],
      [
        (b) => edit(b, 'status-key', (e) => (e.data = { evil: 1 })),
        (b) => `${at(b, 'status-key')}.body.data.account_id`,
      ],
      [(b) => edit(b, 'status-key', (e) => (e.evil = 1)), (b) => `${at(b, 'status-key')}.body`],
      [
        (b) => edit(b, 'controls-key', (e) => ((e.data as { evil?: number }).evil = 1)),
        (b) => `${at(b, 'controls-key')}.body`,
      ],
      [(b) => edit(b, 'status-key', (e) => (e.status = 201)), (b) => `${at(b, 'status-key')}.body.status`],
      [(b) => edit(b, 'status-key', (e) => (e.dry_run = true)), (b) => `${at(b, 'status-key')}.body.dry_run`],
      [(b) => (key(b, 'status-key').dry_run = true), (b) => `${at(b, 'status-key')}.body.dry_run`],
      [
        (b) => edit(b, 'status-key', (e) => (e.error = { code: 'internal_error' })),
        (b) => `${at(b, 'status-key')}.body.error`,
      ],
      [(b) => (key(b, 'status-key').status = 201), (b) => `${at(b, 'status-key')}.status`],
      [
        (b) =>
          edit(b, 'status-key', (e) => {
            const data = e.data as { account_id: string };
            // another account of the same partner: the list's order ties on created_at, so pick by id
            data.account_id = b.accounts.find(
              (a: { account_id: string }) => a.account_id !== data.account_id,
            ).account_id;
          }),
        (b) => `${at(b, 'status-key')}.body.data.account_id`,
      ],
      [
        (b) => (key(b, 'status-key').operation = 'DELETE /__sandbox/reset'),
        (b) => `${at(b, 'status-key')}.operation`,
      ],
      [
        (b) => (key(b, 'status-key').operation = 'PUT /v1/partnership/accounts/acct_elsewhere/status'),
        (b) => `${at(b, 'status-key')}.operation`,
      ],
      [(b) => (key(b, 'status-key').fingerprint = 'x'), (b) => `${at(b, 'status-key')}.fingerprint`],
      [(b) => (key(b, 'status-key').key = 'with space'), (b) => `${at(b, 'status-key')}.key`],
    ];
    for (const [mutate, field] of cases) {
      const b = copy();
      const expected = field(b);
      mutate(b);
      const fields = fieldsOf(await importInto(target, b));
      expect(fields, expected).toContain(expected);
      expect(
        fields.every((f: string) => f.startsWith(expected.replace(/\].*/, ']'))),
        expected,
      ).toBe(true);
    }
    await nothingLoaded();
  });

  it('deeply nested, oversized, not JSON, not an object, or a foreign JSON document', async () => {
    const { copy, target, nothingLoaded } = await setup();
    const deepPartner = JSON.stringify(copy()).replace(
      /"partner":\{[^}]*\}/,
      `"partner":${'['.repeat(100_000)}"bottom"${']'.repeat(100_000)}`,
    );
    const nested = await target.request('POST', '/__sandbox/bundles', {
      raw: deepPartner,
      headers: { 'Content-Type': 'application/json' },
    });
    // Refused before parsing (more than 64 levels), naming the limit.
    expect(expectErrorEnvelope(nested, 400, 'malformed_json').error.details.max_depth).toBe(64);
    const deepRaw = `{"version":1,"kind":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const res = await target.request('POST', '/__sandbox/bundles', {
      raw: deepRaw,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(expectErrorEnvelope(res, 400, 'malformed_json').error.details.max_depth).toBe(64);

    const big = `{"version":1,"pad":"${'x'.repeat(32 * 1024 * 1024)}"}`;
    const tooBig = await target.request('POST', '/__sandbox/bundles', {
      raw: big,
      headers: { 'Content-Type': 'application/json' },
    });
    expectErrorEnvelope(tooBig, 413, 'payload_too_large');

    expectErrorEnvelope(
      await target.request('POST', '/__sandbox/bundles', {
        raw: '{"version":1,',
        headers: { 'Content-Type': 'application/json' },
      }),
      400,
      'malformed_json',
    );
    expect(fieldsOf(await importInto(target, [copy()]))).toContain('(body)');
    for (const scalar of [null, 1, 'bundle'])
      expect(fieldsOf(await importInto(target, scalar))).toEqual(['(body)']);
    const openapi = (await target.request('GET', '/__sandbox/openapi.json')).body;
    expect(fieldsOf(await importInto(target, openapi))).toEqual(['version']);
    const foreign = { ...copy(), kind: 'someone-elses-export' };
    expect(fieldsOf(await importInto(target, foreign))).toContain('kind');
    await nothingLoaded();
  });
});

describe('--seed FILE / SANDBOX_SEED', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-seed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads a bundle at start-up; the flag and the variable set it', async () => {
    const source = createHarness();
    const t = await busyPartner(source);
    const file = join(dir, 'bundle.json');
    writeFileSync(file, JSON.stringify(await exportOf(source, t.parent)));
    expect(loadConfig(['--seed', file], {}).seed).toBe(file);
    expect(loadConfig([], { SANDBOX_SEED: file }).seed).toBe(file);
    const seeded = createHarness({ seed: file });
    await seeded.request('DELETE', '/__sandbox/scenarios');
    const c = await seeded.client(t.creds);
    expect(expectOk(await c.get(STATUS(t.second))).status).toBe('paused');
    expect(expectOk(await c.get(MAPPINGS)).vertical_mappings.length).toBeGreaterThan(0);
  });

  it('a broken seed stops start-up naming SANDBOX_SEED and the field', async () => {
    const source = createHarness();
    const t = await newTenant(source, 'seed');
    const bundle = await exportOf(source, t.parent);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ ...bundle, version: 9 }));
    expect(() => createSandbox(testConfig({ seed: broken }))).toThrow(StartupError);
    expect(() => createSandbox(testConfig({ seed: broken }))).toThrow(/SANDBOX_SEED.*version/);
    const missing = join(dir, 'missing.json');
    expect(() => createSandbox(testConfig({ seed: missing }))).toThrow(
      /SANDBOX_SEED\/--seed .*missing\.json/,
    );
  });
});
