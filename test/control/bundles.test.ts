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
import { StartupError } from '../../src/base/startup-error.js';
import { loadConfig } from '../../src/core/config.js';
import { createSandbox } from '../../src/state/index.js';
import { busyPartner, expectSameBundle, exportOf, fieldsOf, importInto } from '../helpers/bundle-helpers.js';
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
} from '../helpers/harness.js';
import { count, newTenant, sleep } from '../helpers/tenants.js';

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
