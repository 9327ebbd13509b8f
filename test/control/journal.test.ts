/**
 * The request journal (docs/control-plane.md GET/DELETE /__sandbox/requests) and the coaching
 * warnings (X-Sandbox-Warning, also kept in the journal entry): what is journaled, what
 * is redacted, the filters, the bound, and each warning.
 */
import { describe, expect, it } from 'vitest';
import { DIFFERENT_PAYLOAD_WARNING, DRY_RUN_KEY_WARNING } from '../../src/contract/api/messages.js';
import {
  propagationRetryWarning,
  tokenBurstWarning,
  UNSEEN_HASH_WARNING,
} from '../../src/core/diagnostics.js';
import type { JournalEntry } from '../../src/core/journal.js';
import { isSecretKey } from '../../src/core/journal-redact.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  MAPPINGS,
  REGISTER,
  type Reply,
  registerBody,
  STATUS,
  UNSEEDED,
} from '../helpers/harness.js';

type Entry = JournalEntry;

const WARNING = 'x-sandbox-warning';
const READ_WITHOUT_PARENT_WARNING =
  'read without the recommended X-Platform-Parent-Account-Id header; the real service recommends it on reads';

async function journal(h: Harness, query = ''): Promise<Entry[]> {
  const res = await h.request('GET', `/__sandbox/requests${query}`);
  expect(res.status).toBe(200);
  return res.body.requests;
}

/** The journal entry of one answered request (by its X-Request-Id). */
async function entryOf(h: Harness, res: Reply): Promise<Entry> {
  const id = res.headers.get('x-request-id');
  const found = (await journal(h)).find((e) => e.request_id === id);
  if (!found) throw new Error(`no journal entry for request ${id}`);
  return found;
}

async function advance(h: Harness, seconds: number) {
  expect((await h.request('POST', '/__sandbox/clock/advance', { body: { seconds } })).status).toBe(200);
}

async function clockNow(h: Harness): Promise<string> {
  return (await h.request('GET', '/__sandbox/clock')).body.now;
}

const formGrant = (id: string, secret: string) => ({
  raw: new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: id,
    client_secret: secret,
  }).toString(),
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
});

/** Asserts a warning is in the X-Sandbox-Warning header and in the journal entry. */
async function expectWarning(h: Harness, res: Reply, warning: string) {
  expect(res.headers.get(WARNING)).toContain(warning);
  expect((await entryOf(h, res)).warnings).toContain(warning);
}

async function expectNoWarning(h: Harness, res: Reply) {
  expect(res.headers.get(WARNING)).toBeNull();
  expect((await entryOf(h, res)).warnings).toEqual([]);
}

describe('journal: what is recorded', () => {
  it('every partnership and token call is journaled with all its fields', async () => {
    const h = createHarness();
    const grant = await h.request('POST', '/oauth/token', formGrant(DEMO.clientId, DEMO.clientSecret));
    expect(grant.status).toBe(200);
    const auth = {
      Authorization: `Bearer ${grant.body.access_token}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
    };
    const body = registerBody();
    const reg = await h.request('POST', REGISTER, { body, headers: auth });
    const accountId = expectOk(reg).account_id;
    const put = await h.request('PUT', `${STATUS(accountId)}?dry_run=true`, {
      body: { status: 'paused' },
      headers: { ...auth, 'Idempotency-Key': 'journal-key-1', 'X-Sandbox-Scenario': 'latency=0' },
    });
    expect(put.status).toBe(200);
    const read = await h.request('GET', CONTROLS(accountId), {
      headers: { Authorization: auth.Authorization },
    });
    expectOk(read);
    const now = await clockNow(h);

    const entries = await journal(h);
    expect(entries.map((e) => `${e.method} ${e.path}`)).toEqual([
      `GET ${CONTROLS(accountId)}`,
      `PUT ${STATUS(accountId)}`,
      `POST ${REGISTER}`,
      'POST /oauth/token',
    ]);
    const [getEntry, putEntry, regEntry, tokenEntry] = entries as [Entry, Entry, Entry, Entry];

    for (const [entry, res] of [
      [getEntry, read],
      [putEntry, put],
      [regEntry, reg],
      [tokenEntry, grant],
    ] as const) {
      expect(entry.request_id).toBe(res.headers.get('x-request-id'));
      expect(entry.status).toBe(res.status);
      expect(entry.response_body).not.toBeNull();
      expect(Date.parse(entry.time)).toBeLessThanOrEqual(Date.parse(now));
      expect(Date.parse(now) - Date.parse(entry.time)).toBeLessThan(10_000);
      expect(entry.parent_account_id).toBe(DEMO.parent);
    }
    expect(tokenEntry).toMatchObject({
      method: 'POST',
      query: {},
      status: 200,
      account_id: null,
      scenarios_applied: [],
      warnings: [],
    });
    expect(tokenEntry.request_headers['content-type']).toBe('application/x-www-form-urlencoded');

    expect(regEntry.request_body).not.toBeNull();
    expect(JSON.parse(regEntry.request_body!)).toEqual(body);
    expect(JSON.parse(regEntry.response_body!)).toEqual(reg.body);

    expect(putEntry).toMatchObject({
      query: { dry_run: 'true' },
      status: 200,
      account_id: accountId,
      scenarios_applied: ['latency=0'],
      warnings: [],
    });
    expect(putEntry.request_headers['idempotency-key']).toBe('journal-key-1');
    expect(putEntry.request_headers['x-sandbox-scenario']).toBe('latency=0');
    expect(JSON.parse(putEntry.request_body!)).toEqual({ status: 'paused' });
    expect(JSON.parse(putEntry.response_body!)).toEqual(put.body);

    expect(getEntry).toMatchObject({ query: {}, account_id: accountId, request_body: null });
    expect(getEntry.warnings).toEqual([READ_WITHOUT_PARENT_WARNING]);
    expect(JSON.parse(getEntry.response_body!)).toEqual(read.body);
  });

  it('each entry keeps the response headers as sent: Retry-After of a 429, the scenario applied, the warning', async () => {
    const h = createHarness();
    const partner = await h.client();
    const limited = await partner.get(MAPPINGS, { 'X-Sandbox-Scenario': 'rate-limited=7' });
    expectErrorEnvelope(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('7');
    const entry = await entryOf(h, limited);
    expect(entry.response_headers).toMatchObject({
      'retry-after': '7',
      'x-sandbox-scenario-applied': 'rate-limited=7',
      'x-request-id': limited.headers.get('x-request-id'),
      'content-type': 'application/json',
    });
    // Every header the client got, and nothing else.
    expect(Object.keys(entry.response_headers).sort()).toEqual(
      [...limited.headers.keys()].filter((name) => name !== 'content-length').sort(),
    );

    const unparented = await h.request('GET', MAPPINGS, {
      headers: { Authorization: `Bearer ${partner.token}` },
    });
    expect(unparented.headers.get(WARNING)).toContain(READ_WITHOUT_PARENT_WARNING);
    expect((await entryOf(h, unparented)).response_headers['x-sandbox-warning']).toBe(
      unparented.headers.get(WARNING),
    );
  });

  it('control-plane calls are not journaled', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    expect((await h.request('DELETE', '/__sandbox/requests')).status).toBe(200);
    await h.request('GET', '/__sandbox/health');
    await h.request('GET', '/__sandbox/clock');
    await h.request('GET', `/__sandbox/accounts/${accountId}`);
    await h.request('GET', '/__sandbox/scenarios');
    await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'latency', value: 0, account_id: accountId },
    });
    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 1 } });
    expect(await journal(h)).toEqual([]);
    // ...while a partnership call is.
    await partner.get(MAPPINGS);
    expect((await journal(h)).map((e) => e.path)).toEqual([MAPPINGS]);
  });
});

describe('journal: a filter that cannot match by its form is a 400, never a silent empty answer', () => {
  for (const [query, field] of [
    ['method=FOO', 'query.method'],
    ['since=yesterday', 'query.since'],
    ['status=999', 'query.status'],
    ['status=abc', 'query.status'],
    ['limit=0', 'query.limit'],
    ['acount_id=acct_x', 'query.acount_id'],
    // sent twice: which one would it be?
    ['status=200&status=409', 'query.status'],
    ['limit=1&limit=2', 'query.limit'],
  ] as const) {
    it(`GET /__sandbox/requests?${query} is 400 naming ${field}`, async () => {
      const h = createHarness();
      const res = await h.request('GET', `/__sandbox/requests?${query}`);
      const body = expectErrorEnvelope(res, 400, 'validation_error');
      expect(body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    });
  }

  for (const [filter, field] of [
    [{ method: 'FOO' }, 'method'],
    [{ since: 'yesterday' }, 'since'],
    [{ status: 999 }, 'status'],
  ] as const) {
    it(`POST /__sandbox/requests/count ${JSON.stringify(filter)} is 400 naming ${field}`, async () => {
      const h = createHarness();
      const res = await h.request('POST', '/__sandbox/requests/count', { body: filter });
      const body = expectErrorEnvelope(res, 400, 'validation_error');
      expect(body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    });
  }

  it('since with a time-zone offset is compared as the same instant; a lower-case method matches', async () => {
    const h = createHarness();
    await h.token();
    // An hour ago, written in +02:00: as text it sorts after now (in Z), as a time before it.
    const offset = new Date(Date.now() - 3_600_000 + 7_200_000).toISOString().replace('Z', '+02:00');
    const since = await h.request(
      'GET',
      `/__sandbox/requests?since=${encodeURIComponent(offset)}&method=post`,
    );
    expect(since.status).toBe(200);
    expect(since.body.requests).toHaveLength(1);
    const count = await h.request('POST', '/__sandbox/requests/count', {
      body: { since: offset, method: 'post' },
    });
    expect(count.body).toEqual({ count: 1 });
  });
});

describe('journal: redaction', () => {
  it('a secret under a misspelt field name (Client_Secret, clientSecret, client-secret, CLIENT_SECRET) is redacted too, in JSON, forms, queries and text', async () => {
    const h = createHarness();
    const secret = 'misspelt-secret-value-1234';
    const sends = [
      { body: { grant_type: 'client_credentials', client_id: DEMO.clientId, Client_Secret: secret } },
      { body: { grant_type: 'client_credentials', client_id: DEMO.clientId, clientSecret: secret } },
      { body: { grant_type: 'client_credentials', client_id: DEMO.clientId, 'client-secret': secret } },
      {
        raw: `grant_type=client_credentials&client_id=${DEMO.clientId}&CLIENT_SECRET=${secret}`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      },
      { raw: `{"clientSecret": "${secret}", broken`, headers: { 'Content-Type': 'application/json' } },
    ];
    for (const send of sends) {
      const res = await h.request('POST', `/oauth/token?Access-Token=${secret}`, send);
      expect([400, 401]).toContain(res.status);
    }
    const res = await h.request('GET', '/__sandbox/requests');
    expect(res.body.requests).toHaveLength(sends.length);
    expect(res.text).not.toContain(secret);
    // token_type and other ordinary fields are kept.
    expect(isSecretKey('token_type')).toBe(false);
    expect(isSecretKey('client_id')).toBe(false);
  });

  it('secret request headers are redacted by what their name means (X-Api-Key, X-Forwarded-Authorization, X-Auth-Token, Cookie…), in the journal and in bundles; the headers partners assert on are kept', async () => {
    const h = createHarness();
    const token = await h.token();
    const secrets = {
      'X-Api-Key': 'api-key-value-7f3c',
      'X-Forwarded-Authorization': `Bearer ${token}`,
      'X-Auth-Token': 'auth-token-value-91ab',
      'X-Client-Secret': 'client-secret-value-02cd',
      'X-Session-Id': 'session-value-55ee',
      'X-Hub-Signature-256': 'sha256=signature-value-66ff',
      'X-Amz-Credential': 'credential-value-77aa',
      'X-Password': 'password-value-88bb',
      Cookie: 'sid=cookie-value-99cc; theme=dark',
      'Proxy-Authorization': 'Basic cHJveHk6cHJveHktc2VjcmV0',
    };
    const kept = {
      'Idempotency-Key': 'idem-key-kept-1234',
      'X-Request-Id': 'req-id-kept-5678',
      'X-Platform-Parent-Account-Id': DEMO.parent,
      'X-Sandbox-Scenario': 'latency=1',
    };
    expectOk(
      await h.request('GET', MAPPINGS, {
        headers: { Authorization: `Bearer ${token}`, ...secrets, ...kept },
      }),
    );
    const journal = await h.request('GET', '/__sandbox/requests?limit=1');
    const bundle = await h.request('GET', `/__sandbox/partners/${DEMO.parent}/bundle`);
    expect(bundle.status).toBe(200);
    for (const text of [journal.text, bundle.text]) {
      expect(text).not.toContain(token.slice(4));
      for (const value of Object.values(secrets)) expect(text).not.toContain(value.split(' ').pop()!);
      expect(text).not.toContain('cookie-value');
    }
    const [entry] = journal.body.requests as Entry[];
    expect(entry!.request_headers).toMatchObject({
      'x-api-key': '[REDACTED]',
      'x-forwarded-authorization': 'Bearer [REDACTED]',
      'x-auth-token': '[REDACTED]',
      'x-client-secret': '[REDACTED]',
      'x-session-id': '[REDACTED]',
      'x-hub-signature-256': '[REDACTED]',
      'x-amz-credential': '[REDACTED]',
      'x-password': '[REDACTED]',
      cookie: '[REDACTED]',
      'proxy-authorization': 'Basic [REDACTED]',
      authorization: 'Bearer [REDACTED]',
      'idempotency-key': kept['Idempotency-Key'],
      'x-request-id': kept['X-Request-Id'],
      'x-platform-parent-account-id': DEMO.parent,
      'x-sandbox-scenario': 'latency=1',
    });
    // One rule for headers, body fields and query names: spelt either way, the same answer.
    expect(isSecretKey('x-api-key')).toBe(true);
    expect(isSecretKey('api_key')).toBe(true);
    expect(isSecretKey('idempotency_key')).toBe(false);
    expect(isSecretKey('X-Request-Id')).toBe(false);
  });

  it('secrets in query strings are redacted by the same field rules as bodies (?access_token=, ?client_secret=)', async () => {
    const h = createHarness();
    const token = await h.token();
    await h.request('GET', `${MAPPINGS}?access_token=${token}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    await h.request('POST', `/oauth/token?client_secret=${DEMO.clientSecret}&client_id=${DEMO.clientId}`, {
      raw: 'grant_type=client_credentials',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    const res = await h.request('GET', '/__sandbox/requests?limit=2');
    expect(res.text).not.toContain(token.slice(4));
    expect(res.text).not.toContain(DEMO.clientSecret);
    const [grant, read] = res.body.requests as Entry[];
    expect(grant!.query).toEqual({ client_secret: '[REDACTED]', client_id: DEMO.clientId });
    expect(read!.query).toEqual({ access_token: '[REDACTED]' });
  });

  it('no access token, client secret or Basic credentials appear in the journal', async () => {
    const h = createHarness();
    const basic = Buffer.from(`${DEMO.clientId}:${DEMO.clientSecret}`).toString('base64');
    const form = await h.request('POST', '/oauth/token', formGrant(DEMO.clientId, DEMO.clientSecret));
    const json = await h.request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: DEMO.clientId, client_secret: DEMO.clientSecret },
    });
    const viaBasic = await h.request('POST', '/oauth/token', {
      raw: 'grant_type=client_credentials',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` },
    });
    const tokens = [form, json, viaBasic].map((r) => {
      expect(r.status).toBe(200);
      return r.body.access_token as string;
    });
    for (const token of tokens) {
      expectOk(
        await h.request('GET', MAPPINGS, {
          headers: { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent },
        }),
      );
    }

    const res = await h.request('GET', '/__sandbox/requests');
    expect(res.body.requests).toHaveLength(6);
    for (const token of tokens) expect(res.text).not.toContain(token);
    expect(res.text).not.toContain(DEMO.clientSecret);
    expect(res.text).not.toContain(basic);

    const entries = res.body.requests as Entry[];
    const reads = entries.filter((e) => e.path === MAPPINGS);
    for (const e of reads) expect(e.request_headers.authorization).toBe('Bearer [REDACTED]');
    const grants = entries.filter((e) => e.path === '/oauth/token');
    expect(grants[0]!.request_headers.authorization).toBe('Basic [REDACTED]');
    for (const e of grants) expect(JSON.parse(e.response_body!).access_token).toBe('[REDACTED]');
    expect(JSON.parse(grants[1]!.request_body!).client_secret).toBe('[REDACTED]');
    expect(grants[2]!.request_body).toContain('client_secret=[REDACTED]');
    expect(grants[2]!.request_body).toContain(`client_id=${DEMO.clientId}`);
  });
});

describe('journal: filters, order, bound, clearing', () => {
  async function traffic(h: Harness) {
    const demo = await h.client();
    const accountId = await demo.account();
    const other = await h.client(UNSEEDED);
    await other.get(MAPPINGS);
    expectOk(await demo.get(STATUS(accountId)));
    expectOk(await demo.put(STATUS(accountId), { status: 'paused' }));
    expectErrorEnvelope(await demo.get(CONTROLS('acct_missing')), 404, 'account_not_found');
    return { demo, accountId };
  }

  it('newest first', async () => {
    const h = createHarness();
    await traffic(h);
    const entries = await journal(h);
    expect(entries).toHaveLength(7);
    const ids = entries.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(entries[0]!.path).toBe(CONTROLS('acct_missing'));
    expect(entries.at(-1)!.path).toBe('/oauth/token');
  });

  it('account_id, parent_account_id, method, path, status filters (the registration that created the account is filed under it)', async () => {
    const h = createHarness();
    const { accountId } = await traffic(h);

    const byAccount = await journal(h, `?account_id=${accountId}`);
    expect(byAccount.map((e) => `${e.method} ${e.path}`)).toEqual([
      `PUT ${STATUS(accountId)}`,
      `GET ${STATUS(accountId)}`,
      `POST ${REGISTER}`,
    ]);

    const byParent = await journal(h, `?parent_account_id=${UNSEEDED.parent}`);
    expect(byParent.map((e) => `${e.method} ${e.path}`)).toEqual([`GET ${MAPPINGS}`, 'POST /oauth/token']);
    const demoOnly = await journal(h, `?parent_account_id=${DEMO.parent}`);
    expect(demoOnly).toHaveLength(5);
    expect(demoOnly.every((e) => e.parent_account_id === DEMO.parent)).toBe(true);

    const puts = await journal(h, '?method=PUT');
    expect(puts.map((e) => e.path)).toEqual([STATUS(accountId)]);
    const lowerCase = await journal(h, '?method=put');
    expect(lowerCase).toEqual(puts);

    const statusPath = await journal(h, '?path=/status');
    expect(statusPath.map((e) => e.method)).toEqual(['PUT', 'GET']);

    const notFound = await journal(h, '?status=404');
    expect(notFound.map((e) => e.path)).toEqual([CONTROLS('acct_missing')]);

    const combined = await journal(h, `?parent_account_id=${DEMO.parent}&method=POST&status=200`);
    expect(combined.map((e) => e.path)).toEqual([REGISTER, '/oauth/token']);
  });

  it('since keeps entries at or after the time; limit keeps the newest N', async () => {
    const h = createHarness();
    const partner = await h.client();
    await partner.get(MAPPINGS);
    await advance(h, 60);
    const marker = await partner.get(MAPPINGS);
    const markerEntry = await entryOf(h, marker);
    await partner.get(MAPPINGS, { 'X-Sandbox-Scenario': 'latency=0' });

    const since = await journal(h, `?since=${encodeURIComponent(markerEntry.time)}`);
    expect(since.map((e) => e.request_id)).toEqual([expect.any(String), markerEntry.request_id]);
    expect(since[0]!.scenarios_applied).toEqual(['latency=0']);
    expect(since.every((e) => e.time >= markerEntry.time)).toBe(true);
    expect(await journal(h)).toHaveLength(4);

    const limited = await journal(h, '?limit=2');
    expect(limited.map((e) => e.id)).toEqual((await journal(h)).slice(0, 2).map((e) => e.id));

    const bad = await h.request('GET', '/__sandbox/requests?limit=0');
    expectErrorEnvelope(bad, 400, 'validation_error');
  });

  it('createHarness({journalMax: 5}) keeps only the 5 newest entries', async () => {
    const h = createHarness({ journalMax: 5 });
    const partner = await h.client();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await partner.get(MAPPINGS)).headers.get('x-request-id')!);
    const res = await h.request('GET', '/__sandbox/requests');
    expect(res.body.max).toBe(5);
    expect(res.body.requests.map((e: Entry) => e.request_id)).toEqual(ids.slice(-5).reverse());
  });

  it('DELETE /__sandbox/requests clears the journal', async () => {
    const h = createHarness();
    await traffic(h);
    expect((await journal(h)).length).toBeGreaterThan(0);
    const res = await h.request('DELETE', '/__sandbox/requests');
    expect(res.status).toBe(200);
    expect(await journal(h)).toEqual([]);
  });
});

describe('warnings: X-Sandbox-Warning and the journal entry', () => {
  it('a real write with a dry run key is a replay with DRY_RUN_KEY_WARNING; nothing written', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const key = { 'Idempotency-Key': 'dry-then-real' };
    const dry = await partner.call('PUT', `${STATUS(accountId)}?dry_run=true`, {
      body: { status: 'paused' },
      headers: key,
    });
    expect(dry.body.dry_run).toBe(true);
    await expectNoWarning(h, dry);
    const real = await partner.call('PUT', STATUS(accountId), { body: { status: 'paused' }, headers: key });
    expect(real.headers.get('idempotent-replayed')).toBe('true');
    await expectWarning(h, real, DRY_RUN_KEY_WARNING);
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.status).toBe('active');
  });

  it('a replay with a different payload carries DIFFERENT_PAYLOAD_WARNING', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const key = { 'Idempotency-Key': 'same-key' };
    const first = await partner.call('PUT', STATUS(accountId), { body: { status: 'paused' }, headers: key });
    await expectNoWarning(h, first);
    const same = await partner.call('PUT', STATUS(accountId), { body: { status: 'paused' }, headers: key });
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    await expectNoWarning(h, same);
    const other = await partner.call('PUT', STATUS(accountId), { body: { status: 'active' }, headers: key });
    expect(other.headers.get('idempotent-replayed')).toBe('true');
    expect(other.body.request_id).toBe(first.body.request_id);
    await expectWarning(h, other, DIFFERENT_PAYLOAD_WARNING);
  });

  it('a read without the parent header works and warns', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const headers = { Authorization: `Bearer ${partner.token}` };
    for (const path of [MAPPINGS, CONTROLS(accountId), STATUS(accountId)]) {
      const res = await h.request('GET', path, { headers });
      expectOk(res);
      await expectWarning(h, res, READ_WITHOUT_PARENT_WARNING);
    }
    await expectNoWarning(h, await partner.get(STATUS(accountId)));
  });

  it('a propagation retry sooner than 15 s warns; one 15 s or more later does not', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = expectOk(
      await partner.register({}, { 'X-Sandbox-Scenario': 'auth-propagation=90' }),
    ).account_id;
    const first = await partner.get(CONTROLS(accountId));
    expect(first.status).toBe(401);
    await expectNoWarning(h, first);

    await advance(h, 5);
    const soon = await partner.get(CONTROLS(accountId));
    expect(soon.status).toBe(403);
    const header = soon.headers.get(WARNING)!;
    expect(header).toMatch(/^retried 5\.\d s after a propagation 401\/403 for this account/);
    const seconds = Number(/^retried ([\d.]+) s/.exec(header)![1]);
    expect(header).toBe(propagationRetryWarning(seconds));
    expect((await entryOf(h, soon)).warnings).toEqual([header]);

    await advance(h, 15);
    const spaced = await partner.get(STATUS(accountId));
    expect(spaced.status).toBe(401);
    await expectNoWarning(h, spaced);
  });

  it('a controls PUT with a hash never returned to this client warns; null or a hash from a GET does not', async () => {
    const h = createHarness();
    const partner = await h.client();
    const body = (contentHash: string | null, domain: string) => ({
      blockedVerticals: [],
      domains: [{ domain }],
      contentHash,
    });

    const fresh = await partner.account();
    const withNull = await partner.put(CONTROLS(fresh), body(null, 'a.example.com'));
    expectOk(withNull);
    await expectNoWarning(h, withNull);

    const accountId = await partner.account();
    const unseen = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.controls.content_hash;
    const blind = await partner.put(CONTROLS(accountId), body(unseen, 'b.example.com'));
    expectOk(blind);
    await expectWarning(h, blind, UNSEEN_HASH_WARNING);

    const shown = expectOk(await partner.get(CONTROLS(accountId))).marketplace_controls_list.content_hash;
    const informed = await partner.put(CONTROLS(accountId), body(shown, 'c.example.com'));
    expectOk(informed);
    await expectNoWarning(h, informed);
  });

  it('the third token grant of a client within 60 s warns (a token per call)', async () => {
    const h = createHarness();
    const grants: Reply[] = [];
    for (let i = 0; i < 4; i++) {
      grants.push(await h.request('POST', '/oauth/token', formGrant(DEMO.clientId, DEMO.clientSecret)));
    }
    for (const g of grants) expect(g.status).toBe(200);
    await expectNoWarning(h, grants[0]!);
    await expectNoWarning(h, grants[1]!);
    await expectWarning(h, grants[2]!, tokenBurstWarning(3));
    await expectWarning(h, grants[3]!, tokenBurstWarning(4));
    // Another client has its own count.
    await expectNoWarning(
      h,
      await h.request('POST', '/oauth/token', formGrant(UNSEEDED.clientId, UNSEEDED.clientSecret)),
    );
    // Once the 60 s have passed, a grant is quiet again, and the count starts over.
    await advance(h, 61);
    const later: Reply[] = [];
    for (let i = 0; i < 3; i++) {
      later.push(await h.request('POST', '/oauth/token', formGrant(DEMO.clientId, DEMO.clientSecret)));
    }
    await expectNoWarning(h, later[0]!);
    await expectNoWarning(h, later[1]!);
    await expectWarning(h, later[2]!, tokenBurstWarning(3));
  });
});
