/**
 * The control-plane client (docs/in-your-ci.md) against a listening sandbox (startSandbox, port
 * 0): every method once, with the answer checked against what the control plane did,
 * and its failures (404, 400, 401 with an admin token) as ControlPlaneError carrying the
 * status and the parsed body.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlClient } from '../../src/client/control-client.js';
import { CONTROL_OPERATIONS } from '../../src/client/control-operations.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { DEMO, REGISTER, registerBody, rejection } from '../helpers/harness.js';

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox?.stop());

async function token(url: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function register(url: string, externalId: string): Promise<string> {
  const res = await fetch(url + REGISTER, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${await token(url, DEMO.clientId, DEMO.clientSecret)}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify(registerBody({ external_account_id: externalId })),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { account_id: string } }).data.account_id;
}

describe('control-plane client: every method', () => {
  it('health() and the URL without a trailing slash', async () => {
    const control = createControlClient(`${sandbox.url}/`);
    expect(control.url).toBe(sandbox.url);
    expect(await control.health()).toEqual({ status: 'ok', store: { writable: true, problem: null } });
  });

  it('partners.create(), seedMappings(), unseedMappings(): the new partner gets a token and a mapping', async () => {
    const { control } = sandbox;
    const created = await control.partners.create({ name: 'Client test partner' });
    expect(created.parent_account_id).toMatch(/^pa_/);
    expect(created.client_secret.length).toBeGreaterThanOrEqual(8);
    const chosen = await control.partners.create({
      parent_account_id: 'pa_client_chosen',
      client_id: 'client-chosen',
      client_secret: 'chosen-secret-1',
    });
    expect(chosen).toEqual({
      parent_account_id: 'pa_client_chosen',
      client_id: 'client-chosen',
      client_secret: 'chosen-secret-1',
    });
    const bearer = await token(sandbox.url, chosen.client_id, chosen.client_secret);

    const mapping = {
      partner_vertical_id: 7,
      partner_vertical_name: 'Food',
      partner_sub_vertical_id: 701,
      partner_sub_vertical_name: 'Pizza',
      vertical_name: 'Restaurants',
    };
    const seeded = await control.partners.seedMappings(chosen.parent_account_id, [mapping]);
    expect(seeded.vertical_mappings).toHaveLength(1);
    const read = async () => {
      const res = await fetch(`${sandbox.url}/v1/partnership/vertical-mappings`, {
        headers: { Authorization: `Bearer ${bearer}` },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: { vertical_mappings: unknown[] } }).data.vertical_mappings;
    };
    expect(await read()).toHaveLength(1);
    expect(await control.partners.unseedMappings(chosen.parent_account_id)).toEqual({
      vertical_mappings: [],
    });
    expect(await read()).toEqual([]);
  });

  it('partners.list(): every partner with its accounts, as GET /__sandbox/partners answers', async () => {
    const { control } = sandbox;
    const accountId = await register(sandbox.url, `list-${Date.now()}`);
    const created = await control.partners.create({ name: 'Listed partner' });
    const { partners } = await control.partners.list();
    expect({ partners }).toEqual(await (await fetch(`${sandbox.url}/__sandbox/partners`)).json());
    expect(partners.find((p) => p.parent_account_id === created.parent_account_id)).toMatchObject({
      name: 'Listed partner',
      client_id: created.client_id,
      seeded: false,
      accounts: [],
    });
    const demo = partners.find((p) => p.parent_account_id === DEMO.parent);
    expect(demo?.seeded).toBe(true);
    expect(demo?.accounts.map((a) => a.account_id)).toContain(accountId);
  });

  it('accounts.get(), variants.add(), variants.update()', async () => {
    const { control } = sandbox;
    const accountId = await register(sandbox.url, 'client-variants');
    const before = await control.accounts.get(accountId);
    expect(before.account.account_id).toBe(accountId);
    const page = before.pages[0] as { page_id: string };
    const added = await control.variants.add(accountId, {
      page_id: page.page_id,
      name: 'Holiday',
      enabled: false,
    });
    expect(added).toMatchObject({ account_id: accountId, name: 'Holiday', enabled: false, archived: false });
    const updated = await control.variants.update(added.variant_id, { archived: true });
    expect(updated).toMatchObject({ variant_id: added.variant_id, enabled: false, archived: true });
    const after = await control.accounts.get(accountId);
    expect(after.variants.find((v) => v.variant_id === added.variant_id)?.archived).toBe(true);
  });

  it('clock.get() and clock.advance(seconds)', async () => {
    const { control } = sandbox;
    const now = await control.clock.get();
    const later = await control.clock.advance(3600);
    expect(later.offset_seconds).toBe(now.offset_seconds + 3600);
    expect(Date.parse(later.now) - Date.parse(now.now)).toBeGreaterThanOrEqual(3600_000);
  });

  it('requests.list(filters) and requests.clear()', async () => {
    const { control } = sandbox;
    await control.requests.clear();
    await register(sandbox.url, 'client-journal');
    const all = await control.requests.list();
    expect(all.requests.map((r) => r.path)).toEqual([REGISTER, '/oauth/token']);
    const filtered = await control.requests.list({ path: REGISTER, status: 200, limit: 5 });
    expect(filtered.requests).toHaveLength(1);
    expect(filtered.requests[0]).toMatchObject({ method: 'POST', status: 200 });
    expect((await control.requests.list({ status: 404 })).requests).toEqual([]);
    expect(await control.requests.clear()).toEqual({ cleared: true });
    expect((await control.requests.list()).requests).toEqual([]);
  });

  it('scenarios.list(), arm() and disarm(): an armed scenario applies to the next call', async () => {
    const { control } = sandbox;
    const catalogue = await control.scenarios.list();
    expect(catalogue.built_ins.map((b) => b.name)).toContain('server-error');
    // The token first: a drill armed for the parent applies to its token grants too (docs/fault-injection.md).
    const bearer = await token(sandbox.url, DEMO.clientId, DEMO.clientSecret);
    const { armed } = await control.scenarios.arm({
      scenario: 'server-error',
      value: 503,
      parent_account_id: DEMO.parent,
      times: 1,
    });
    expect(armed).toMatchObject({ scenario: 'server-error', remaining: 1, parent_account_id: DEMO.parent });
    expect((await control.scenarios.list()).armed).toHaveLength(1);
    const res = await fetch(`${sandbox.url}/v1/partnership/vertical-mappings`, {
      headers: { Authorization: `Bearer ${bearer}` },
    });
    expect(res.status).toBe(503);
    await control.scenarios.arm({
      scenario: 'latency',
      value: 10,
      account_id: await register(sandbox.url, 'x'),
    });
    expect(await control.scenarios.disarm()).toEqual({ armed: [] });
    expect((await control.scenarios.list()).armed).toEqual([]);
  });

  it('report(parent) as JSON and as JUnit XML', async () => {
    const { control } = sandbox;
    const json = await control.report(DEMO.parent);
    expect(json.parent_account_id).toBe(DEMO.parent);
    expect(json.checks.length).toBeGreaterThan(0);
    const xml = await control.report(DEMO.parent, 'junit');
    expect(xml).toMatch(/^<\?xml[\s\S]*<testsuite/);
  });

  it('reset(): partners made since are gone, the clock is back', async () => {
    const { control } = sandbox;
    await control.partners.create({ parent_account_id: 'pa_before_reset' });
    await control.clock.advance(60);
    const answer = await control.reset();
    expect(answer).toMatchObject({ reset: true, clock: { offset_seconds: 0 } });
    const err = await rejection(control.partners.seedMappings('pa_before_reset', []));
    expect(err.status).toBe(404);
  });
});

describe('control-plane client: operations derived from the declarations', () => {
  it('every declared operation is a method of operations, by its operationId', () => {
    const control = createControlClient(sandbox.url);
    expect(Object.keys(control.operations).sort()).toEqual(Object.keys(CONTROL_OPERATIONS).sort());
    for (const method of Object.values(control.operations)) expect(typeof method).toBe('function');
  });

  it('an operation fills its path parameters, writes its query and sends its body', async () => {
    const { operations } = createControlClient(sandbox.url);
    const partner = await operations.createPartner({ body: { name: 'Derived operations partner' } });
    const parent = partner.parent_account_id;
    const seeded = await operations.seedVerticalMappings({
      params: { parent_account_id: parent },
      body: {
        vertical_mappings: [
          {
            partner_vertical_id: 7,
            partner_vertical_name: 'Food',
            partner_sub_vertical_id: 701,
            partner_sub_vertical_name: 'Pizza',
            vertical_name: 'Restaurants',
          },
        ],
      },
    });
    expect(seeded.vertical_mappings).toHaveLength(1);
    const advanced = await operations.advancePartnerClock({
      params: { parent_account_id: parent },
      body: { seconds: 60 },
    });
    expect(advanced).toMatchObject({ parent_account_id: parent, offset_seconds: 60 });
    expect((await sandbox.control.partners.clock.get(parent)).offset_seconds).toBe(60);
    const listed = await operations.listRequests({ query: { method: 'PUT', limit: 1 } });
    expect(listed).toEqual(await sandbox.control.requests.list({ method: 'PUT', limit: 1 }));
    const reset = await operations.resetPartner({ params: { parent_account_id: parent } });
    expect(reset).toMatchObject({ reset: true, parent_account_id: parent, clock: { offset_seconds: 0 } });
    const missing = await rejection(operations.getAccount({ params: { account_id: 'acct_nope' } }));
    expect(missing.status).toBe(404);
    expect(missing.path).toBe('/__sandbox/accounts/acct_nope');
  });
});

describe('control-plane client: failures', () => {
  it('a 404 throws ControlPlaneError with the status, the code and the parsed envelope', async () => {
    const err = await rejection(sandbox.control.accounts.get('acct_missing'));
    expect(err.status).toBe(404);
    expect(err.code).toBe('account_not_found');
    expect(err.method).toBe('GET');
    expect(err.path).toBe('/__sandbox/accounts/acct_missing');
    expect(err.body).toMatchObject({ status: 404, error: { code: 'account_not_found' }, data: null });
    expect(err.message).toBe(
      'GET /__sandbox/accounts/acct_missing answered 404: Account acct_missing was not found.',
    );
  });

  it('no sandbox there: a refused connection is ControlPlaneError status 0 naming the URL, not a bare "fetch failed"', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const err = await rejection(createControlClient(`http://127.0.0.1:${port}`).health());
    expect(err.status).toBe(0);
    expect(err.message).toMatch(
      new RegExp(
        `^GET http://127\\.0\\.0\\.1:${port}/__sandbox/health failed: .*ECONNREFUSED.*is a sandbox running`,
      ),
    );
    expect(err.cause).toBeInstanceOf(Error);
  });

  it('a sandbox that does not answer: the call fails after timeoutMs (status 0), it does not hang', async () => {
    const server = createServer(() => {}); // accepts, never answers
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const started = performance.now();
      const err = await rejection(createControlClient(url, { timeoutMs: 300 }).health());
      expect(err.status).toBe(0);
      expect(err.message).toContain('no answer within 300 ms');
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('a 200 that is not JSON (a proxy page, another server) throws instead of resolving to the page', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const client = createControlClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      for (const call of [client.health(), client.requests.count({})]) {
        const err = await rejection(call);
        expect(err.status).toBe(200);
        expect(err.body).toBe('<html>hello</html>');
        expect(err.message).toMatch(/answered 200 with text\/html, not JSON/);
      }
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('a 400 carries the field named by the control plane', async () => {
    const err = await rejection(sandbox.control.clock.advance(-5));
    expect(err.status).toBe(400);
    expect(err.code).toBe('validation_error');
    expect(err.message).toMatch(/seconds/);
  });

  it('path segments are encoded (no route escape through an ID)', async () => {
    const err = await rejection(sandbox.control.accounts.get('../health'));
    expect(err.status).toBe(404);
    expect(err.path).toBe('/__sandbox/accounts/..%2Fhealth');
  });

  describe('with SANDBOX_ADMIN_TOKEN set', () => {
    let guarded: RunningSandbox;
    beforeAll(async () => {
      guarded = await startSandbox({ adminToken: 'client-test-admin-token' });
    });
    afterAll(() => guarded?.stop());

    it('without the token: 401 ControlPlaneError (health stays open)', async () => {
      const anonymous = createControlClient(guarded.url);
      expect(await anonymous.health()).toEqual({ status: 'ok', store: { writable: true, problem: null } });
      const err = await rejection(anonymous.clock.get());
      expect(err.status).toBe(401);
      expect(err.code).toBe('unauthorized');
    });

    it('with a wrong token: 401; with the right one: served', async () => {
      const wrong = createControlClient(guarded.url, { adminToken: 'not-the-token' });
      expect((await rejection(wrong.scenarios.list())).status).toBe(401);
      const right = createControlClient(guarded.url, { adminToken: 'client-test-admin-token' });
      expect((await right.clock.get()).offset_seconds).toBe(0);
      // startSandbox's own client carries the token
      expect((await guarded.control.requests.list()).requests).toEqual([]);
    });
  });
});
