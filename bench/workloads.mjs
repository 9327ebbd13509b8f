// The workloads the comparisons share (bench/compare.mjs, bench/instructions.mjs,
// bench/hosted-mix.mjs): each prepares a running sandbox and gives autocannon's `requests`.
//   controls GET   the demo partner's controls list, 10 accounts in turn (as `npm run bench`)
//   controls GET chaos0  the same with a chaos profile of rate 0 for every partner (never fails)
//   controls PUT   a fresh Idempotency-Key and the account's current content hash each call
//   status PUT     a fresh key, each account paused and activated in turn
//   controls PUT spread  the same, spread over 8 partners (as `npm run bench`)
//   token          POST /oauth/token of the demo client
//   limited GET    a partner's vertical-mappings GET past its fair share: start the sandbox
//                  with SANDBOX_RATE_LIMIT=1 in the environment, and nearly every call is a 429
//   hosted mix     many partners' calls, mixed as a hosted sandbox sees them (HOSTED_MIX)
import {
  accountPool,
  authHeaders,
  CONTROLS,
  controlsBody,
  controlsPutRequest,
  freshKey,
  getToken,
  MAPPINGS,
  makeAccounts,
  partnerWithToken,
  REGISTER,
  registerBody,
  STATUS,
  statusPutRequest,
  tokenRequest,
} from './lib.mjs';

/** A hosted sandbox's calls (issue 41): the share of each kind, in percent. */
/** The write ceiling's one request (bench/baselines/zod-sqlite-insert.mjs): what `npm run bench` and instructions.mjs send it. */
export const insertCeiling = async () => ({
  requests: () => [
    {
      method: 'PUT',
      path: '/insert',
      headers: { 'Content-Type': 'application/json' },
      body: controlsBody('3f0c8e1d2b4a5968778695a4b3c2d1e0f9a8b7c6'),
    },
  ],
});

export const HOSTED_MIX = [
  ['token', 5],
  ['register', 10],
  ['controls GET', 45],
  ['controls PUT', 25],
  ['status PUT', 15],
];

/** A small deterministic PRNG (mulberry32), so two builds see the same sequence of calls. */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function controlsGets(url) {
  const token = await getToken(url);
  const accounts = await makeAccounts(url, token, 10);
  const reqs = accounts.map((a) => ({ method: 'GET', path: CONTROLS(a.id), headers: authHeaders(token) }));
  return { requests: () => reqs };
}

async function statusPuts(url, c) {
  const auth = { token: await getToken(url) };
  const accounts = await makeAccounts(url, auth.token, Math.max(2, c * 2));
  return { requests: () => [statusPutRequest(auth, accountPool(accounts))] };
}

/** The workloads by name: prepare(url, connections) -> { requests(), between?() }. */
export const WORKLOADS = {
  'controls GET': controlsGets,
  // as `npm run bench`'s row 'controls GET + chaos profile rate=0': a profile that never fails
  'controls GET chaos0': async (url, c) => {
    const set = await fetchAgain(`${url}/__sandbox/chaos`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ rate: 0, seed: 42 }),
    });
    await set.arrayBuffer();
    if (set.status !== 200) throw new Error(`chaos profile: ${set.status}`);
    return controlsGets(url, c);
  },
  // as `npm run bench`'s row: spread over partners, so a warm-up of 20,000 keyed writes stays below
  // every partner's room (on the demo partner alone, bench/instructions.mjs counted 403s only)
  'controls PUT': (url, c) => spreadControlsPuts(url, c),
  'status PUT': statusPuts,
  token: async () => ({ requests: () => [tokenRequest()] }),
  // as `npm run bench` runs it: spread over 8 partners (spreadControlsPuts)
  'controls PUT spread': (url, c) => spreadControlsPuts(url, c),
  'limited GET': async (url) => {
    const { headers } = await partnerWithToken(url, 'pa_limited');
    return { requests: () => [{ method: 'GET', path: MAPPINGS, headers }] };
  },
};

/** Runs `fn` over `items`, `width` at a time. */
async function inParallel(items, width, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
}

/**
 * fetch, again when the connection was reset before an answer: a keep-alive socket the server
 * closed as it was reused (set-up calls to a sandbox under valgrind take seconds each).
 */
async function fetchAgain(input, init) {
  for (let tries = 1; ; tries++) {
    try {
      return await fetch(input, init);
    } catch (e) {
      if (tries >= 4 || e?.cause?.code !== 'ECONNRESET') throw e;
    }
  }
}

async function postJson(url, path, body, headers = {}) {
  const res = await fetchAgain(url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * The controls PUT spread over `partners` partners (`npm run bench`): each PUT stores its answer
 * under its key in its partner's room (26 MiB: about 12,000 PUTs of the bench's body,
 * docs/guarantees-and-limits.md), so one partner's room fills within a 10 s run at c=50 and the
 * row would measure a partner at its room's edge (each write re-counting what it holds), not the
 * write. `connections * 2` accounts (at least 2 a partner), each with its partner's headers.
 */
export async function spreadControlsPuts(url, connections, partners = 8) {
  const { partners: all } = await hostedPartners(url, partners, 0);
  const accounts = [];
  const n = Math.max(connections * 2, partners * 2);
  for (let i = 0; i < n; i++) {
    const p = all[i % all.length];
    const headers = { Authorization: `Bearer ${p.token}`, 'X-Platform-Parent-Account-Id': p.parent };
    const body = JSON.parse(registerBody(`bench-spread-${i}`).replace('pa_demo_platform', p.parent));
    const id = (await postJson(url, REGISTER, body, headers)).data.account_id;
    accounts.push({ id, headers, hash: await hashOf(url, id, headers) });
  }
  const refresh = async () => {
    for (const a of accounts) a.hash = await hashOf(url, a.id, a.headers);
  };
  return { requests: () => [controlsPutRequest({}, accountPool(accounts, true))], between: refresh };
}

async function hashOf(url, id, headers) {
  const res = await fetchAgain(url + CONTROLS(id), { headers });
  return (await res.json()).data.marketplace_controls_list.content_hash;
}

/**
 * `partners` partners (the demo partner, then new ones made on the control plane), each with a
 * token and one account (more for the demo partner when there are few: one per connection and
 * one spare), its content hash known.
 */
export async function hostedPartners(url, partners, connections) {
  const list = [];
  for (let i = 1; i < partners; i++) list.push({ parent: `pa_bench_${String(i).padStart(5, '0')}` });
  const made = [];
  const demoToken = await getToken(url);
  // each new partner seeded with the demo partner's taxonomy, so it can register
  const mapping = (
    await (await fetchAgain(url + MAPPINGS, { headers: authHeaders(demoToken) })).json()
  ).data.vertical_mappings.map(({ created_at, ...row }) => row);
  await inParallel(list, 16, async (p) => {
    const created = await postJson(url, '/__sandbox/partners', { parent_account_id: p.parent });
    const seeded = await fetchAgain(`${url}/__sandbox/partners/${p.parent}/vertical-mappings`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ vertical_mappings: mapping }),
    });
    await seeded.arrayBuffer();
    if (seeded.status !== 200) throw new Error(`mapping of ${p.parent}: ${seeded.status}`);
    const res = await fetchAgain(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: created.client_id,
        client_secret: created.client_secret,
      }).toString(),
    });
    const token = (await res.json()).access_token;
    made.push({ parent: p.parent, clientId: created.client_id, clientSecret: created.client_secret, token });
  });
  const all = [
    {
      parent: 'pa_demo_platform',
      clientId: 'sandbox-demo-client',
      clientSecret: 'sandbox-demo-secret',
      token: demoToken,
    },
    ...made.sort((a, b) => a.parent.localeCompare(b.parent)),
  ];
  const accounts = [];
  const perDemo = Math.max(1, connections * 2 + 1 - (partners - 1));
  const owners = [...Array.from({ length: perDemo }, () => all[0]), ...all.slice(1)];
  await inParallel(owners, 16, async (p, i) => {
    accounts.push({ partner: p, ...(await mixAccount(url, p, `bench-mix-${i}`)) });
  });
  accounts.sort((a, b) => a.id.localeCompare(b.id));
  return { partners: all, accounts };
}

/** A new account of partner `p` (registered under `external`), with its content hash. */
async function mixAccount(url, p, external) {
  const headers = { Authorization: `Bearer ${p.token}`, 'X-Platform-Parent-Account-Id': p.parent };
  const body = JSON.parse(registerBody(external).replace('pa_demo_platform', p.parent));
  const id = (await postJson(url, REGISTER, body, headers)).data.account_id;
  return { id, hash: await hashOf(url, id, headers), paused: false };
}

/**
 * Writes (2xx registrations and keyed PUTs) a partner may take between two resets of the
 * bench's: each keeps about 2 KB in its room (26 MiB; with 12,000 and runs of 6,000 calls, the
 * one partner of `node bench/hosted-mix.mjs --partners=1` met its room on 2026-12-07 after
 * about 13,500), so 6,000 and runs of 2 s (about 1,500 writes a second when one partner takes
 * them all) keep a partner below about 20 MiB, where no write counts the store.
 */
export const MIX_WRITES_BUDGET = 6_000;

/**
 * The hosted mix over `partners` partners: each call's kind drawn by HOSTED_MIX's shares and its
 * account (so its partner) at random among those not in flight, from a seeded sequence.
 */
export async function hostedMix(url, connections, partners, seed = 41, only = undefined) {
  const { accounts } = await hostedPartners(url, partners, connections);
  const random = prng(seed);
  const total = HOSTED_MIX.reduce((n, [, w]) => n + w, 0);
  const kind = () => {
    if (only) return only;
    let r = random() * total;
    for (const [name, w] of HOSTED_MIX) {
      r -= w;
      if (r < 0) return name;
    }
    return HOSTED_MIX[0][0];
  };
  let free = [];
  const take = () => {
    const i = Math.floor(random() * free.length);
    const a = free[i];
    free[i] = free[free.length - 1];
    free.pop();
    return a;
  };
  let registered = 0;
  // accounts sent and not answered yet: at the end of a run, those whose hash may have moved
  const out = new Set();
  const request = {
    method: 'GET',
    setupRequest(req, ctx) {
      const a = take();
      out.add(a);
      ctx.account = a;
      const k = kind();
      ctx.kind = k;
      const p = a.partner;
      const headers = {
        Authorization: `Bearer ${p.token}`,
        'X-Platform-Parent-Account-Id': p.parent,
        'Content-Type': 'application/json',
      };
      switch (k) {
        case 'token':
          return {
            ...req,
            method: 'POST',
            path: '/oauth/token',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'client_credentials',
              client_id: p.clientId,
              client_secret: p.clientSecret,
            }).toString(),
          };
        case 'register':
          return {
            ...req,
            method: 'POST',
            path: REGISTER,
            headers,
            body: registerBody(`mix-${seed}-${registered++}`).replace('pa_demo_platform', p.parent),
          };
        case 'controls GET':
          return { ...req, method: 'GET', path: CONTROLS(a.id), headers, body: undefined };
        case 'controls PUT':
          return {
            ...req,
            method: 'PUT',
            path: CONTROLS(a.id),
            headers: { ...headers, 'Idempotency-Key': freshKey() },
            body: controlsBody(a.hash),
          };
        default:
          a.paused = !a.paused;
          return {
            ...req,
            method: 'PUT',
            path: STATUS(a.id),
            headers: { ...headers, 'Idempotency-Key': freshKey() },
            body: JSON.stringify({ status: a.paused ? 'paused' : 'active' }),
          };
      }
    },
    onResponse(status, body, ctx) {
      const a = ctx.account;
      if (!a) return;
      if (ctx.kind === 'controls PUT' && status === 200) {
        try {
          a.hash = JSON.parse(body).data.marketplace_controls_list.content_hash;
        } catch {
          // keep the old hash
        }
      }
      if (ctx.kind !== 'token' && ctx.kind !== 'controls GET' && status >= 200 && status < 300)
        a.partner.writes++;
      ctx.account = undefined;
      out.delete(a);
      free.push(a);
    },
  };
  for (const a of accounts) a.partner.writes = 0;
  let resets = 0;
  return {
    requests: () => {
      free = [...accounts];
      return [request];
    },
    /**
     * Between two runs: the hashes of the calls a run cut off read again, and each partner past
     * `budget` writes since its last reset reset through its own control plane
     * (`POST /__sandbox/partners/{parent}/reset`, with its token) and given its accounts again,
     * so that no partner nears its room (26 MiB) whatever the number of partners: a run of one
     * partner takes every write of the process. Resolves to the number of partners reset.
     */
    between: async (budget = MIX_WRITES_BUDGET) => {
      for (const a of out) {
        const headers = {
          Authorization: `Bearer ${a.partner.token}`,
          'X-Platform-Parent-Account-Id': a.partner.parent,
        };
        const res = await fetch(url + CONTROLS(a.id), { headers });
        const json = await res.json();
        if (res.status === 200) a.hash = json.data.marketplace_controls_list.content_hash;
      }
      out.clear();
      const full = new Set(accounts.filter((a) => a.partner.writes > budget).map((a) => a.partner));
      for (const p of full) {
        const res = await fetch(`${url}/__sandbox/partners/${p.parent}/reset`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${p.token}` },
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`reset of ${p.parent}: ${res.status}`);
        p.writes = 0;
        resets++;
        for (const [j, a] of accounts.filter((x) => x.partner === p).entries())
          Object.assign(a, await mixAccount(url, p, `bench-mix-r${resets}-${j}`));
      }
      return full.size;
    },
    resets: () => resets,
  };
}
