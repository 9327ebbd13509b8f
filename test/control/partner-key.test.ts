/**
 * A partner's key to its own control plane (docs/hosting.md, "A partner's own control plane"):
 * with SANDBOX_ADMIN_TOKEN set, a partner's access token opens the routes declared for it and
 * acts for that partner alone; another partner's parent, account or variant is 404 exactly as
 * one that does not exist; every other route is 403; without SANDBOX_ADMIN_TOKEN nothing changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlClient } from '../../src/client/control-client.js';
import { accessOf } from '../../src/contract/control/access.js';
import { CONTROL_ROUTES } from '../../src/contract/control/control-routes-all.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import {
  createHarness,
  DEMO,
  expectErrorEnvelope,
  type Harness,
  type Reply,
  rejection,
} from '../helpers/harness.js';

const ADMIN = 'admin-token-0123456789abcdef';
const admin = { Authorization: `Bearer ${ADMIN}` };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const RIVAL = {
  parent: 'pa_rival_platform',
  clientId: 'rival-client',
  clientSecret: 'rival-secret-0123456789',
};
const NOWHERE = {
  parent: 'pa_no_such_platform',
  account: 'acct_no_such_account',
  variant: 'no-such-variant',
};

/** The demo partner's mapping, as the seed route takes it. */
const demoMapping = (h: Harness) =>
  h.sandbox.fixtures.partners[0]!.mapping.map((m) => ({
    partner_vertical_id: m.partner_vertical_id,
    partner_vertical_name: m.partner_vertical_name,
    partner_sub_vertical_id: m.partner_sub_vertical_id,
    partner_sub_vertical_name: m.partner_sub_vertical_name,
    vertical_name: m.vertical_name,
  }));

/** The demo partner and a rival, each with a token and an account; the rival's state set up by the admin. */
async function twoPartners(h: Harness) {
  const created = await h.request('POST', '/__sandbox/partners', {
    headers: admin,
    body: { parent_account_id: RIVAL.parent, client_id: RIVAL.clientId, client_secret: RIVAL.clientSecret },
  });
  expect(created.status).toBe(201);
  const mapping = demoMapping(h);
  const seeded = await h.request('PUT', `/__sandbox/partners/${RIVAL.parent}/vertical-mappings`, {
    headers: admin,
    body: { vertical_mappings: mapping },
  });
  expect(seeded.status).toBe(200);
  const demo = await h.client(DEMO);
  const rival = await h.client(RIVAL);
  const demoAccount = await demo.account();
  const rivalAccount = await rival.account();
  const variantOf = async (account: string) =>
    (await h.request('GET', `/__sandbox/accounts/${account}`, { headers: admin })).body.variants[0]
      .variant_id as string;
  return {
    demo: { token: demo.token, account: demoAccount, variant: await variantOf(demoAccount), client: demo },
    rival: {
      token: rival.token,
      account: rivalAccount,
      variant: await variantOf(rivalAccount),
      client: rival,
    },
  };
}

/** An error answer with what differs between two calls taken out: its request ID, and the ID sent. */
const sameAs = (res: Reply, id: string) =>
  JSON.stringify({ ...res.body, request_id: '' }).replaceAll(id, '<id>');

// The served documents every answer is checked against are read once per process, from an open sandbox.
beforeAll(async () => {
  await createHarness().request('GET', '/__sandbox/health');
});

describe("a partner's token on the control plane", () => {
  let h: Harness;
  let p: Awaited<ReturnType<typeof twoPartners>>;
  const as = (method: string, path: string, body?: unknown) =>
    h.request(method, path, { headers: bearer(p.demo.token), ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    h = createHarness({ adminToken: ADMIN });
    p = await twoPartners(h);
  });

  it('names the partner it acts for in X-Sandbox-Partner', async () => {
    const res = await as('GET', '/__sandbox/scenarios');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-sandbox-partner')).toBe(DEMO.parent);
    expect(
      (await h.request('GET', '/__sandbox/scenarios', { headers: admin })).headers.get('x-sandbox-partner'),
    ).toBeNull();
  });

  it('reads and edits its own accounts, variants and mapping', async () => {
    const account = await as('GET', `/__sandbox/accounts/${p.demo.account}`);
    expect(account.status).toBe(200);
    expect(account.body.account.parent_account_id).toBe(DEMO.parent);
    const added = await as('POST', `/__sandbox/accounts/${p.demo.account}/variants`, {
      page_id: account.body.pages[0].page_id,
      name: 'Own variant',
    });
    expect(added.status).toBe(201);
    const patched = await as('PATCH', `/__sandbox/variants/${p.demo.variant}`, { enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body.enabled).toBe(false);
    const mapping = demoMapping(h);
    expect((await as('DELETE', `/__sandbox/partners/${DEMO.parent}/vertical-mappings`)).body).toEqual({
      vertical_mappings: [],
    });
    const seeded = await as('PUT', `/__sandbox/partners/${DEMO.parent}/vertical-mappings`, {
      vertical_mappings: mapping,
    });
    expect(seeded.status).toBe(200);
    expect(seeded.body.vertical_mappings).toHaveLength(mapping.length);
  });

  it('reads and moves its own clock only', async () => {
    const before = await as('GET', `/__sandbox/partners/${DEMO.parent}/clock`);
    expect(before.status).toBe(200);
    const moved = await as('POST', `/__sandbox/partners/${DEMO.parent}/clock/advance`, { seconds: 60 });
    expect(moved.status).toBe(200);
    expect(moved.body.offset_seconds).toBe(before.body.offset_seconds + 60);
    const rival = await h.request('GET', `/__sandbox/partners/${RIVAL.parent}/clock`, { headers: admin });
    expect(rival.body.offset_seconds).toBe(0);
  });

  it('exports its own bundle', async () => {
    const res = await as('GET', `/__sandbox/partners/${DEMO.parent}/bundle`);
    expect(res.status).toBe(200);
    expect(res.body.partner.parent_account_id).toBe(DEMO.parent);
    expect(JSON.stringify(res.body)).not.toContain(RIVAL.parent);
  });

  it('sees, counts and reports its own calls only, whatever filters it passes', async () => {
    const own = await as('GET', '/__sandbox/requests');
    expect(own.status).toBe(200);
    expect(own.body.requests.length).toBeGreaterThan(0);
    expect(new Set(own.body.requests.map((e: { parent_account_id: string }) => e.parent_account_id))).toEqual(
      new Set([DEMO.parent]),
    );
    const rivalCalls = (
      await h.request('GET', `/__sandbox/requests?parent_account_id=${RIVAL.parent}`, { headers: admin })
    ).body.requests.length;
    expect(rivalCalls).toBeGreaterThan(0);
    for (const filter of [`account_id=${p.rival.account}`, `parent_account_id=${RIVAL.parent}`]) {
      const res = await as('GET', `/__sandbox/requests?${filter}`);
      expect(res.status, filter).toBe(200);
      expect(res.body.requests, filter).toEqual([]);
    }
    const mine = await as('GET', `/__sandbox/requests?account_id=${p.demo.account}`);
    expect(mine.body.requests.length).toBeGreaterThan(0);

    const count = async (body: unknown) => (await as('POST', '/__sandbox/requests/count', body)).body;
    expect((await count({})).count).toBe(own.body.requests.length);
    expect(await count({ account_id: p.rival.account })).toEqual({ count: 0 });
    expect(await count({ parent_account_id: RIVAL.parent })).toEqual({ count: 0 });
    expect(await count({ parent_account_id: RIVAL.parent, body_contains: 'a' })).toEqual({
      count: 0,
      bodies_truncated: 0,
    });
    expect((await count({ parent_account_id: DEMO.parent })).count).toBe(own.body.requests.length);

    const report = await as('GET', '/__sandbox/report');
    expect(report.status).toBe(200);
    expect(report.body.parent_account_id).toBe(DEMO.parent);
    const junit = await as('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}&format=junit`);
    expect(junit.status).toBe(200);
    expect(junit.text).toContain('<testsuite');
  });

  it('arms for its parent or its accounts, lists and disarms its own armed scenarios only', async () => {
    const rivalArmed = await h.request('PUT', '/__sandbox/scenarios', {
      headers: admin,
      body: { scenario: 'server-error', parent_account_id: RIVAL.parent },
    });
    expect(rivalArmed.status).toBe(200);
    const untargeted = await as('PUT', '/__sandbox/scenarios', { scenario: 'server-error', times: 1 });
    expect(untargeted.status).toBe(200);
    expect(untargeted.body.armed.parent_account_id).toBe(DEMO.parent);
    const onAccount = await as('PUT', '/__sandbox/scenarios', {
      scenario: 'rate-limited',
      account_id: p.demo.account,
    });
    expect(onAccount.body.armed.account_id).toBe(p.demo.account);

    const listed = await as('GET', '/__sandbox/scenarios');
    expect(listed.status).toBe(200);
    expect(listed.body.built_ins.length).toBeGreaterThan(0);
    expect(listed.body.armed.map((a: { id: number }) => a.id)).toEqual([
      untargeted.body.armed.id,
      onAccount.body.armed.id,
    ]);

    expect((await as('DELETE', '/__sandbox/scenarios')).body).toEqual({ armed: [] });
    const left = (await h.request('GET', '/__sandbox/scenarios', { headers: admin })).body.armed;
    expect(left.map((a: { id: number }) => a.id)).toEqual([rivalArmed.body.armed.id]);
    await h.request('DELETE', '/__sandbox/scenarios', { headers: admin });
  });

  it('sets, reads and ends its own chaos profile only', async () => {
    const rival = await h.request('PUT', '/__sandbox/chaos', {
      headers: admin,
      body: { rate: 0, seed: 1, parent_account_id: RIVAL.parent },
    });
    expect(rival.status).toBe(200);
    const everyone = await h.request('PUT', '/__sandbox/chaos', {
      headers: admin,
      body: { rate: 0, seed: 2 },
    });
    expect(everyone.status).toBe(200);
    const own = await as('PUT', '/__sandbox/chaos', { rate: 0, seed: 3 });
    expect(own.status).toBe(200);
    expect(own.body.profile.parent_account_id).toBe(DEMO.parent);

    const seen = await as('GET', '/__sandbox/chaos');
    expect(seen.body.profiles.map((x: { seed: number }) => x.seed)).toEqual([3]);
    const ended = await as('DELETE', '/__sandbox/chaos');
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({ profiles: [] });
    const left = (await h.request('GET', '/__sandbox/chaos', { headers: admin })).body.profiles;
    expect(left.map((x: { seed: number }) => x.seed).sort()).toEqual([1, 2]);
    await h.request('DELETE', '/__sandbox/chaos', { headers: admin });
  });

  it("another partner's parent, account or variant answers 404 exactly as one that does not exist, and nothing of it changes", async () => {
    const rivalBundle = async () => {
      const b = (await h.request('GET', `/__sandbox/partners/${RIVAL.parent}/bundle`, { headers: admin }))
        .body;
      return JSON.stringify({ ...b, exported_at: '', clock: b.clock.offset_seconds });
    };
    const before = await rivalBundle();
    const armedBefore = (await h.request('GET', '/__sandbox/scenarios', { headers: admin })).body.armed;
    const mapping = { vertical_mappings: [] };
    const calls: [
      string,
      (id: { parent: string; account: string; variant: string }) => [string, string, unknown?],
      keyof typeof NOWHERE,
    ][] = [
      ['reset', (t) => ['POST', `/__sandbox/partners/${t.parent}/reset`], 'parent'],
      ['clock', (t) => ['GET', `/__sandbox/partners/${t.parent}/clock`], 'parent'],
      ['advance', (t) => ['POST', `/__sandbox/partners/${t.parent}/clock/advance`, { seconds: 5 }], 'parent'],
      ['bundle', (t) => ['GET', `/__sandbox/partners/${t.parent}/bundle`], 'parent'],
      ['seed', (t) => ['PUT', `/__sandbox/partners/${t.parent}/vertical-mappings`, mapping], 'parent'],
      ['unseed', (t) => ['DELETE', `/__sandbox/partners/${t.parent}/vertical-mappings`], 'parent'],
      ['account', (t) => ['GET', `/__sandbox/accounts/${t.account}`], 'account'],
      [
        'add variant',
        (t) => ['POST', `/__sandbox/accounts/${t.account}/variants`, { page_id: 'x', name: 'n' }],
        'account',
      ],
      ['patch variant', (t) => ['PATCH', `/__sandbox/variants/${t.variant}`, { archived: true }], 'variant'],
      [
        'arm parent',
        (t) => ['PUT', '/__sandbox/scenarios', { scenario: 'server-error', parent_account_id: t.parent }],
        'parent',
      ],
      [
        'arm account',
        (t) => ['PUT', '/__sandbox/scenarios', { scenario: 'server-error', account_id: t.account }],
        'account',
      ],
      [
        'set chaos',
        (t) => ['PUT', '/__sandbox/chaos', { rate: 1, seed: 1, parent_account_id: t.parent }],
        'parent',
      ],
      ['end chaos', (t) => ['DELETE', `/__sandbox/chaos?parent_account_id=${t.parent}`], 'parent'],
      ['report', (t) => ['GET', `/__sandbox/report?parent_account_id=${t.parent}`], 'parent'],
    ];
    const rivalIds = { parent: RIVAL.parent, account: p.rival.account, variant: p.rival.variant };
    for (const [name, call, kind] of calls) {
      const [m1, path1, body1] = call(rivalIds);
      const [m2, path2, body2] = call(NOWHERE);
      const other = await as(m1, path1, body1);
      const none = await as(m2, path2, body2);
      expect(other.status, name).toBe(404);
      expect(none.status, name).toBe(404);
      expectErrorEnvelope(other, 404, none.body.error.code);
      expect(sameAs(other, rivalIds[kind]), name).toBe(sameAs(none, NOWHERE[kind]));
    }
    expect(await rivalBundle()).toBe(before);
    expect((await h.request('GET', '/__sandbox/scenarios', { headers: admin })).body.armed).toEqual(
      armedBefore,
    );
  });

  it('every other route answers 403 and changes nothing; health stays open', async () => {
    // The routes a partner's token opens (the hosted contract's list), each declared once.
    const forPartner = CONTROL_ROUTES.filter((r) => typeof accessOf(r) === 'object').map(
      (r) => r.operationId,
    );
    expect(forPartner.sort()).toEqual(
      [
        'resetPartner',
        'getPartnerClock',
        'advancePartnerClock',
        'exportBundle',
        'seedVerticalMappings',
        'unseedVerticalMappings',
        'getAccount',
        'addVariant',
        'updateVariant',
        'listScenarios',
        'armScenario',
        'disarmScenarios',
        'setChaos',
        'getChaos',
        'endChaos',
        'listRequests',
        'countRequests',
        'getReport',
      ].sort(),
    );
    const adminOnly = CONTROL_ROUTES.filter((r) => accessOf(r) === 'admin').map((r) => r.operationId);
    // The spec's list (SANDBOX.md §13): every route it does not open to a partner.
    expect(adminOnly.sort()).toEqual(
      [
        'listPartners',
        'createPartner',
        'reset',
        'getClock',
        'advanceClock',
        'clearRequests',
        'saveSnapshot',
        'listSnapshots',
        'restoreSnapshot',
        'deleteSnapshot',
        'importBundle',
        // Pact's provider states and export (docs/contracts.md): the admin's
        'pactStates',
        'exportPact',
      ].sort(),
    );
    const saved = await h.request('POST', '/__sandbox/snapshots', { headers: admin, body: { name: 'kept' } });
    expect(saved.status).toBe(201);
    const state = async () =>
      JSON.stringify([
        (await h.request('GET', '/__sandbox/partners', { headers: admin })).body,
        (await h.request('GET', '/__sandbox/clock', { headers: admin })).body.offset_seconds,
        (await h.request('GET', '/__sandbox/snapshots', { headers: admin })).body.snapshots.map(
          (x: { name: string }) => x.name,
        ),
        (await h.request('POST', '/__sandbox/requests/count', { headers: admin, body: {} })).body,
      ]);
    const before = await state();
    const bundle = (await h.request('GET', `/__sandbox/partners/${RIVAL.parent}/bundle`, { headers: admin }))
      .body;
    const bodies: Record<string, unknown> = {
      createPartner: { parent_account_id: 'pa_from_a_partner' },
      advanceClock: { seconds: 100 },
      saveSnapshot: { name: 'mine' },
      importBundle: bundle,
    };
    for (const route of CONTROL_ROUTES.filter((r) => accessOf(r) === 'admin')) {
      const path = route.path.replace('{name}', 'kept');
      const body = bodies[route.operationId];
      const res = await as(route.method.toUpperCase(), path, body);
      expectErrorEnvelope(res, 403, 'forbidden');
      expect(res.headers.get('x-sandbox-partner')).toBe(DEMO.parent);
      // A query it would refuse is refused as forbidden too: a partner learns nothing of the route.
      expectErrorEnvelope(await as(route.method.toUpperCase(), `${path}?x=1`, body), 403, 'forbidden');
    }
    expect(await state()).toBe(before);
    expect((await h.request('GET', '/__sandbox/health')).status).toBe(200);
  });

  it('an unknown token is 401; an expired one is 401 token_expired, by its own partner’s clock', async () => {
    const unknown = await h.request('GET', '/__sandbox/scenarios', { headers: bearer('sbx_not_a_token') });
    expectErrorEnvelope(unknown, 401, 'unauthorized');
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="sandbox-control-plane"');

    const fresh = await h.client(DEMO);
    expect((await h.request('GET', '/__sandbox/chaos', { headers: bearer(fresh.token) })).status).toBe(200);
    const ttl = h.sandbox.config.tokenTtlSeconds;
    await h.request('POST', `/__sandbox/partners/${DEMO.parent}/clock/advance`, {
      headers: admin,
      body: { seconds: ttl + 1 },
    });
    const expired = await h.request('GET', '/__sandbox/chaos', { headers: bearer(fresh.token) });
    expectErrorEnvelope(expired, 401, 'token_expired');
    expect(expired.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="sandbox-control-plane", error="invalid_token"/,
    );
    // The rival's clock did not move: its token still opens its control plane.
    const rival = await h.request('GET', '/__sandbox/chaos', { headers: bearer(p.rival.token) });
    expect(rival.status).toBe(200);
    expect(rival.headers.get('x-sandbox-partner')).toBe(RIVAL.parent);
  });

  it('its own partner reset answers for it', async () => {
    const token = await h.token(RIVAL.clientId, RIVAL.clientSecret);
    const res = await h.request('POST', `/__sandbox/partners/${RIVAL.parent}/reset`, {
      headers: bearer(token),
    });
    expect(res.status).toBe(200);
    expect(res.body.parent_account_id).toBe(RIVAL.parent);
    expect(
      (await h.request('GET', `/__sandbox/accounts/${p.rival.account}`, { headers: admin })).status,
    ).toBe(404);
    expect((await h.request('GET', `/__sandbox/accounts/${p.demo.account}`, { headers: admin })).status).toBe(
      200,
    );
  });
});

describe('the admin token, and no SANDBOX_ADMIN_TOKEN', () => {
  it('the admin token opens every route, any partner’s', async () => {
    const h = createHarness({ adminToken: ADMIN });
    const p = await twoPartners(h);
    for (const path of [
      '/__sandbox/partners',
      '/__sandbox/clock',
      `/__sandbox/accounts/${p.rival.account}`,
      `/__sandbox/partners/${RIVAL.parent}/clock`,
      `/__sandbox/report?parent_account_id=${RIVAL.parent}`,
    ]) {
      expect((await h.request('GET', path, { headers: admin })).status, path).toBe(200);
    }
    const all = await h.request('GET', '/__sandbox/requests', { headers: admin });
    const parents = new Set(all.body.requests.map((e: { parent_account_id: string }) => e.parent_account_id));
    expect(parents).toEqual(new Set([DEMO.parent, RIVAL.parent]));
  });

  it('without SANDBOX_ADMIN_TOKEN the control plane is open, and a partner token is no restriction', async () => {
    const h = createHarness();
    const created = await h.request('POST', '/__sandbox/partners', {
      body: { parent_account_id: RIVAL.parent },
    });
    expect(created.status).toBe(201);
    const demo = await h.client(DEMO);
    expect((await h.request('GET', '/__sandbox/partners')).status).toBe(200);
    const withToken = await h.request('GET', '/__sandbox/partners', { headers: bearer(demo.token) });
    expect(withToken.status).toBe(200);
    expect(withToken.headers.get('x-sandbox-partner')).toBeNull();
    const report = await h.request('GET', `/__sandbox/report?parent_account_id=${RIVAL.parent}`, {
      headers: bearer(demo.token),
    });
    expect(report.status).toBe(200);
  });
});

describe('the control client with a partner token', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ adminToken: ADMIN });
  });
  afterAll(() => sandbox?.stop());

  it('createControlClient(url, { token }) acts for that partner', async () => {
    const grant = await fetch(`${sandbox.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: DEMO.clientId,
        client_secret: DEMO.clientSecret,
      }),
    });
    const { access_token } = (await grant.json()) as { access_token: string };
    const control = createControlClient(sandbox.url, { token: access_token });
    expect((await control.partners.clock.get(DEMO.parent)).parent_account_id).toBe(DEMO.parent);
    expect((await control.report(DEMO.parent)).parent_account_id).toBe(DEMO.parent);
    expect((await control.requests.list()).requests.length).toBeGreaterThan(0);
    expect((await rejection(control.partners.list())).status).toBe(403);
    expect((await rejection(control.clock.get())).status).toBe(403);
    expect((await rejection(control.partners.clock.get('pa_unseeded_platform'))).status).toBe(404);
    const bad = createControlClient(sandbox.url, { token: 'sbx_nope' });
    expect((await rejection(bad.scenarios.list())).status).toBe(401);
  });
});

describe("the dashboard's partner sign-in (its shell and script, without a browser)", () => {
  it('the shell, open without a token, has the sign-in form; the script exchanges credentials at /oauth/token and reads X-Sandbox-Partner', async () => {
    const h = createHarness({ adminToken: ADMIN });
    const shell = await h.app.request('/__sandbox/ui');
    expect(shell.status).toBe(200);
    const html = await shell.text();
    for (const id of [
      'partner-form',
      'partner-client-id',
      'partner-client-secret',
      'partner-submit',
      'partner-error',
    ])
      expect(html, id).toContain(`id="${id}"`);
    const script = await (await h.app.request('/__sandbox/ui/app.js')).text();
    expect(script).toContain('/oauth/token');
    expect(script.toLowerCase()).toContain('x-sandbox-partner');
  });
});

describe('the control document says which routes a partner token opens', () => {
  it('partnerToken beside adminToken on those routes, adminToken alone on the others, none on health', async () => {
    const h = createHarness();
    const doc = (await h.request('GET', '/__sandbox/openapi.json')).body;
    expect(doc.components.securitySchemes.partnerToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    const security = (path: string, method: string) => doc.paths[path][method].security;
    expect(security('/__sandbox/requests', 'get')).toEqual([{ adminToken: [] }, { partnerToken: [] }]);
    expect(security('/__sandbox/partners/{parent_account_id}/reset', 'post')).toEqual([
      { adminToken: [] },
      { partnerToken: [] },
    ]);
    expect(security('/__sandbox/requests', 'delete')).toEqual([{ adminToken: [] }]);
    expect(security('/__sandbox/health', 'get')).toEqual([]);
    expect(JSON.stringify(doc)).not.toContain('"access"');
  });
});
