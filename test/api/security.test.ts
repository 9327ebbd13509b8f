/**
 * Security properties: unguessable tokens; no secret (token, client secret,
 * Authorization header) in the journal or the logs; one partner cannot see or touch
 * another's accounts, idempotency keys or journal entries; the admin token guards the
 * whole control plane; security headers on every kind of answer; nothing is reflected
 * into an HTML context.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { accountNotFoundMessage, PARENT_MISMATCH_MESSAGE } from '../../src/contract/api/messages.js';
import { startServer } from '../../src/server.js';
import { createSandbox } from '../../src/state/index.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  LAYOUT,
  MAPPINGS,
  REGISTER,
  registerBody,
  STATUS,
  testConfig,
} from '../helpers/harness.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Json = any;

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

/** A second partner with its own credentials and a seeded mapping (vertical 10 only). */
async function secondPartner(h: ReturnType<typeof createHarness>, adminHeaders: Record<string, string> = {}) {
  const creds = {
    parent: 'pa_rival_platform',
    clientId: 'rival-client',
    clientSecret: 'rival-secret-0123456789',
  };
  const created = await h.request('POST', '/__sandbox/partners', {
    headers: adminHeaders,
    body: { parent_account_id: creds.parent, client_id: creds.clientId, client_secret: creds.clientSecret },
  });
  expect(created.status).toBe(201);
  const seeded = await h.request('PUT', `/__sandbox/partners/${creds.parent}/vertical-mappings`, {
    headers: adminHeaders,
    body: {
      vertical_mappings: [
        {
          partner_vertical_id: 10,
          partner_vertical_name: 'Apparel',
          partner_sub_vertical_id: 1001,
          partner_sub_vertical_name: 'Women',
          vertical_name: 'Apparel > Womenswear',
        },
      ],
    },
  });
  expect(seeded.status).toBe(200);
  return creds;
}

function expectSecurityHeaders(res: { headers: Headers; status: number }, where: string) {
  expect(res.headers.get('x-content-type-options'), where).toBe('nosniff');
  expect(res.headers.get('x-powered-by'), where).toBeNull();
  expect(res.headers.get('server') ?? '', where).not.toMatch(/\d+\.\d+/); // no version banner
}

describe('access tokens are random and unguessable', () => {
  it('100 grants: all distinct, >= 40 characters of a URL-safe alphabet, sharing no prefix beyond "sbx_"', async () => {
    const h = createHarness();
    const tokens: string[] = [];
    for (let i = 0; i < 100; i++) tokens.push(await h.token());
    expect(new Set(tokens).size).toBe(100);
    for (const t of tokens) {
      expect(t.length).toBeGreaterThanOrEqual(40);
      expect(t).toMatch(/^sbx_[A-Za-z0-9_-]+$/);
    }
    // the common prefix of all of them is exactly the fixed "sbx_"
    let common = tokens[0]!;
    for (const t of tokens) while (!t.startsWith(common)) common = common.slice(0, -1);
    expect(common).toBe('sbx_');
    // the random part looks random: the first random character varies widely, no token
    // is a counter step of another, and the characters cover the whole alphabet
    expect(new Set(tokens.map((t) => t[4])).size).toBeGreaterThan(30);
    const alphabet = new Set(tokens.flatMap((t) => [...t.slice(4)]));
    expect(alphabet.size).toBe(64);
    const sorted = [...tokens].sort();
    for (let i = 1; i < sorted.length; i++) {
      const a = sorted[i - 1]!;
      const b = sorted[i]!;
      let p = 0;
      while (a[p] === b[p]) p++;
      expect(p, `${a} and ${b} share ${p} leading characters`).toBeLessThan(4 + 5);
    }
  });

  it('the token works only as issued: a truncated, extended or case-flipped token is 401', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const t = partner.token;
    const flipped =
      t.slice(0, 10) +
      (t[10] === t[10]!.toUpperCase() ? t[10]!.toLowerCase() : t[10]!.toUpperCase()) +
      t.slice(11);
    for (const wrong of [
      t.slice(0, -1),
      `${t}x`,
      flipped === t ? `${t.slice(0, -1)}#` : flipped,
      'sbx_',
      'sbx_'.padEnd(47, 'A'),
    ]) {
      const res = await h.request('GET', CONTROLS(accountId), {
        headers: { Authorization: `Bearer ${wrong}` },
      });
      expectErrorEnvelope(res, 401, 'unauthorized');
    }
  });
});

describe('secrets never reach the journal or the logs', () => {
  async function traffic(h: ReturnType<typeof createHarness>) {
    const tokens: string[] = [];
    const form = await h.request('POST', '/oauth/token', {
      headers: FORM,
      raw: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
    });
    const json = await h.request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: DEMO.clientId, client_secret: DEMO.clientSecret },
    });
    const viaBasic = await h.request('POST', '/oauth/token', {
      headers: { ...FORM, Authorization: basic(DEMO.clientId, DEMO.clientSecret) },
      raw: 'grant_type=client_credentials',
    });
    for (const r of [form, json, viaBasic]) {
      expect(r.status).toBe(200);
      tokens.push(r.body.access_token);
    }
    // a failed grant with a wrong secret must not be journaled in clear either
    const wrong = await h.request('POST', '/oauth/token', {
      headers: FORM,
      raw: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=wrong-but-secret-42`,
    });
    expect(wrong.status).toBe(401);
    // partnership calls with each token, reads and writes
    const headers = (t: string) => ({
      Authorization: `Bearer ${t}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
    });
    const reg = await h.request('POST', REGISTER, { headers: headers(tokens[0]!), body: registerBody() });
    const accountId: string = expectOk(reg).account_id;
    expect((await h.request('GET', CONTROLS(accountId), { headers: headers(tokens[1]!) })).status).toBe(200);
    const put = await h.request('PUT', STATUS(accountId), {
      headers: { ...headers(tokens[2]!), 'Idempotency-Key': 'journal-k1' },
      body: { status: 'paused' },
    });
    expect(put.status).toBe(200);
    // a bearer token sent with odd spacing and case is redacted too
    expect(
      (await h.request('GET', STATUS(accountId), { headers: { Authorization: `bearer   ${tokens[0]}` } }))
        .status,
    ).toBe(200);
    return { tokens, accountId };
  }

  it('GET /__sandbox/requests contains no token, no client secret and no Authorization value after form, JSON and Basic grants and partnership calls', async () => {
    const h = createHarness();
    const { tokens } = await traffic(h);
    const journal = await h.request('GET', '/__sandbox/requests');
    expect(journal.status).toBe(200);
    const text = journal.text;
    // the calls are there (so the check below is not vacuous)
    const entries: Json[] = journal.body.requests;
    expect(entries.filter((e) => e.path === '/oauth/token')).toHaveLength(4);
    expect(entries.filter((e) => e.path.startsWith('/v1/'))).toHaveLength(4);
    for (const t of tokens) {
      expect(text).not.toContain(t);
      expect(text).not.toContain(t.slice(4)); // not even without its prefix
    }
    expect(text).not.toContain(DEMO.clientSecret);
    expect(text).not.toContain('wrong-but-secret-42');
    expect(text).not.toContain(Buffer.from(`${DEMO.clientId}:${DEMO.clientSecret}`).toString('base64'));
    // the Authorization header is kept as its scheme only
    for (const e of entries) {
      const auth = e.request_headers.authorization;
      if (auth !== undefined) expect(auth).toMatch(/^(Bearer|bearer|Basic) \[REDACTED\]$/);
    }
  });

  it('the client secret is redacted however its field name is encoded (form %5F, JSON \\u escape)', async () => {
    const h = createHarness();
    // both are accepted by the token endpoint as client_secret ...
    const form = await h.request('POST', '/oauth/token', {
      headers: FORM,
      raw: `grant_type=client_credentials&client_id=${DEMO.clientId}&client%5Fsecret=${DEMO.clientSecret}`,
    });
    const json = await h.request('POST', '/oauth/token', {
      headers: { 'Content-Type': 'application/json' },
      raw: `{"grant_type":"client_credentials","client_id":"${DEMO.clientId}","client_\\u0073ecret":"${DEMO.clientSecret}"}`,
    });
    expect(form.status).toBe(200);
    expect(json.status).toBe(200);
    // ... so neither may be journaled in clear
    const journal = await h.request('GET', '/__sandbox/requests?path=/oauth/token');
    expect(journal.body.requests).toHaveLength(2);
    expect(journal.text).not.toContain(DEMO.clientSecret);
  });

  it('the logger (log: info) receives no token, secret or Authorization value from normal traffic', async () => {
    const lines: string[] = [];
    const logger = {
      info: (msg: string, fields?: Record<string, unknown>) =>
        lines.push(JSON.stringify({ level: 'info', msg, ...fields })),
      error: (msg: string, fields?: Record<string, unknown>) =>
        lines.push(JSON.stringify({ level: 'error', msg, ...fields })),
    };
    const sandbox = createSandbox(testConfig({ log: 'info' }), logger);
    const app = createApp(sandbox);
    const grant = await app.request('/oauth/token', {
      method: 'POST',
      headers: { ...FORM, Authorization: basic(DEMO.clientId, DEMO.clientSecret) },
      body: 'grant_type=client_credentials',
    });
    expect(grant.status).toBe(200);
    const token = ((await grant.json()) as { access_token: string }).access_token;
    const headers = {
      Authorization: `Bearer ${token}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
      'Content-Type': 'application/json',
    };
    const reg = await app.request(REGISTER, {
      method: 'POST',
      headers,
      body: JSON.stringify(registerBody()),
    });
    expect(reg.status).toBe(200);
    const bad = await app.request(REGISTER, { method: 'POST', headers, body: '{"nope"' });
    expect(bad.status).toBe(400);
    const wrong = await app.request('/oauth/token', {
      method: 'POST',
      headers: FORM,
      body: `grant_type=client_credentials&client_id=x&client_secret=${DEMO.clientSecret}`,
    });
    expect(wrong.status).toBe(401);
    const all = lines.join('\n');
    expect(all).not.toContain(token);
    expect(all).not.toContain(DEMO.clientSecret);
    expect(all).not.toContain('Bearer sbx_');
    sandbox.close();
  });

  it('a 500 reaches the client as the envelope with a request_id, never with a stack trace or source path', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    for (const value of ['500', '502', '503']) {
      const res = await partner.get(CONTROLS(accountId), { 'X-Sandbox-Scenario': `server-error=${value}` });
      const status = Number(value);
      const body = expectErrorEnvelope(
        res,
        status,
        status === 500 ? 'internal_error' : status === 502 ? 'bad_gateway' : 'service_unavailable',
      );
      expect(res.text).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+|node_modules|\/src\//);
      expect(Object.keys(body.error).sort()).toEqual(['code']);
    }
  });
});

describe("one partner never reaches another's data", () => {
  it("another partner's token reads, writes, edits and looks up none of this partner's accounts: 404 account_not_found, nothing changed", async () => {
    const h = createHarness();
    const demo = await h.client();
    const accountId = await demo.account({ external_account_id: 'shared-external-id' });
    const layoutId: string = (await demo.register({ external_account_id: 'shared-external-id' })).body.data
      .pages[0].layout_id;
    const rival = await h.client(await secondPartner(h));
    const before = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).text;

    const attempts = [
      await rival.get(CONTROLS(accountId)),
      await rival.get(STATUS(accountId)),
      await rival.put(CONTROLS(accountId), { blockedVerticals: [], domains: [], contentHash: null }),
      await rival.put(STATUS(accountId), { status: 'paused' }),
      await rival.patch(LAYOUT(accountId, layoutId), { name: 'hijacked' }),
      await rival.put(CONTROLS(accountId), { blockedVerticals: [], domains: [], contentHash: null }, {}),
    ];
    for (const res of attempts) {
      const body = expectErrorEnvelope(res, 404, 'account_not_found');
      // exactly the answer for an account that does not exist: no hint that it does
      expect(body.message).toBe(accountNotFoundMessage(accountId));
    }
    // indistinguishable from an account that does not exist at all
    const missing = await rival.get(CONTROLS('acct_doesnotexist0000000'));
    expect(expectErrorEnvelope(missing, 404, 'account_not_found').error).toEqual({
      code: 'account_not_found',
      details: { account_id: 'acct_doesnotexist0000000' },
    });
    expect(attempts[0]!.body.error).toEqual({
      code: 'account_not_found',
      details: { account_id: accountId },
    });
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).text).toBe(before);

    // its token with the other parent's header is refused outright
    const spoof = await rival.call('GET', CONTROLS(accountId), {
      headers: { 'X-Platform-Parent-Account-Id': DEMO.parent },
    });
    expectErrorEnvelope(spoof, 403, 'parent_account_mismatch');
    expect(spoof.body.message).toBe(PARENT_MISMATCH_MESSAGE);
    const spoofRegister = await rival.call('POST', REGISTER, {
      headers: { 'X-Platform-Parent-Account-Id': DEMO.parent },
      body: registerBody({
        platform_parent_account_id: DEMO.parent,
        external_account_id: 'shared-external-id',
      }),
    });
    expectErrorEnvelope(spoofRegister, 403, 'parent_account_mismatch');

    // it cannot list the other parent's mappings
    const list = await rival.get(`${MAPPINGS}?parent_account_id=${DEMO.parent}`);
    expectErrorEnvelope(list, 403, 'forbidden');

    // the same external_account_id under its own parent is a different account, not a match
    const own = await rival.register({ external_account_id: 'shared-external-id' });
    const ownId = expectOk(own).account_id;
    expect(ownId).not.toBe(accountId);
    expect(own.headers.get('x-sandbox-warning')).toBeNull();
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).text).toBe(before);
  });

  it('the same Idempotency-Key string used by two partners executes separately for each', async () => {
    const h = createHarness();
    const demo = await h.client();
    const rival = await h.client(await secondPartner(h));
    const demoAccount = await demo.account();
    const rivalAccount = await rival.account();
    const key = { 'Idempotency-Key': 'the-same-key-for-everyone' };

    const first = await demo.put(STATUS(demoAccount), { status: 'paused' }, key);
    const second = await rival.put(STATUS(rivalAccount), { status: 'paused' }, key);
    expect(expectOk(first).account_id).toBe(demoAccount);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(expectOk(second).account_id).toBe(rivalAccount);
    expect(second.body.request_id).not.toBe(first.body.request_id);
    // both executed: both accounts are paused
    expect((await h.request('GET', `/__sandbox/accounts/${demoAccount}`)).body.status).toBe('paused');
    expect((await h.request('GET', `/__sandbox/accounts/${rivalAccount}`)).body.status).toBe('paused');
    // and each partner's own retry replays its own response
    const retry = await rival.put(STATUS(rivalAccount), { status: 'paused' }, key);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(second.body);
  });

  it('journal entries carry parent_account_id, and ?parent_account_id= isolates one partner', async () => {
    const h = createHarness();
    const demo = await h.client();
    const rival = await h.client(await secondPartner(h));
    const demoAccount = await demo.account();
    const rivalAccount = await rival.account();
    await demo.get(CONTROLS(demoAccount));
    await rival.get(CONTROLS(rivalAccount));
    await rival.get(CONTROLS(demoAccount)); // a 404 probe is journaled under the prober

    const all: Json[] = (await h.request('GET', '/__sandbox/requests')).body.requests;
    const partnership = all.filter((e) => e.path.startsWith('/v1/'));
    expect(partnership.length).toBe(5);
    for (const e of partnership) expect([DEMO.parent, 'pa_rival_platform']).toContain(e.parent_account_id);

    // every journaled call made with a token (grants included) names its parent
    for (const e of all) expect([DEMO.parent, 'pa_rival_platform']).toContain(e.parent_account_id);

    const mine: Json[] = (await h.request('GET', `/__sandbox/requests?parent_account_id=${DEMO.parent}`)).body
      .requests;
    const theirs: Json[] = (await h.request('GET', '/__sandbox/requests?parent_account_id=pa_rival_platform'))
      .body.requests;
    for (const e of mine) expect(e.parent_account_id).toBe(DEMO.parent);
    for (const e of theirs) expect(e.parent_account_id).toBe('pa_rival_platform');
    // the two views partition the journal: a token grant, a register and a read for DEMO,
    // the same plus the 404 probe for the rival
    expect(mine.length + theirs.length).toBe(all.length);
    expect(mine.map((e) => e.path).sort()).toEqual(['/oauth/token', CONTROLS(demoAccount), REGISTER].sort());
    expect(theirs.map((e) => e.path).sort()).toEqual(
      ['/oauth/token', CONTROLS(rivalAccount), CONTROLS(demoAccount), REGISTER].sort(),
    );
    for (const e of mine) expect(e.account_id === null || e.account_id === demoAccount).toBe(true);
    expect(theirs.some((e) => e.status === 404 && e.path === CONTROLS(demoAccount))).toBe(true);
  });
});

describe('SANDBOX_ADMIN_TOKEN guards the control plane', () => {
  const ADMIN = 'admin-token-Zq9!';
  const ROUTES: [string, string, unknown?][] = [
    ['POST', '/__sandbox/reset'],
    ['GET', '/__sandbox/partners'],
    ['POST', '/__sandbox/partners', { parent_account_id: 'pa_intruder' }],
    ['PUT', `/__sandbox/partners/${DEMO.parent}/vertical-mappings`, { vertical_mappings: [] }],
    ['DELETE', `/__sandbox/partners/${DEMO.parent}/vertical-mappings`],
    ['GET', '/__sandbox/accounts/{account}'],
    ['POST', '/__sandbox/accounts/{account}/variants', { page_id: 'x', name: 'n', enabled: true }],
    ['PATCH', '/__sandbox/variants/{variant}', { archived: true }],
    ['GET', '/__sandbox/clock'],
    ['POST', '/__sandbox/clock/advance', { seconds: 86_400 }],
    ['GET', '/__sandbox/requests'],
    ['DELETE', '/__sandbox/requests'],
    ['GET', '/__sandbox/scenarios'],
    ['PUT', '/__sandbox/scenarios', { scenario: 'server-error', parent_account_id: DEMO.parent }],
    ['DELETE', '/__sandbox/scenarios'],
    ['GET', '/__sandbox/openapi.json'],
  ];

  // A partner's token is no wrong token: it opens its own control plane (test/control/partner-key.test.ts).
  it('every /__sandbox route except health answers 401 without the token or with a wrong one; nothing changes', async () => {
    const h = createHarness({ adminToken: ADMIN });
    const good = { Authorization: `Bearer ${ADMIN}` };
    const partner = await h.client();
    const accountId = await partner.account();
    const detail = (await h.request('GET', `/__sandbox/accounts/${accountId}`, { headers: good })).body;
    const variantId: string = detail.variants[0].variant_id;
    const state = async () =>
      JSON.stringify(
        await Promise.all(
          [`/__sandbox/accounts/${accountId}`, '/__sandbox/partners', '/__sandbox/scenarios'].map(
            async (p) => (await h.request('GET', p, { headers: good })).body,
          ),
        ),
      ) +
      JSON.stringify((await h.request('GET', '/__sandbox/clock', { headers: good })).body.offset_seconds) +
      (await h.request('GET', '/__sandbox/requests', { headers: good })).body.requests.length;
    const before = await state();

    const wrongs: (Record<string, string> | undefined)[] = [
      undefined,
      { Authorization: 'Bearer wrong' },
      { Authorization: `Bearer ${ADMIN}x` },
      { Authorization: `Bearer ${ADMIN.slice(0, -1)}` },
      { Authorization: `Basic ${Buffer.from(`admin:${ADMIN}`).toString('base64')}` },
      { Authorization: ADMIN },
      { Authorization: `Bearer ${partner.token}x` },
      { 'X-Sandbox-Admin-Token': ADMIN },
    ];
    for (const [method, template, body] of ROUTES) {
      const path = template.replace('{account}', accountId).replace('{variant}', variantId);
      for (const headers of wrongs) {
        const res = await h.request(method, path, {
          ...(headers ? { headers } : {}),
          ...(body === undefined ? {} : { body }),
        });
        const where = `${method} ${path} with ${JSON.stringify(headers)}`;
        expect(res.status, where).toBe(401);
        expectErrorEnvelope(res, 401, 'unauthorized');
        expect(res.headers.get('www-authenticate'), where).toMatch(/^Bearer/);
      }
    }
    expect(await state()).toBe(before);

    // path tricks do not reach a protected route unauthenticated
    for (const path of [
      '/__sandbox/health/../reset',
      '/__sandbox/./reset',
      '/__sandbox/%72eset',
      '/__sandbox/reset/',
      '/__sandbox//reset',
      '/__sandbox/health/%2e%2e/reset',
      '/__SANDBOX/reset',
    ]) {
      const res = await h.request('POST', path);
      expect([401, 404], `POST ${path} -> ${res.status}`).toContain(res.status);
    }
    expect(await state()).toBe(before);

    // health stays open; with the token the routes work
    expect((await h.request('GET', '/__sandbox/health')).status).toBe(200);
    expect((await h.request('GET', '/__sandbox/partners', { headers: good })).status).toBe(200);
    expect((await h.request('POST', '/__sandbox/reset', { headers: good })).status).toBe(200);
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`, { headers: good })).status).toBe(404);
  });
});

describe('security headers', () => {
  it('X-Content-Type-Options: nosniff and no X-Powered-By on success, error, token and control-plane answers', async () => {
    const h = createHarness({ bodyLimitBytes: 1024 });
    const partner = await h.client();
    const accountId = await partner.account();
    const cases: [string, () => Promise<{ headers: Headers; status: number }>][] = [
      ['partnership 200', () => partner.get(CONTROLS(accountId))],
      ['partnership 400', () => partner.register({ country_code: 'usa' })],
      ['partnership 401', () => h.request('GET', CONTROLS(accountId))],
      ['partnership 404', () => partner.get(CONTROLS('acct_nope'))],
      ['partnership 405', () => partner.call('PATCH', CONTROLS(accountId))],
      ['partnership 413', () => partner.put(STATUS(accountId), { status: 'x'.repeat(5000) })],
      [
        'partnership 415',
        () =>
          partner.call('PUT', STATUS(accountId), {
            raw: 'status=active',
            headers: { 'Content-Type': 'text/plain', 'Idempotency-Key': 'k' },
          }),
      ],
      ['unknown route 404', () => h.request('GET', '/nope')],
      [
        'token 200',
        () =>
          h.request('POST', '/oauth/token', {
            headers: { ...FORM, Authorization: basic(DEMO.clientId, DEMO.clientSecret) },
            raw: 'grant_type=client_credentials',
          }),
      ],
      [
        'token 401',
        () => h.request('POST', '/oauth/token', { headers: FORM, raw: 'grant_type=client_credentials' }),
      ],
      ['token 400', () => h.request('POST', '/oauth/token', { headers: FORM, raw: 'grant_type=password' })],
      ['control plane 200', () => h.request('GET', '/__sandbox/partners')],
      ['control plane 201', () => h.request('POST', '/__sandbox/partners', { body: {} })],
      ['control plane 400', () => h.request('POST', '/__sandbox/clock/advance', { body: { seconds: -1 } })],
      ['control plane 404', () => h.request('GET', '/__sandbox/accounts/acct_nope')],
      ['health', () => h.request('GET', '/__sandbox/health')],
    ];
    for (const [name, run] of cases) {
      const res = await run();
      expectSecurityHeaders(res, name);
    }
    // the statuses above are the ones named (so each case really is the kind it says)
    const statuses = [];
    for (const [, run] of cases) statuses.push((await run()).status);
    expect(statuses).toEqual([
      200, 400, 401, 404, 405, 413, 415, 404, 200, 401, 400, 200, 201, 400, 404, 200,
    ]);
  });
});

describe('no reflection into an HTML context', () => {
  const XSS = '<script>alert(1)</script>';

  it('the control plane and the API answer application/json even when the path or body carries <script>', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const enc = encodeURIComponent(XSS);
    const cases: [string, string, unknown?][] = [
      ['GET', `/__sandbox/accounts/${enc}`],
      ['GET', `/__sandbox/${enc}`],
      ['POST', `/__sandbox/partners/${enc}/vertical-mappings`, {}],
      ['PUT', `/__sandbox/partners/${enc}/vertical-mappings`, { vertical_mappings: [] }],
      ['PATCH', `/__sandbox/variants/${enc}`, { enabled: true }],
      ['POST', '/__sandbox/partners', { parent_account_id: XSS, name: XSS }],
      ['POST', '/__sandbox/partners', { [XSS]: 1 }],
      ['PUT', '/__sandbox/scenarios', { scenario: XSS, parent_account_id: DEMO.parent }],
      ['GET', `/__sandbox/requests?path=${enc}&status=${enc}`],
      ['POST', `/__sandbox/accounts/${accountId}/variants`, { page_id: XSS, name: XSS }],
      ['GET', `/v1/${enc}`],
      ['GET', CONTROLS(enc)],
    ];
    for (const [method, path, body] of cases) {
      const res = await h.request(method, path, body === undefined ? {} : { body });
      const where = `${method} ${path} -> ${res.status} ${res.headers.get('content-type')}`;
      expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
      expect(res.headers.get('x-content-type-options'), where).toBe('nosniff');
      expect(res.body, where).not.toBeNull(); // parses as JSON
    }
    // partnership answers with <script> in headers and body are JSON too
    const reg = await partner.register({ brand: XSS, external_account_id: XSS });
    expect(reg.headers.get('content-type')).toMatch(/^application\/json/);
    const scenario = await partner.get(CONTROLS(accountId), { 'X-Sandbox-Scenario': XSS });
    expectErrorEnvelope(scenario, 400, 'unknown_scenario');
    expect(scenario.headers.get('content-type')).toMatch(/^application\/json/);
    // the journal (the developer's view of what it received) is JSON as well
    const journal = await h.request('GET', '/__sandbox/requests');
    expect(journal.headers.get('content-type')).toMatch(/^application\/json/);
    expect(journal.text).toContain('script');
  });

  it('the one HTML page (/docs) is static: it reflects neither the path nor the query, and has a CSP', async () => {
    const h = createHarness();
    const plain = await h.request('GET', '/docs');
    if (plain.status === 404) return; // no docs page in this build
    expect(plain.headers.get('content-type')).toMatch(/^text\/html/);
    const tricked = await h.request('GET', `/docs?q=${encodeURIComponent(XSS)}`);
    expect(tricked.text).toBe(plain.text);
    expect(tricked.text).not.toContain('alert(1)');
    expect(plain.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

// Last in the file on purpose: starting a real server loads @hono/node-server, which
// replaces the global Response; afterwards `app.request()` answers read through the
// harness (body first, then headers) no longer show headers that middleware set after
// the handler. Over the socket they are there, which is what this checks.
describe('security headers over a real socket', () => {
  it('the Node server adds no X-Powered-By and keeps nosniff on success, error, token and control-plane answers', async () => {
    const running = await startServer(testConfig({ port: 0 }));
    try {
      for (const [path, init] of [
        ['/__sandbox/health', {}],
        ['/v1/partnership/vertical-mappings', {}],
        ['/oauth/token', { method: 'POST' }],
        ['/__sandbox/accounts/nope', {}],
        ['/__sandbox/accounts/%3Cscript%3Ealert(1)%3C%2Fscript%3E', {}],
        ['/__sandbox/partners', {}],
        [
          '/__sandbox/clock/advance',
          { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"seconds":-1}' },
        ],
        ['/v1/partnership/accounts/x/status', { method: 'PATCH' }],
        ['/nope', {}],
        [
          '/oauth/token',
          {
            method: 'POST',
            headers: { Authorization: basic(DEMO.clientId, DEMO.clientSecret), ...FORM },
            body: 'grant_type=client_credentials',
          },
        ],
      ] as [string, RequestInit][]) {
        const res = await fetch(`${running.url}${path}`, init);
        const text = await res.text();
        expectSecurityHeaders(res, `${path} -> ${res.status}`);
        expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
        expect(text).not.toMatch(/\n\s+at /);
      }
    } finally {
      await running.close();
    }
  });
});
