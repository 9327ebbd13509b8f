#!/usr/bin/env node
// The volume of a hosted sandbox (SANDBOX.md section 13; issue 39 item 3): the production build
// with 10,000 partners, each with a journal of its own (a token call and a few partnership
// calls), within a journal budget that is full, so every call also keeps the budget.
//
// Reports:
// - `controls_get`: throughput and latency of the demo partner's controls GET (autocannon) with
//   the fixtures' partners only, then again once the 10,000 partners and their journals are in
//   (keeping the budget must not cost more with more partners);
// - `holds`: for each control-plane read of the whole journal (unfiltered count, count by
//   account, counts and lists that read every entry, GET /__sandbox/partners, a partner reset),
//   its own duration and the longest another partner's call waited while it ran. A prober sends
//   one partner's calls back to back the whole time; a call's wait is its latency, and a
//   control call holds the prober for the longest latency of the prober's calls that overlap it.
//   `alone` is the prober's latency with no control call running.
//
// Usage: npm run build && node bench/hosted-journal.mjs [--partners=10000] [--calls=4]
//          [--budget-mb=64] [--seconds=10] [--connections=10] [--repeat=3]
import {
  benchSeconds,
  cannon,
  controlsGetRequest,
  getToken,
  makeAccounts,
  numberArg,
  rssMiB,
  startSandbox,
} from './lib.mjs';

const partners = numberArg('partners', 10_000);
const calls = numberArg('calls', 4);
const budgetMb = numberArg('budget-mb', 64);
const connections = numberArg('connections', 10);
const repeat = numberArg('repeat', 3);
const seconds = benchSeconds(10);

const STATUS_NONE = '/v1/partnership/accounts/acct_none/status';

const sb = await startSandbox({ env: { SANDBOX_JOURNAL_BUDGET_MB: String(budgetMb) } });
const post = (path, body) =>
  fetch(sb.url + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Runs `work(i)` for i in [0, n) on `width` workers. */
async function pool(n, width, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

/** A partner created on the control plane with a token (a generated secret: no scrypt), and `calls` calls of its own. */
async function partnerWithCalls(i) {
  const created = await post('/__sandbox/partners', { parent_account_id: `pa_hosted_${i}` });
  const p = await created.json();
  if (created.status !== 201) throw new Error(`partner: ${created.status} ${JSON.stringify(p)}`);
  const res = await fetch(`${sb.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: p.client_id,
      client_secret: p.client_secret,
    }).toString(),
  });
  const { access_token } = await res.json();
  const headers = {
    Authorization: `Bearer ${access_token}`,
    'X-Platform-Parent-Account-Id': p.parent_account_id,
  };
  for (let k = 0; k < calls; k++) await (await fetch(sb.url + STATUS_NONE, { headers })).arrayBuffer();
  return headers;
}

const token = await getToken(sb.url);
const accounts = await makeAccounts(sb.url, token, 10);
const controlsGet = () =>
  cannon(sb.url, {
    requests: [controlsGetRequest({ token }, accounts)],
    connections,
    duration: seconds,
  });
const summary = (r) => ({
  rps: Math.round(r.rps),
  p50_ms: r.p50,
  p99_ms: r.p99,
  max_ms: r.max,
  non2xx: r.non2xx,
});

await controlsGet(); // a warm-up: the first run also compiles the server's code
const atOne = await controlsGet();

const t0 = performance.now();
let prober;
await pool(partners, 16, async (i) => {
  const headers = await partnerWithCalls(i);
  if (i === 0) prober = headers;
});
const setupS = (performance.now() - t0) / 1000;
const journal = await (await post('/__sandbox/requests/count', {})).json();

const atMany = await controlsGet();

// The prober: one partner's calls back to back, each call's [start, end].
const probes = [];
let probing = true;
const probing$ = (async () => {
  while (probing) {
    const start = performance.now();
    await (await fetch(sb.url + STATUS_NONE, { headers: prober })).arrayBuffer();
    probes.push([start, performance.now()]);
  }
})();
const waitMs = (ms) => new Promise((r) => setTimeout(r, ms));

/** The longest latency of the prober's calls that overlap [from, to]. */
const heldDuring = (from, to) =>
  Math.max(0, ...probes.filter(([s, e]) => e >= from && s <= to).map(([s, e]) => e - s));

await waitMs(2_000);
const idle = probes.map(([s, e]) => e - s).sort((a, b) => a - b);
const alone = { calls: idle.length, p50_ms: idle[idle.length >> 1], max_ms: idle.at(-1) };

const ops = {
  'count {}': () => post('/__sandbox/requests/count', {}),
  'count {account_id}': () => post('/__sandbox/requests/count', { account_id: 'acct_none' }),
  'count {method, path} (reads every entry)': () =>
    post('/__sandbox/requests/count', { method: 'GET', path: '/status' }),
  'count {body_contains} (reads every entry)': () =>
    post('/__sandbox/requests/count', { body_contains: 'zzz' }),
  'GET /__sandbox/requests': () => fetch(`${sb.url}/__sandbox/requests`),
  'GET /__sandbox/requests?path=/none (reads every entry)': () =>
    fetch(`${sb.url}/__sandbox/requests?path=/none`),
  'GET /__sandbox/partners': () => fetch(`${sb.url}/__sandbox/partners`),
  'POST /__sandbox/partners/{p}/reset': () => post(`/__sandbox/partners/pa_hosted_${partners - 1}/reset`, {}),
};
const holds = {};
for (const [name, op] of Object.entries(ops)) {
  let held = 0;
  let took = 0;
  let status;
  for (let r = 0; r < repeat; r++) {
    await waitMs(200);
    const from = performance.now();
    const res = await op();
    await res.arrayBuffer();
    const to = performance.now();
    status = res.status;
    await waitMs(100); // the prober call under way when it answered ends
    held = Math.max(held, heldDuring(from, to));
    took = Math.max(took, to - from);
  }
  holds[name] = { status, duration_ms: Math.round(took), held_others_ms: Math.round(held) };
}
probing = false;
await probing$;

const rss = rssMiB(sb.pid);
await sb.stop();
console.log(
  JSON.stringify(
    {
      node: process.version,
      date: new Date().toISOString(),
      partners,
      calls_each: calls,
      budget_mb: budgetMb,
      journal_entries_kept: journal.count,
      setup_s: Math.round(setupS),
      rss_mib: rss,
      controls_get: { one_partner: summary(atOne), [`${partners}_partners`]: summary(atMany) },
      prober_alone: alone,
      holds,
    },
    null,
    2,
  ),
);
