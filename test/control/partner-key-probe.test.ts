/**
 * A hostile partner against its own control plane (SANDBOX.md §13, first bullet): what
 * test/control/partner-key.test.ts does not already try. A partner's token, whatever it sends, learns
 * nothing of another partner: filters matching only the other's calls, calls of no known
 * partner, the JUnit report, path tricks on a listening server, a token sent elsewhere than
 * Authorization, cross-site browser requests, and tokens outliving their partner.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CROSS_SITE_MESSAGE } from '../../src/control/cross-site.js';
import { type Running, startServer } from '../../src/server.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  type Harness,
  testConfig,
} from '../helpers/harness.js';

const ADMIN = 'admin-token-0123456789abcdef';
const admin = { Authorization: `Bearer ${ADMIN}` };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const RIVAL = {
  parent: 'pa_rival_probe',
  clientId: 'rival-probe-client',
  clientSecret: 'rival-probe-secret-0123',
};
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const MARK = 'rival-only-marker-7f3a';

async function setUp(h: Harness) {
  expect(
    (
      await h.request('POST', '/__sandbox/partners', {
        headers: admin,
        body: {
          parent_account_id: RIVAL.parent,
          client_id: RIVAL.clientId,
          client_secret: RIVAL.clientSecret,
        },
      })
    ).status,
  ).toBe(201);
  const mapping = h.sandbox.fixtures.partners[0]!.mapping.map((m) => ({
    partner_vertical_id: m.partner_vertical_id,
    partner_vertical_name: m.partner_vertical_name,
    partner_sub_vertical_id: m.partner_sub_vertical_id,
    partner_sub_vertical_name: m.partner_sub_vertical_name,
    vertical_name: m.vertical_name,
  }));
  await h.request('PUT', `/__sandbox/partners/${RIVAL.parent}/vertical-mappings`, {
    headers: admin,
    body: { vertical_mappings: mapping },
  });
  const demo = await h.client(DEMO);
  const rival = await h.client(RIVAL);
  const demoAccount = await demo.account();
  const rivalAccount = await rival.account({ external_account_id: MARK });
  // The rival's calls: one with a trace and a header of its own, one failing (404) with status 404.
  await rival.get(CONTROLS(rivalAccount), {
    traceparent: `00-${TRACE}-00f067aa0ba902b7-01`,
    'X-Rival-Header': MARK,
  });
  await rival.get(CONTROLS('acct_rival_missing'));
  return { demo, rival, demoAccount, rivalAccount };
}

// The served documents every answer is checked against are read once per process, from an open sandbox.
beforeAll(async () => {
  await createHarness().request('GET', '/__sandbox/health');
});

describe("a partner's token probing for another partner's calls", () => {
  let h: Harness;
  let p: Awaited<ReturnType<typeof setUp>>;
  const as = (method: string, path: string, body?: unknown) =>
    h.request(method, path, { headers: bearer(p.demo.token), ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    h = createHarness({ adminToken: ADMIN });
    p = await setUp(h);
  });

  it("filters that match only the rival's calls find none, in the list and the count", async () => {
    // The admin sees the rival's calls by each of these filters: they do match something.
    const filters: [string, Record<string, unknown>][] = [
      [`trace_id=${TRACE}`, { trace_id: TRACE }],
      [`path=${p.rivalAccount}`, { path: p.rivalAccount }],
      ['status=404', { status: 404 }],
    ];
    for (const [query, body] of filters) {
      const seen = await h.request('GET', `/__sandbox/requests?${query}`, { headers: admin });
      expect(seen.body.requests.length, query).toBeGreaterThan(0);
      expect((await as('GET', `/__sandbox/requests?${query}`)).body.requests, query).toEqual([]);
      expect((await as('POST', '/__sandbox/requests/count', body)).body, query).toEqual({ count: 0 });
    }
    const adminCount = await h.request('POST', '/__sandbox/requests/count', {
      headers: admin,
      body: { header: { name: 'X-Rival-Header', value: MARK } },
    });
    expect(adminCount.body.count).toBe(1);
    expect(
      (await as('POST', '/__sandbox/requests/count', { header: { name: 'X-Rival-Header' } })).body,
    ).toEqual({
      count: 0,
    });
    expect(
      (
        await as('POST', '/__sandbox/requests/count', {
          header: { name: 'X-Platform-Parent-Account-Id', value: RIVAL.parent },
        })
      ).body,
    ).toEqual({ count: 0 });
    expect((await as('POST', '/__sandbox/requests/count', { body_contains: MARK })).body).toEqual({
      count: 0,
      bodies_truncated: 0,
    });
    expect((await as('GET', '/__sandbox/requests')).text).not.toContain(RIVAL.parent);
    expect((await as('GET', '/__sandbox/report')).text).not.toContain(RIVAL.parent);
  });

  it('calls of no known partner (a wrong secret, no token, a bad token) are not its calls', async () => {
    const ids: string[] = [];
    const form = (clientId: string) =>
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: 'wrong',
      }).toString();
    for (const clientId of [RIVAL.clientId, DEMO.clientId]) {
      const res = await h.request('POST', '/oauth/token', {
        raw: form(clientId),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(401);
      ids.push(res.headers.get('x-request-id')!);
    }
    const sent: Record<string, string>[] = [
      {},
      bearer('sbx_forged'),
      { 'X-Platform-Parent-Account-Id': DEMO.parent },
    ];
    for (const headers of sent) {
      const res = await h.request('GET', CONTROLS(p.demoAccount), { headers });
      expect(res.status).toBe(401);
      ids.push(res.headers.get('x-request-id')!);
    }
    const all = (await h.request('GET', '/__sandbox/requests', { headers: admin })).body.requests;
    for (const id of ids)
      expect(
        all.some((e: { request_id: string }) => e.request_id === id),
        id,
      ).toBe(true);
    const own = (await as('GET', '/__sandbox/requests')).body.requests as { request_id: string }[];
    expect(own.filter((e) => ids.includes(e.request_id))).toEqual([]);
    expect((await as('POST', '/__sandbox/requests/count', { status: 401 })).body).toEqual({ count: 0 });
    const bundle = await as('GET', `/__sandbox/partners/${DEMO.parent}/bundle`);
    expect(bundle.status).toBe(200);
    for (const id of ids) expect(bundle.text).not.toContain(id);
  });

  it("the rival's JUnit report answers 404 exactly as a parent that does not exist", async () => {
    const other = await as('GET', `/__sandbox/report?parent_account_id=${RIVAL.parent}&format=junit`);
    const none = await as('GET', '/__sandbox/report?parent_account_id=pa_nowhere_probe&format=junit');
    expectErrorEnvelope(other, 404, 'not_found');
    expectErrorEnvelope(none, 404, 'not_found');
    expect(other.text.replace(RIVAL.parent, '<id>').replace(other.body.request_id, '')).toBe(
      none.text.replace('pa_nowhere_probe', '<id>').replace(none.body.request_id, ''),
    );
  });

  it("arming its own parent with the rival's account, or the reverse, learns nothing of the rival", async () => {
    const cases: [string, (t: { parent: string; account: string }) => Record<string, string>][] = [
      ['own parent, their account', (t) => ({ parent_account_id: DEMO.parent, account_id: t.account })],
      ['their parent, own account', (t) => ({ parent_account_id: t.parent, account_id: p.demoAccount })],
    ];
    for (const [name, target] of cases) {
      const other = await as('PUT', '/__sandbox/scenarios', {
        scenario: 'server-error',
        ...target({ parent: RIVAL.parent, account: p.rivalAccount }),
      });
      const none = await as('PUT', '/__sandbox/scenarios', {
        scenario: 'server-error',
        ...target({ parent: 'pa_nowhere_probe', account: 'acct_nowhere_probe' }),
      });
      expect(other.status, name).toBe(none.status);
      expect(other.status, name).not.toBe(200);
      const strip = (text: string, ids: string[]) => ids.reduce((t, id) => t.replaceAll(id, '<id>'), text);
      expect(strip(other.text.replace(other.body.request_id, ''), [RIVAL.parent, p.rivalAccount]), name).toBe(
        strip(none.text.replace(none.body.request_id, ''), ['pa_nowhere_probe', 'acct_nowhere_probe']),
      );
    }
    expect((await h.request('GET', '/__sandbox/scenarios', { headers: admin })).body.armed).toEqual([]);
  });

  it('a token sent anywhere but Authorization: Bearer is no token', async () => {
    const t = p.demo.token;
    const basic = `Basic ${Buffer.from(`${DEMO.clientId}:${DEMO.clientSecret}`).toString('base64')}`;
    for (const [path, headers] of [
      [`/__sandbox/scenarios?access_token=${t}`, {}],
      ['/__sandbox/scenarios', { 'X-Access-Token': t }],
      ['/__sandbox/scenarios', { Cookie: `token=${t}` }],
      ['/__sandbox/scenarios', { Authorization: `Token ${t}` }],
      ['/__sandbox/scenarios', { Authorization: basic }],
      ['/__sandbox/scenarios', { 'Proxy-Authorization': `Bearer ${t}` }],
    ] as const) {
      const res = await h.request('GET', path, { headers });
      expectErrorEnvelope(res, 401, 'unauthorized');
      expect(res.headers.get('x-sandbox-partner'), path).toBeNull();
    }
  });

  it("a cross-site browser request carrying a partner's token is still refused", async () => {
    const browsers: Record<string, string>[] = [
      { Origin: 'https://evil.example' },
      { 'Sec-Fetch-Site': 'cross-site' },
      { Origin: 'null' },
    ];
    for (const headers of browsers) {
      const res = await h.request('DELETE', '/__sandbox/scenarios', {
        headers: { ...bearer(p.demo.token), ...headers },
      });
      expectErrorEnvelope(res, 403, 'forbidden');
      expect(res.body.message).toBe(CROSS_SITE_MESSAGE);
      expect(res.headers.get('x-sandbox-partner')).toBeNull();
    }
  });
});

describe("a partner's token that outlived its partner's state", () => {
  it('after a global reset it is 401; after its partner reset it still opens its own control plane', async () => {
    const h = createHarness({ adminToken: ADMIN });
    const token = await h.token();
    expect(
      (await h.request('POST', `/__sandbox/partners/${DEMO.parent}/reset`, { headers: bearer(token) }))
        .status,
    ).toBe(200);
    expect((await h.request('GET', '/__sandbox/scenarios', { headers: bearer(token) })).status).toBe(200);
    expect((await h.request('POST', '/__sandbox/reset', { headers: admin })).status).toBe(200);
    expectErrorEnvelope(
      await h.request('GET', '/__sandbox/scenarios', { headers: bearer(token) }),
      401,
      'unauthorized',
    );
  });

  it('after its bundle is imported over it, an old token is 401', async () => {
    const h = createHarness({ adminToken: ADMIN });
    const p = await setUp(h);
    const before = await h.request('GET', `/__sandbox/accounts/${p.demoAccount}`, {
      headers: bearer(p.demo.token),
    });
    expect(before.status).toBe(200);
    const bundle = (await h.request('GET', `/__sandbox/partners/${DEMO.parent}/bundle`, { headers: admin }))
      .body;
    expect((await h.request('POST', '/__sandbox/bundles', { headers: admin, body: bundle })).status).toBe(
      200,
    );
    const res = await h.request('GET', `/__sandbox/accounts/${p.rivalAccount}`, {
      headers: bearer(p.demo.token),
    });
    // The import replaced the partner with its tokens: the old one opens nothing now.
    expectErrorEnvelope(res, 401, 'unauthorized');
    expect(res.headers.get('x-sandbox-partner')).toBeNull();
  });
});

/** A request with its target sent as written (fetch would resolve it). */
const raw = (url: string, method: string, target: string, headers: Record<string, string>, body?: unknown) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        hostname,
        port,
        method,
        path: target,
        headers: { ...headers, ...(text === undefined ? {} : { 'content-type': 'application/json' }) },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text: data }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });

describe("path tricks with a partner's token on a listening server", () => {
  let server: Running;
  let h: { token: string };
  beforeAll(async () => {
    server = await startServer(testConfig({ port: 0, adminToken: ADMIN }));
    const post = (path: string, body: unknown, headers: Record<string, string> = admin) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await post('/__sandbox/partners', {
      parent_account_id: RIVAL.parent,
      client_id: RIVAL.clientId,
      client_secret: RIVAL.clientSecret,
    });
    const tokenOf = async (id: string, secret: string) =>
      (
        (await (
          await fetch(`${server.url}/oauth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'client_credentials',
              client_id: id,
              client_secret: secret,
            }),
          })
        ).json()) as { access_token: string }
      ).access_token;
    const token = await tokenOf(DEMO.clientId, DEMO.clientSecret);
    h = { token };
  });
  afterAll(async () => {
    await server.close();
  });

  it("no encoding, slash, case or host trick reaches the rival's state or an admin-only route", async () => {
    const headers = bearer(h.token);
    const rivalClock = async () =>
      JSON.parse((await raw(server.url, 'GET', `/__sandbox/partners/${RIVAL.parent}/clock`, admin)).text)
        .offset_seconds;
    const clockBefore = await rivalClock();
    const partnersBefore = (await raw(server.url, 'GET', '/__sandbox/partners', admin)).text;
    const tries: [string, string, unknown?][] = [
      ['POST', `/__sandbox/partners/${DEMO.parent}%2F..%2F..%2Freset`],
      ['POST', `/__sandbox/partners/${DEMO.parent}%2F..%2F${RIVAL.parent}/reset`],
      ['POST', `/__sandbox/partners/${RIVAL.parent}%2F/reset`],
      ['POST', `/__sandbox/partners/${RIVAL.parent.toUpperCase()}/reset`],
      ['POST', `/__sandbox/partners/${encodeURIComponent(RIVAL.parent).replace('_', '%5F')}/reset`],
      ['POST', `/__sandbox/partners/${RIVAL.parent}/reset/`],
      ['POST', `/__sandbox//partners/${RIVAL.parent}/reset`],
      ['POST', `//host.example/__sandbox/partners/${RIVAL.parent}/reset`],
      ['POST', `/__sandbox/partners/${RIVAL.parent}/clock/advance`, { seconds: 999 }],
      ['POST', `/__sandbox/partners/${RIVAL.parent}%2Fclock%2Fadvance`, { seconds: 999 }],
      ['POST', '//host.example/__sandbox/reset'],
      ['POST', '/__SANDBOX/reset'],
      ['POST', '/__sandbox/reset/'],
      ['POST', '/__sandbox/%72eset'],
      ['POST', '/__sandbox\\reset'],
      ['POST', '/__sandbox/clock/advance', { seconds: 999 }],
      ['POST', '/__sandbox/partners/%2e%2e/clock/advance', { seconds: 999 }],
    ];
    for (const [method, target, body] of tries) {
      const res = await raw(server.url, method, target, headers, body);
      expect([400, 403, 404, 405], `${target}: ${res.status} ${res.text}`).toContain(res.status);
      expect(res.text, target).not.toContain(`"parent_account_id":"${RIVAL.parent}"`);
    }
    expect(await rivalClock()).toBe(clockBefore);
    expect((await raw(server.url, 'GET', '/__sandbox/partners', admin)).text).toBe(partnersBefore);
  });
});

describe("a partner's own clock and the operator's global clock", () => {
  // Found by the probe: the global clock's headroom was what the furthest partner clock left, so
  // one partner moving its own clock to the 100-year bound (fresh tokens from its credentials
  // after each move) left the operator's global clock no room, and the 400 pointed it to
  // POST /__sandbox/reset, which wipes every partner. Each is bounded on its own now.
  it("moving its own clock as far as it goes leaves the operator's global clock room to move", async () => {
    const h = createHarness({ adminToken: ADMIN });
    for (let moved = 0; moved < 20; moved++) {
      const res = await h.request('POST', `/__sandbox/partners/${DEMO.parent}/clock/advance`, {
        headers: bearer(await h.token()),
        body: { seconds: 10 * 365 * 86_400 },
      });
      if (res.status !== 200) break;
    }
    const global = await h.request('POST', '/__sandbox/clock/advance', {
      headers: admin,
      body: { seconds: 60 },
    });
    expect(global.status).toBe(200);
  });
});
