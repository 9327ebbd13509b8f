#!/usr/bin/env node
// A fair share (docs/hosting.md): 20 quiet partners at 5 calls/s each beside one noisy partner
// at c=50, under SANDBOX_RATE_LIMIT=25. Reports:
// - the quiet partners' p99 alone, then with the noisy one (target: within 2x);
// - the cost of a limited call against a served GET, as the server's CPU time per request
//   (/proc/<pid>/stat over each window; target: under 1/10), beside the floor every answer
//   pays here (a Hono server answering constant JSON: sockets, HTTP parsing, routing), and
//   the same ratio above that floor; and beside the floor of Node's HTTP server alone (constant
//   bytes of a 429's size, no Hono), which no answer written by Node goes below.
//
// Usage: npm run build && node bench/hosted-fair.mjs [--seconds=10] [--limit=25]
import {
  arg,
  authHeaders,
  benchSeconds,
  CONTROLS,
  cannon,
  cpuCounters,
  cpuMs,
  getToken,
  MAPPINGS,
  partnerWithToken,
  registerAccount,
  sandboxDist,
  startSandbox,
  startServer,
  stealShare,
} from './lib.mjs';

const seconds = benchSeconds(10);
const limit = arg('limit', '25');
const QUIET = 20;
const QUIET_RATE = 5;
const NOISY_C = 50;

const get = (headers) => ({ method: 'GET', path: MAPPINGS, headers });

/** Round-robin over the quiet partners: each sends its share of the overall rate. */
function quietRequests(partners) {
  let i = 0;
  return [
    {
      method: 'GET',
      path: MAPPINGS,
      setupRequest: (req) => ({ ...req, headers: partners[i++ % partners.length].headers }),
    },
  ];
}

const quietRun = (url, partners) =>
  cannon(url, {
    requests: quietRequests(partners),
    connections: QUIET,
    overallRate: QUIET * QUIET_RATE,
    duration: seconds,
  });

/** The server's CPU µs per request over one run. */
async function cpuPerRequest(sb, run) {
  const before = cpuMs(sb.pid);
  const r = await run();
  return { ...r, cpuUs: ((cpuMs(sb.pid) - before) * 1000) / r.total };
}

const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

async function main() {
  const steal0 = cpuCounters();
  sandboxDist();
  const limited = await startSandbox({ env: { SANDBOX_RATE_LIMIT: limit } });
  const free = await startSandbox();
  try {
    const quiet = [];
    for (let i = 0; i < QUIET; i++) quiet.push(await partnerWithToken(limited.url, `pa_quiet_${i}`));
    const noisy = await partnerWithToken(limited.url, 'pa_noisy');
    // The served GET: a controls GET of the demo partner's account (a partnership read).
    const demoToken = await getToken(free.url);
    const account = await registerAccount(free.url, demoToken, 'hosted-fair');
    const served = { method: 'GET', path: CONTROLS(account), headers: authHeaders(demoToken) };

    // Warm-up of both servers.
    await cannon(limited.url, {
      requests: quietRequests(quiet),
      connections: QUIET,
      overallRate: 100,
      duration: 2,
    });
    await cannon(free.url, { requests: [served], connections: NOISY_C, duration: 2 });

    const alone = await quietRun(limited.url, quiet);
    const [beside, loud] = await Promise.all([
      quietRun(limited.url, quiet),
      cannon(limited.url, { requests: [get(noisy.headers)], connections: NOISY_C, duration: seconds }),
    ]);

    // Cost: the noisy partner alone (nearly every call limited) against served GETs (no limit).
    const limitedCost = await cpuPerRequest(limited, () =>
      cannon(limited.url, { requests: [get(noisy.headers)], connections: NOISY_C, duration: seconds }),
    );
    const servedCost = await cpuPerRequest(free, () =>
      cannon(free.url, { requests: [served], connections: NOISY_C, duration: seconds }),
    );
    // The floor: a Hono server answering constant JSON costs this much per request here.
    const floor = await startServer('bench/baselines/constant-json.mjs', { readyPath: '/health' });
    let floorCost;
    try {
      await cannon(floor.url, {
        requests: [{ method: 'GET', path: '/json' }],
        connections: NOISY_C,
        duration: 2,
      });
      floorCost = await cpuPerRequest(floor, () =>
        cannon(floor.url, {
          requests: [{ method: 'GET', path: '/json' }],
          connections: NOISY_C,
          duration: seconds,
        }),
      );
    } finally {
      await floor.stop();
    }

    // The floor of Node's HTTP server alone: constant bytes of a 429's size, no Hono.
    const bare = await startServer('bench/baselines/constant-node.mjs');
    let bareCost;
    try {
      const bareRun = (duration) =>
        cannon(bare.url, { requests: [{ method: 'GET', path: '/limited' }], connections: NOISY_C, duration });
      await bareRun(2);
      bareCost = await cpuPerRequest(bare, () => bareRun(seconds));
    } finally {
      await bare.stop();
    }

    const steal = stealShare(steal0, cpuCounters());
    const quietOk = (r) => `${r.ok}/${r.total}`;
    console.log(
      `hosted-fair: SANDBOX_RATE_LIMIT=${limit}, ${QUIET} quiet partners at ${QUIET_RATE}/s, noisy c=${NOISY_C}, ${seconds} s runs, steal ${fmt(steal * 100)} %`,
    );
    console.log(
      `quiet p99 alone:            ${fmt(alone.p99, 2)} ms (p50 ${fmt(alone.p50, 2)}; 2xx ${quietOk(alone)})`,
    );
    console.log(
      `quiet p99 beside the noisy: ${fmt(beside.p99, 2)} ms (p50 ${fmt(beside.p50, 2)}; 2xx ${quietOk(beside)})  ratio ${fmt(beside.p99 / alone.p99, 2)} (target <= 2)`,
    );
    console.log(`noisy: ${fmt(loud.rps, 0)} req/s, ${JSON.stringify(loud.statusCodes)}`);
    console.log(
      `limited call: ${fmt(limitedCost.cpuUs)} CPU µs/req at ${fmt(limitedCost.rps, 0)} req/s (${JSON.stringify(limitedCost.statusCodes)})`,
    );
    console.log(
      `served GET:   ${fmt(servedCost.cpuUs)} CPU µs/req at ${fmt(servedCost.rps, 0)} req/s  ratio ${fmt(limitedCost.cpuUs / servedCost.cpuUs, 3)} (target < 0.1)`,
    );
    console.log(
      `floor (constant JSON, Hono): ${fmt(floorCost.cpuUs)} CPU µs/req; above it: limited ${fmt(limitedCost.cpuUs - floorCost.cpuUs)}, served ${fmt(servedCost.cpuUs - floorCost.cpuUs)} µs  ratio ${fmt((limitedCost.cpuUs - floorCost.cpuUs) / (servedCost.cpuUs - floorCost.cpuUs), 3)}`,
    );
    console.log(
      `floor (constant bytes, node:http alone): ${fmt(bareCost.cpuUs)} CPU µs/req, ${fmt(bareCost.cpuUs / servedCost.cpuUs, 3)} of a served GET; a limited call costs ${fmt(limitedCost.cpuUs / bareCost.cpuUs, 2)}x it`,
    );
  } finally {
    await limited.stop();
    await free.stop();
  }
}

await main();
