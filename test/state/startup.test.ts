/**
 * Start-up: configuration (env and flags, parsed once, a bad value named), fixtures
 * (validated, a broken file named with its field), presets, and durability of a file
 * database across a restart.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { defaultFixturesDir } from '../../src/base/package-dir.js';
import { StartupError } from '../../src/base/startup-error.js';
import { loadConfig } from '../../src/core/config.js';
import { startServer } from '../../src/server.js';
import { type SandboxOptions, startSandbox } from '../../src/start.js';
import { createSandbox } from '../../src/state/index.js';
import { CONTROLS, DEMO, type expectOk, registerBody, testConfig } from '../helpers/harness.js';
import {
  demoAccount,
  demoToken,
  demoTokenResponse,
  expectRawEnvelope,
  parseReply,
  raw,
} from '../helpers/raw-http.js';

/** A fixture file as JSON, as far as these tests edit it. */
type FixtureFile = { partners: Record<string, unknown>[]; verticals: Record<string, unknown>[] } & Record<
  string,
  unknown
>;

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-test-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('configuration', () => {
  it('defaults to 127.0.0.1:4010, in-memory SQLite and the packaged fixtures', () => {
    const config = loadConfig([], {});
    expect(config).toMatchObject({
      port: 4010,
      host: '127.0.0.1',
      db: ':memory:',
      fixtures: defaultFixturesDir,
      authPropagationSeconds: 0,
      strictIdempotency: false,
    });
    expect(config.adminToken).toBeUndefined();
  });

  it('reads the env vars of docs/configuration.md', () => {
    const config = loadConfig([], {
      PORT: '5000',
      HOST: '0.0.0.0',
      SANDBOX_DB: '/tmp/x.db',
      SANDBOX_FIXTURES: '/tmp/fx',
      SANDBOX_ADMIN_TOKEN: 'tok',
      SANDBOX_AUTH_PROPAGATION_SECONDS: '90',
      SANDBOX_STRICT_IDEMPOTENCY: '1',
    });
    expect(config).toMatchObject({
      port: 5000,
      host: '0.0.0.0',
      db: '/tmp/x.db',
      fixtures: '/tmp/fx',
      adminToken: 'tok',
      authPropagationSeconds: 90,
      strictIdempotency: true,
    });
  });

  it('lets flags win over env', () => {
    const config = loadConfig(['--port', '4999', '--host', '::1', '--db', 'a.db', '--fixtures', 'fx'], {
      PORT: '5000',
      SANDBOX_DB: 'b.db',
    });
    expect(config).toMatchObject({ port: 4999, host: '::1', db: 'a.db', fixtures: 'fx' });
  });

  it.each([
    [{ PORT: 'eighty' }, [], /PORT="eighty"/],
    [{ PORT: '70000' }, [], /PORT="70000"/],
    [{}, ['--port=-1'], /--port="-1"/],
    [{ SANDBOX_AUTH_PROPAGATION_SECONDS: '-5' }, [], /SANDBOX_AUTH_PROPAGATION_SECONDS="-5"/],
    [{ SANDBOX_STRICT_IDEMPOTENCY: 'maybe' }, [], /SANDBOX_STRICT_IDEMPOTENCY="maybe"/],
  ])('a bad value stops start-up naming it (%o %o)', (env, argv, message) => {
    expect(() => loadConfig(argv, env)).toThrow(StartupError);
    expect(() => loadConfig(argv, env)).toThrow(message);
  });

  it('an unknown flag stops start-up with one line naming it (quotes balanced, no usage dump)', () => {
    expect(() => loadConfig(['--prot', '1'], {})).toThrow(/^unknown option --prot \(see --help\)$/);
    expect(() => loadConfig(['--port'], {})).toThrow(/^--port needs a value \(see --help\)$/);
    expect(() => loadConfig(['stray'], {})).toThrow(/^unexpected argument "stray" \(see --help\)$/);
  });
});

describe('fixtures', () => {
  function brokenFixtures(file: string, edit: (json: FixtureFile) => unknown): string {
    const dir = tempDir();
    cpSync(defaultFixturesDir, dir, { recursive: true });
    const path = join(dir, file);
    writeFileSync(path, JSON.stringify(edit(JSON.parse(readFileSync(path, 'utf8')))));
    return dir;
  }

  it('the default fixtures have a seeded partner with 4+ verticals of 3+ sub-verticals, a preset and default pages', () => {
    const s = createSandbox(testConfig());
    const mapping = s.store.partners.mappings(DEMO.parent);
    const perVertical = new Map<number, number>();
    for (const m of mapping)
      perVertical.set(m.partner_vertical_id, (perVertical.get(m.partner_vertical_id) ?? 0) + 1);
    expect(perVertical.size).toBeGreaterThanOrEqual(4);
    for (const count of perVertical.values()) expect(count).toBeGreaterThanOrEqual(3);
    expect(s.fixtures.preset.blocked.length).toBeGreaterThan(0);
    expect(s.fixtures.defaultPages.length).toBeGreaterThan(0);
    s.close();
  });

  it.each([
    [
      'partners.json',
      (j: FixtureFile) => ({ ...j, partners: [{ ...j.partners[0], client_id: 42 }] }),
      /partners\.json: partners\.0\.client_id/,
    ],
    [
      'taxonomy.json',
      (j: FixtureFile) => ({ verticals: [{ ...j.verticals[0], partner_vertical_id: 'ten' }] }),
      /taxonomy\.json: verticals\.0\.partner_vertical_id/,
    ],
    [
      'preset.json',
      (j: FixtureFile) => ({
        ...j,
        blocked_verticals: [{ vertical_name: 'x', policy: 'Allow', position_1_policy: 'Block' }],
      }),
      /preset\.json: blocked_verticals\.0\.policy/,
    ],
    [
      'pages.json',
      () => ({ default_pages: [{ surface: 'checkout', layout_type: 'Overlay' }] }),
      /pages\.json: default_pages\.0\.surface/,
    ],
  ])('a broken %s stops start-up naming the file and field', (file, edit, message) => {
    const dir = brokenFixtures(file, edit);
    expect(() => createSandbox(testConfig({ fixtures: dir }))).toThrow(StartupError);
    expect(() => createSandbox(testConfig({ fixtures: dir }))).toThrow(message);
  });

  it('invalid JSON in a fixture names the file', () => {
    const dir = tempDir();
    cpSync(defaultFixturesDir, dir, { recursive: true });
    writeFileSync(join(dir, 'pages.json'), '{ nope');
    expect(() => createSandbox(testConfig({ fixtures: dir }))).toThrow(/pages\.json: not valid JSON/);
  });

  it('a missing fixtures folder names the file it looked for', () => {
    expect(() => createSandbox(testConfig({ fixtures: '/nonexistent/fixtures' }))).toThrow(
      /\/nonexistent\/fixtures\/partners\.json cannot be read/,
    );
  });

  it("SANDBOX_FIXTURES loads a partner's own folder", async () => {
    const dir = brokenFixtures('partners.json', (j: FixtureFile) => ({
      partners: [
        { ...j.partners[0], parent_account_id: 'pa_acme', client_id: 'acme', client_secret: 'acme-secret-1' },
      ],
    }));
    const s = createSandbox(testConfig({ fixtures: dir }));
    const app = createApp(s);
    const res = await app.request('/oauth/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=acme&client_secret=acme-secret-1',
    });
    expect(res.status).toBe(200);
    expect(s.store.partners.byParent('pa_acme')).toBeDefined();
    expect(s.store.partners.byParent(DEMO.parent)).toBeUndefined();
    s.close();
  });

  it("the package's fixtures (their secret is in the README) are kept with the fast salted hash; a folder of one's own with scrypt; both authenticate", async () => {
    const token = (app: ReturnType<typeof createApp>, id: string, secret: string) =>
      app.request('/oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=${id}&client_secret=${encodeURIComponent(secret)}`,
      });
    const published = createSandbox(testConfig());
    expect(published.store.partners.byParent(DEMO.parent)?.secret_algorithm).toBe('sha256-salted');
    expect((await token(createApp(published), DEMO.clientId, DEMO.clientSecret)).status).toBe(200);
    expect((await token(createApp(published), DEMO.clientId, `${DEMO.clientSecret}x`)).status).toBe(401);
    published.close();
    // The same partner in a folder of one's own: a person may reuse that secret elsewhere.
    const own = createSandbox(testConfig({ fixtures: brokenFixtures('partners.json', (j) => j) }));
    expect(own.store.partners.byParent(DEMO.parent)?.secret_algorithm).toBe('scrypt-n16384-r8-p1');
    expect((await token(createApp(own), DEMO.clientId, DEMO.clientSecret)).status).toBe(200);
    expect((await token(createApp(own), DEMO.clientId, `${DEMO.clientSecret}x`)).status).toBe(401);
    own.close();
  });

  it('a broken scenario preset stops start-up naming the file and field', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({ name: 'bad', description: 'x', effects: [{ scenario: 'latency', value: 'slow' }] }),
    );
    expect(() => createSandbox(testConfig({ scenarios: dir }))).toThrow(/bad\.json: effects\.0\.value/);
  });
});

describe('durability with SANDBOX_DB=path', () => {
  it('state survives a restart (start, register, stop, start, read back)', async () => {
    const db = join(tempDir(), 'sandbox.db');
    const first = await startServer(testConfig({ db, port: 0 }));
    const token = demoToken;
    const t1 = await token(first.url);
    const headers = {
      Authorization: `Bearer ${t1}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
      'Content-Type': 'application/json',
    };
    const reg = await fetch(`${first.url}/v1/accounts/register/partnership`, {
      method: 'POST',
      headers,
      body: JSON.stringify(registerBody({ external_account_id: 'durable-1' })),
    });
    const accountId = ((await reg.json()) as { data: { account_id: string } }).data.account_id;
    const put = await fetch(`${first.url}${CONTROLS(accountId)}`, {
      method: 'PUT',
      headers: { ...headers, 'Idempotency-Key': 'durable-key' },
      body: JSON.stringify({
        blockedVerticals: [{ partnerVerticalId: 10, partnerSubVerticalId: 1001 }],
        domains: [],
        contentHash: null,
      }),
    });
    const written = ((await put.json()) as { data: { marketplace_controls_list: { content_hash: string } } })
      .data;
    await first.close();

    const second = await startServer(testConfig({ db, port: 0 }));
    try {
      // the token issued before the restart is still valid, and the account and its list are there
      const res = await fetch(`${second.url}${CONTROLS(accountId)}`, {
        headers: { Authorization: `Bearer ${t1}` },
      });
      const body = (await res.json()) as Parameters<typeof expectOk>[0]['body'];
      expect(res.status).toBe(200);
      expect(body.data.marketplace_controls_list.content_hash).toBe(
        written.marketplace_controls_list.content_hash,
      );
      expect(
        body.data.translated_verticals.find((v: { vertical_id: number }) => v.vertical_id === 1001).policy,
      ).toBe('Block');
      // the match on external_account_id holds across the restart
      const again = await fetch(`${second.url}/v1/accounts/register/partnership`, {
        method: 'POST',
        headers,
        body: JSON.stringify(registerBody({ external_account_id: 'durable-1' })),
      });
      expect(((await again.json()) as { data: { account_id: string } }).data.account_id).toBe(accountId);
      // the database passes its own integrity check
      expect(second.sandbox.store.db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(second.sandbox.store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      await second.close();
    }
  });
});

describe("errors of Node's HTTP parser are answered with the envelope (over a raw socket)", () => {
  let running: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    running = await startServer(testConfig({ port: 0 }));
  });
  afterAll(() => running?.close());

  /** Writes raw bytes (then ends the socket's writing side), reads until the server closes. */
  const send = async (request: string) => parseReply(await raw(running.port, request, { end: true }));

  it('a 2,000-name scenario header: 431 request_headers_too_large naming the limit', async () => {
    const names = Array.from({ length: 2000 }, (_, i) => `latency=${i}`).join(',');
    const res = await send(
      `GET /v1/partnership/vertical-mappings HTTP/1.1\r\nHost: x\r\nX-Sandbox-Scenario: ${names}\r\n\r\n`,
    );
    expectRawEnvelope(res, 431, 'request_headers_too_large');
    expect(res.body.message).toMatch(/exceed 16384 bytes/);
  });

  it('a duplicate Content-Length (to /oauth/token too): 400 malformed_request with the reason', async () => {
    const res = await send(
      'POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
    );
    expectRawEnvelope(res, 400, 'malformed_request');
    expect(res.body.message).toMatch(/^Malformed HTTP request: .*Content-Length/i);
  });

  for (const [label, request] of [
    ['Host: a b', 'GET /__sandbox/health HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n'],
    ['Host: x:99999', 'GET /__sandbox/health HTTP/1.1\r\nHost: x:99999\r\nConnection: close\r\n\r\n'],
    ['Host: [::1', 'GET /__sandbox/health HTTP/1.1\r\nHost: [::1\r\nConnection: close\r\n\r\n'],
    ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['GET http://[bad/', 'GET http://[bad/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
  ] as const) {
    it(`a request that makes no URL (${label}): 400 malformed_request in the envelope, not a bare 400`, async () => {
      expectRawEnvelope(await send(request), 400, 'malformed_request');
    });
  }

  it('a request line that is not HTTP: 400 malformed_request; the server keeps serving', async () => {
    expectRawEnvelope(await send('HELLO\r\n\r\n'), 400, 'malformed_request');
    const health = await fetch(`${running.url}/__sandbox/health`);
    expect(health.status).toBe(200);
  });
});

describe('startSandbox() options', () => {
  it.each([
    [{ port: -1 }, /startSandbox: invalid option port=-1: must be a whole number from 0 to 65535$/],
    [{ port: '4010' }, /startSandbox: invalid option port="4010": must be a whole number from 0 to 65535$/],
    [{ strictIdempotency: 'yes' }, /invalid option strictIdempotency="yes"/],
    [
      { authPropagationSeconds: 1.5 },
      /invalid option authPropagationSeconds=1\.5: must be a whole number from 0 to 86400$/,
    ],
    [
      { log: 'loud' },
      /invalid option log="loud": must be a boolean or an object with info\(\) and error\(\)/,
    ],
    [{ prot: 1 }, /startSandbox: invalid option prot: Unrecognized key/],
    [{ journalBodyBytes: -1 }, /invalid option journalBodyBytes=-1: must be a whole number from 0 to \d+$/],
    [{ journalBodyBytes: 1_048_577 }, /invalid option journalBodyBytes=1048577: /],
    [
      { tokenTtlSeconds: '60' },
      /invalid option tokenTtlSeconds="60": must be a whole number from 1 to 604800$/,
    ],
    [{ bodyLimitBytes: 10 }, /invalid option bodyLimitBytes=10: /],
    [{ journalBudgetMb: 0 }, /invalid option journalBudgetMb=0: /],
  ])('a bad option rejects naming it (%o)', async (options, message) => {
    await expect(startSandbox(options as SandboxOptions)).rejects.toThrow(message);
    await expect(startSandbox(options as SandboxOptions)).rejects.toBeInstanceOf(StartupError);
  });

  it.each([
    ['open sesame', /it contains whitespace/],
    ['tok€n-9f3a', /it contains a non-ASCII character/],
  ])(
    'an adminToken no Authorization header can carry (%j) rejects naming adminToken, not echoing it',
    async (token, cause) => {
      const start = startSandbox({ adminToken: token });
      await expect(start).rejects.toBeInstanceOf(StartupError);
      const err = (await start.catch((e: Error) => e)) as Error;
      expect(err.message).toMatch(
        /^startSandbox: invalid option adminToken: must be what an Authorization: Bearer header can carry: /,
      );
      expect(err.message).toMatch(cause);
      expect(err.message).not.toContain(token);
    },
  );

  it('an adminToken of visible ASCII punctuation (no b64token) is accepted, required and sent by control', async () => {
    const adminToken = 'p@ss!w0rd~"quoted";{x}=';
    const sandbox = await startSandbox({ adminToken });
    try {
      expect((await fetch(`${sandbox.url}/__sandbox/requests`)).status).toBe(401);
      const ok = await fetch(`${sandbox.url}/__sandbox/requests`, {
        headers: { Authorization: `Bearer ${adminToken}` },
      });
      expect(ok.status).toBe(200);
      expect((await sandbox.control.requests.list({})).requests).toEqual([]);
    } finally {
      await sandbox.stop();
    }
  });

  it('a store that cannot be opened rejects naming the db option (and SANDBOX_DB), the path and the user', async () => {
    await expect(startSandbox({ db: '/nonexistent/sandbox.db' })).rejects.toThrow(
      /^startSandbox: option db \(SANDBOX_DB\)=\/nonexistent\/sandbox\.db: cannot open the store as user .+ \(uid \d+\): the folder \/nonexistent does not exist/,
    );
  });

  it('a busy port, a missing fixtures or scenarios folder: a StartupError naming the option passed', async () => {
    const first = await startSandbox();
    try {
      for (const [options, message] of [
        [
          { port: first.port },
          new RegExp(`^startSandbox: option port \\(PORT\\)=${first.port}: .+ is in use`),
        ],
        [
          { fixtures: '/nope' },
          /^startSandbox: option fixtures \(SANDBOX_FIXTURES\)=\/nope: no such folder$/,
        ],
        [
          { scenarios: '/nope' },
          /^startSandbox: option scenarios \(SANDBOX_SCENARIOS\)=\/nope: no such folder$/,
        ],
        [
          { seed: '/nope/bundle.json' },
          /^startSandbox: option seed \(SANDBOX_SEED\)=\/nope\/bundle\.json: cannot read a JSON bundle/,
        ],
      ] as const) {
        const err = await startSandbox(options).catch((e: Error) => e);
        expect(err).toBeInstanceOf(StartupError);
        expect((err as Error).message).toMatch(message);
      }
    } finally {
      await first.stop();
    }
  });

  it('strictIdempotency: true and false both start; true answers 422 to a stored key with another payload', async () => {
    for (const strictIdempotency of [true, false]) {
      const sandbox = await startSandbox({ strictIdempotency });
      try {
        const token = await demoToken(sandbox.url);
        const account = await demoAccount(sandbox.url, token);
        const put = (status: string) =>
          fetch(`${sandbox.url}/v1/partnership/accounts/${account}/status`, {
            method: 'PUT',
            headers: {
              Authorization: `Bearer ${token}`,
              'X-Platform-Parent-Account-Id': DEMO.parent,
              'Idempotency-Key': 'strict-or-not',
              'Content-Type': 'application/json',
            },
            body: JSON.stringify({ status }),
          });
        expect((await put('paused')).status).toBe(200);
        expect((await put('active')).status).toBe(strictIdempotency ? 422 : 200);
      } finally {
        await sandbox.stop();
      }
    }
  });

  it('stop() twice is one stop; reset() after stop() rejects saying the sandbox was stopped; log: true writes JSON lines', async () => {
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    let sandbox: Awaited<ReturnType<typeof startSandbox>>;
    try {
      sandbox = await startSandbox({ log: true });
      await Promise.all([sandbox.stop(), sandbox.stop()]);
    } finally {
      process.stdout.write = write;
    }
    const lines = written
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual(['sandbox listening', 'stopped']);
    await expect(sandbox.reset()).rejects.toThrow(`startSandbox: the sandbox at ${sandbox.url} was stopped`);
  });

  it('the settings the environment has are options too: tokenTtlSeconds, journalMax, journalBodyBytes, seed', async () => {
    const first = await startSandbox();
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-options-'));
    try {
      await first.control.partners.create({ parent_account_id: 'pa_seeded_by_option' });
      const file = join(dir, 'bundle.json');
      writeFileSync(file, JSON.stringify(await first.control.bundles.export('pa_seeded_by_option')));
      const sandbox = await startSandbox({
        tokenTtlSeconds: 60,
        journalMax: 2,
        journalBodyBytes: 8,
        seed: file,
      });
      try {
        const token = await demoTokenResponse(sandbox.url);
        expect(((await token.json()) as { expires_in: number }).expires_in).toBe(60);
        for (let i = 0; i < 3; i++) await fetch(`${sandbox.url}/v1/partnership/vertical-mappings`);
        const journal = await sandbox.control.requests.list();
        expect(journal.requests).toHaveLength(2);
        expect(journal.requests[0]!.response_body_truncated).not.toBeNull();
        expect(await sandbox.control.partners.unseedMappings('pa_seeded_by_option')).toEqual({
          vertical_mappings: [],
        });
      } finally {
        await sandbox.stop();
      }
    } finally {
      await first.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('defaults: a free port, in memory, loopback; a logger of our own gets the lines', async () => {
    const lines: string[] = [];
    const sandbox = await startSandbox({
      log: { info: (m) => lines.push(m), error: (m) => lines.push(`error: ${m}`) },
    });
    try {
      expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`);
      expect(sandbox.port).toBeGreaterThan(0);
      expect(await sandbox.control.health()).toEqual({
        status: 'ok',
        store: { writable: true, problem: null },
      });
      await sandbox.control.partners.create({ parent_account_id: 'pa_in_memory' });
      await sandbox.reset();
      await expect(sandbox.control.partners.unseedMappings('pa_in_memory')).rejects.toMatchObject({
        status: 404,
      });
    } finally {
      await sandbox.stop();
    }
    await expect(fetch(`${sandbox.url}/__sandbox/health`)).rejects.toThrow();
  });
});
