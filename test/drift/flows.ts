/**
 * What a partner's client does through `record`: the flows the drift tests record (the
 * getting-started tour, each scenario of the scenario table (docs/fault-injection.md) a header carries, an idempotent replay, a
 * stale-hash 409, a run under chaos), over fetch against a base URL (the recording proxy).
 */
import { randomUUID } from 'node:crypto';

export const DEMO = {
  parent: 'pa_demo_platform',
  clientId: 'sandbox-demo-client',
  clientSecret: 'sandbox-demo-secret',
} as const;

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field
  body: any;
}

/** A partner's client of one base URL: a token, then calls with its headers. */
export class Client {
  token = '';
  constructor(readonly base: string) {}

  async raw(
    method: string,
    path: string,
    o: { headers?: Record<string, string>; body?: unknown; form?: string } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...o.headers };
    let body: string | undefined;
    if (o.form !== undefined) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = o.form;
    } else if (o.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(o.body);
    }
    const res = await fetch(`${this.base}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  /** A token by the form (client_secret_post), or by HTTP Basic. */
  async login(how: 'form' | 'basic' = 'form'): Promise<Reply> {
    const reply =
      how === 'form'
        ? await this.raw('POST', '/oauth/token', {
            form: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
          })
        : await this.raw('POST', '/oauth/token', {
            form: 'grant_type=client_credentials',
            headers: {
              Authorization: `Basic ${Buffer.from(`${DEMO.clientId}:${DEMO.clientSecret}`).toString('base64')}`,
            },
          });
    if (reply.status === 200) this.token = reply.body.access_token;
    return reply;
  }

  call(
    method: string,
    path: string,
    o: { body?: unknown; scenario?: string; key?: string | false; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const write = method !== 'GET';
    return this.raw(method, path, {
      body: o.body,
      headers: {
        Authorization: `Bearer ${this.token}`,
        'X-Platform-Parent-Account-Id': DEMO.parent,
        ...(write && o.key !== false && !path.startsWith('/v1/accounts/register')
          ? { 'Idempotency-Key': o.key ?? randomUUID() }
          : {}),
        ...(o.scenario ? { 'X-Sandbox-Scenario': o.scenario } : {}),
        ...o.headers,
      },
    });
  }
}

export const CONTROLS = (a: string) => `/v1/partnership/accounts/${a}/marketplacecontrolslists`;
export const STATUS = (a: string) => `/v1/partnership/accounts/${a}/status`;
export const REGISTER = '/v1/accounts/register/partnership';
export const MAPPINGS = `/v1/partnership/vertical-mappings?parent_account_id=${DEMO.parent}`;

export const registerBody = (external: string, extra: Record<string, unknown> = {}) => ({
  brand: 'Acme',
  vertical_id: 10,
  sub_vertical_id: 1001,
  country_code: 'US',
  platform_parent_account_id: DEMO.parent,
  store_identifier: 'https://acme.example.com',
  external_account_id: external,
  ...extra,
});

const controlsBody = (contentHash: string | null, domains: string[] = ['competitor.example']) => ({
  name: 'partner list',
  blockedVerticals: [
    { partnerVerticalId: 40, partnerSubVerticalId: 4002, policy: 'Block', position1Policy: 'Block' },
  ],
  domains: domains.map((domain) => ({ domain, policy: 'Block' })),
  contentHash,
});

/** The getting-started tour (docs/getting-started.md): every endpoint, a dry run, rule 5. */
export async function tour(c: Client, external = `tour-${randomUUID()}`): Promise<string> {
  await c.login('form');
  await c.call('GET', MAPPINGS);
  const registered = await c.call('POST', REGISTER, { body: registerBody(external) });
  const account: string = registered.body.data.account_id;
  await c.call('POST', REGISTER, { body: registerBody(external) }); // idempotent on external_account_id
  const list = await c.call('GET', CONTROLS(account));
  const written = await c.call('PUT', CONTROLS(account), {
    body: controlsBody(list.body.data.marketplace_controls_list.content_hash),
  });
  const hash = written.body.data.marketplace_controls_list.content_hash;
  await c.call('PUT', `${CONTROLS(account)}?dry_run=true`, { body: controlsBody(hash, []) });
  await c.call('PUT', STATUS(account), { body: { status: 'paused' } });
  await c.call('GET', STATUS(account));
  await c.call('PUT', `${STATUS(account)}?dry_run=true`, { body: { status: 'active' } });
  const layout = registered.body.data.pages[0].layout_id;
  await c.call('PATCH', `/v1/partnership/accounts/${account}/layouts/${layout}`, {
    body: { layout_type: 'Embedded' },
  });
  // rule 5: add one blocked vertical to what is there
  const again = await c.call('GET', CONTROLS(account));
  await c.call('PUT', CONTROLS(account), {
    body: {
      ...controlsBody(again.body.data.marketplace_controls_list.content_hash),
      blockedVerticals: [
        { partnerVerticalId: 40, partnerSubVerticalId: 4002, policy: 'Block', position1Policy: 'Block' },
        { partnerVerticalId: 20, partnerSubVerticalId: 2002, policy: 'Block', position1Policy: 'Block' },
      ],
    },
  });
  // errors the spec names: a bare host (400), an unmapped pair (400), no parent header (422), an unknown account
  await c.call('POST', REGISTER, {
    body: registerBody(`bad-${external}`, { store_identifier: 'acme.example.com' }),
  });
  await c.call('PUT', CONTROLS(account), {
    body: {
      ...controlsBody(null),
      blockedVerticals: [
        { partnerVerticalId: 99, partnerSubVerticalId: 9999, policy: 'Block', position1Policy: 'Block' },
      ],
    },
  });
  await c.call('PUT', STATUS(account), {
    body: { status: 'active' },
    headers: { 'X-Platform-Parent-Account-Id': '' },
  });
  await c.call('GET', STATUS('acct_never_issued'));
  await c.raw('GET', STATUS(account)); // no token: 401
  return account;
}

/** Each scenario of §5 a request header carries, on the endpoint it applies to. */
export async function scenarios(c: Client): Promise<void> {
  await c.login('basic');
  const registered = await c.call('POST', REGISTER, {
    body: registerBody(`scenarios-${randomUUID()}`),
    scenario: 'auth-propagation=2',
  });
  const account: string = registered.body.data.account_id;
  await c.call('GET', CONTROLS(account)); // 401
  await c.call('GET', STATUS(account)); // 403
  await new Promise((r) => setTimeout(r, 2300)); // the window passes (the replay advances the clock)
  const list = await c.call('GET', CONTROLS(account));
  await c.call('GET', STATUS(account), { scenario: 'auth-propagation' });
  await c.call('PUT', STATUS(account), { body: { status: 'active' }, scenario: 'status-partial-failure' });
  await c.call('PUT', STATUS(account), { body: { status: 'paused' }, scenario: 'status-partial-failure=1' });
  await c.call('GET', MAPPINGS, { scenario: 'unseeded-mappings' });
  await c.call('POST', REGISTER, {
    body: registerBody(`unseeded-${randomUUID()}`),
    scenario: 'unseeded-mappings',
  });
  await c.call('GET', STATUS(account), { scenario: 'latency=30' });
  await c.call('PUT', STATUS(account), { body: { status: 'active' }, scenario: 'server-error=502' });
  await c.call('GET', CONTROLS(account), { scenario: 'server-error' });
  await c.call('GET', STATUS(account), { scenario: 'rate-limited=3' });
  await c.call('GET', STATUS(account), { scenario: 'token-expired' });
  await c.call('GET', STATUS(account), { scenario: 'connection-reset' }).catch(() => undefined);
  await c.raw('POST', '/oauth/token', { form: 'grant_type=client_credentials' }); // no credentials
  await c.raw('POST', '/oauth/token', {
    form: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
    headers: { 'X-Sandbox-Scenario': 'rate-limited=2' },
  });
  await c
    .raw('POST', '/oauth/token', {
      form: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
      headers: { 'X-Sandbox-Scenario': 'connection-reset' },
    })
    .catch(() => undefined);
  await c.call('GET', STATUS(account), { scenario: 'no-such-scenario' });
  await c.call('PUT', CONTROLS(account), {
    body: controlsBody(list.body.data.marketplace_controls_list.content_hash),
    scenario: 'stale-content-hash',
  });
}

/** An idempotent replay (same key, same answer, Idempotent-Replayed) and a stale-hash 409 that a retry gets past. */
export async function replayAndStaleHash(c: Client): Promise<void> {
  await c.login('form');
  const account = (await c.call('POST', REGISTER, { body: registerBody(`idem-${randomUUID()}`) })).body.data
    .account_id;
  const key = randomUUID();
  await c.call('PUT', STATUS(account), { body: { status: 'active' }, key });
  await c.call('PUT', STATUS(account), { body: { status: 'active' }, key }); // replayed
  await c.call('PUT', STATUS(account), { body: { status: 'paused' }, key }); // replayed, another payload
  const first = await c.call('GET', CONTROLS(account));
  const oldHash = first.body.data.marketplace_controls_list.content_hash;
  await c.call('PUT', CONTROLS(account), { body: controlsBody(oldHash) });
  const writeKey = randomUUID();
  const stale = await c.call('PUT', CONTROLS(account), {
    body: controlsBody(oldHash, ['other.example']),
    key: writeKey,
  });
  if (stale.status !== 409) throw new Error(`expected the stale-hash 409, got ${stale.status}`);
  const reread = await c.call('GET', CONTROLS(account));
  await c.call('PUT', CONTROLS(account), {
    body: controlsBody(reread.body.data.marketplace_controls_list.content_hash, ['other.example']),
    key: writeKey, // the spec: the same key may be reused after a 409
  });
}

/**
 * A partner's suite under chaos: each call retried as the spec advises until it gets through
 * (a reset, a 429 after Retry-After, a 5xx, a propagation 401/403, a stale hash re-read).
 */
export async function chaosRun(c: Client, rounds = 4): Promise<void> {
  const retry = async (send: () => Promise<Reply>, reread?: () => Promise<void>): Promise<Reply> => {
    for (let i = 0; ; i++) {
      const reply = await send().catch(() => undefined);
      if (
        reply &&
        reply.status < 500 &&
        reply.status !== 429 &&
        reply.status !== 401 &&
        reply.status !== 403 &&
        reply.status !== 409
      )
        return reply;
      if (i > 12) throw new Error(`no way through: ${reply?.status}`);
      if (reply?.status === 409 && reread) await reread();
    }
  };
  await retry(() => c.login('form'));
  for (let round = 0; round < rounds; round++) {
    const account = (
      await retry(() => c.call('POST', REGISTER, { body: registerBody(`chaos-${round}-${randomUUID()}`) }))
    ).body.data.account_id;
    let hash = (await retry(() => c.call('GET', CONTROLS(account)))).body.data.marketplace_controls_list
      .content_hash;
    const key = randomUUID();
    await retry(
      () => c.call('PUT', CONTROLS(account), { body: controlsBody(hash), key }),
      async () => {
        hash = (await retry(() => c.call('GET', CONTROLS(account)))).body.data.marketplace_controls_list
          .content_hash;
      },
    );
    const statusKey = randomUUID();
    await retry(() => c.call('PUT', STATUS(account), { body: { status: 'active' }, key: statusKey }));
    await retry(() => c.call('GET', STATUS(account)));
  }
}
