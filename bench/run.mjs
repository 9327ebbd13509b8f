#!/usr/bin/env node
// `npm run bench`: the production build (dist/main.js) as a real process on loopback,
// driven by autocannon, next to two ceiling servers (bench/baselines/) measured in the
// same run. Prints one table and writes it as JSON to bench/results/<timestamp>.json.
//
// Env: BENCH_SECONDS (default 10) seconds per measured run, BENCH_WARMUP (default 2),
//      BENCH_CONNECTIONS (default "1,50"), BENCH_ONLY (substring filter on workload names),
//      BENCH_CPU_PROF=<dir> (run the sandbox under node --cpu-prof, profiles into <dir>),
//      BENCH_NODE_ARGS (extra node flags for the sandbox process, e.g. V8 GC settings),
//      BENCH_SKIP_STARTUP=1 (skip the start-up and idle-RSS measurements),
//      BENCH_ROUNDS (default 1): run the whole sequence (ceilings and workloads) this many
//      times and report each row's median round (by req/s), for machines whose speed drifts.
// Every workload gets a fresh server process, a warm-up at the same concurrency, then the
// measured run. Reads are compared with the constant-JSON ceiling, writes (every request
// with a body) with the zod + SQLite insert ceiling, at the same concurrency. The server's
// CPU time per request (/proc/<pid>/stat) is reported too: on a shared machine it moves
// less than req/s does when other processes compete for the cores.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import {
  accountPool,
  authHeaders,
  benchSeconds,
  CONTROLS,
  cannon,
  cpuCounters,
  cpuMs,
  getToken,
  makeAccounts,
  REGISTER,
  registerAccount,
  registerBody,
  registerNewRequest,
  replayRequest,
  root,
  rssMiB,
  STATUS,
  sleep,
  startSandbox,
  startServer,
  statusPutRequest,
  stealShare,
  tokenRequest,
} from './lib.mjs';
import { startupMedian } from './startup.mjs';
import { insertCeiling, spreadControlsPuts, WORKLOADS } from './workloads.mjs';

const seconds = benchSeconds(10);
const warmup = Number(process.env.BENCH_WARMUP ?? 2);
const connectionLevels = (process.env.BENCH_CONNECTIONS ?? '1,50').split(',').map(Number);
const only = process.env.BENCH_ONLY;
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const cpuProfDir = process.env.BENCH_CPU_PROF;
const sandboxNodeArgs = [
  ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : []),
  ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
];

const TARGETS = {
  controlsGetRatio: 0.5,
  /** What a rate-0 chaos profile may cost the controls GET (req/s), against none in the same run. */
  chaosRate0Cost: 0.05,
  controlsPutRatio: 0.75,
  p99Ms: 10,
  startupMs: 300,
  idleRssMiB: 90,
};

/**
 * A workload: which server, and prepare(server, c) -> factory of autocannon `requests`
 * (called once for the warm-up and once for the measured run) and an optional
 * between() hook run after the warm-up.
 */
/** The controls GET of at least 10 accounts (one per connection), one token for all. */
async function controlsGets(url, c) {
  const token = await getToken(url);
  const accounts = await makeAccounts(url, token, Math.max(c, 10));
  const reqs = accounts.map((a) => ({
    method: 'GET',
    path: CONTROLS(a.id),
    headers: authHeaders(token),
  }));
  return { requests: () => reqs };
}

const workloads = [
  {
    name: 'ceiling: constant JSON (Hono)',
    kind: 'ceiling-read',
    server: () => startServer('bench/baselines/constant-json.mjs', { readyPath: '/health' }),
    prepare: async () => ({ requests: () => [{ method: 'GET', path: '/json' }] }),
  },
  {
    name: 'ceiling: zod + SQLite insert (Hono)',
    kind: 'ceiling-write',
    server: () => startServer('bench/baselines/zod-sqlite-insert.mjs', { readyPath: '/health' }),
    prepare: insertCeiling,
  },
  {
    name: 'token grant (POST /oauth/token)',
    kind: 'write',
    prepare: async () => ({ requests: () => [tokenRequest()] }),
  },
  {
    name: 'register (new account each)',
    kind: 'write',
    prepare: async (url) => {
      const auth = { token: await getToken(url) };
      return { requests: () => [registerNewRequest(auth)] };
    },
  },
  {
    name: 'register (matched)',
    kind: 'write',
    prepare: async (url) => {
      const token = await getToken(url);
      await registerAccount(url, token, 'bench-matched');
      return {
        requests: () => [
          {
            method: 'POST',
            path: REGISTER,
            headers: authHeaders(token),
            body: registerBody('bench-matched'),
          },
        ],
      };
    },
  },
  {
    name: 'controls GET',
    kind: 'read',
    target: 'controlsGet',
    prepare: controlsGets,
  },
  {
    // Chaos on (docs/chaos.md) that never fails: what the draw costs every call.
    name: 'controls GET + chaos profile rate=0',
    kind: 'read',
    target: 'chaosRate0',
    prepare: WORKLOADS['controls GET chaos0'],
  },
  {
    name: 'controls GET + X-Sandbox-Scenario: latency=0',
    kind: 'read',
    injected: true,
    prepare: async (url, c) => {
      const token = await getToken(url);
      const accounts = await makeAccounts(url, token, Math.max(c, 10));
      const headers = { ...authHeaders(token), 'X-Sandbox-Scenario': 'latency=0' };
      const reqs = accounts.map((a) => ({ method: 'GET', path: CONTROLS(a.id), headers }));
      return { requests: () => reqs };
    },
  },
  {
    // A partner's OpenTelemetry traceparent and tracestate (docs/journal-and-report.md#traces):
    // what reading and keeping the trace costs a call, against 'controls GET'.
    name: 'controls GET + traceparent',
    kind: 'read',
    prepare: async (url, c) => {
      const token = await getToken(url);
      const accounts = await makeAccounts(url, token, Math.max(c, 10));
      const headers = {
        ...authHeaders(token),
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
      };
      const reqs = accounts.map((a) => ({ method: 'GET', path: CONTROLS(a.id), headers }));
      return { requests: () => reqs };
    },
  },
  {
    name: 'controls PUT (fresh key, current hash)',
    kind: 'write',
    target: 'controlsPut',
    // over 8 partners, so that no partner's room fills in the run (bench/workloads.mjs)
    prepare: (url, c) => spreadControlsPuts(url, c),
  },
  {
    name: 'status PUT (fresh key)',
    kind: 'write',
    prepare: async (url, c) => {
      const auth = { token: await getToken(url) };
      const accounts = await makeAccounts(url, auth.token, c * 2);
      return { requests: () => [statusPutRequest(auth, accountPool(accounts))] };
    },
  },
  {
    name: 'idempotent replay (status PUT, same key + body)',
    kind: 'write',
    prepare: async (url) => {
      const auth = { token: await getToken(url) };
      const id = await registerAccount(url, auth.token, 'bench-replay');
      const first = await fetch(url + STATUS(id), {
        method: 'PUT',
        headers: { ...authHeaders(auth.token), 'Idempotency-Key': 'bench-replay-key' },
        body: JSON.stringify({ status: 'paused' }),
      });
      await first.arrayBuffer();
      if (first.status !== 200) throw new Error(`replay setup: ${first.status}`);
      return { requests: () => [replayRequest(auth, id, 'bench-replay-key')] };
    },
  },
].filter((w) => !only || w.kind.startsWith('ceiling') || w.name.includes(only));

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '-');

async function measure(w, c) {
  const server = await (w.server ? w.server() : startSandbox({ nodeArgs: sandboxNodeArgs }));
  try {
    const prep = await w.prepare(server.url, c);
    if (warmup > 0) await cannon(server.url, { requests: prep.requests(), connections: c, duration: warmup });
    if (prep.between) await prep.between();
    const cpu0 = cpuMs(server.pid);
    const machine0 = cpuCounters();
    const r = await cannon(server.url, { requests: prep.requests(), connections: c, duration: seconds });
    const cpu = cpuMs(server.pid) - cpu0;
    const steal = stealShare(machine0, cpuCounters());
    // Server CPU per request: robust to other load on the machine, unlike req/s.
    return {
      ...r,
      server_cpu_ms: cpu,
      cpu_us_per_req: (cpu * 1000) / r.total,
      steal_pct: +(steal * 100).toFixed(1),
      rss_after_mib: +rssMiB(server.pid).toFixed(1),
    };
  } finally {
    await server.stop();
  }
}

const byRound = []; // [round][i]
for (let round = 0; round < rounds; round++) {
  const results = [];
  for (const c of connectionLevels) {
    for (const w of workloads) {
      process.stderr.write(`  ${rounds > 1 ? `[round ${round + 1}/${rounds}] ` : ''}${w.name} c=${c} ...`);
      const r = await measure(w, c);
      process.stderr.write(` ${fmt(r.rps)} req/s (steal ${fmt(r.steal_pct, 1)}%)\n`);
      results.push({
        workload: w.name,
        kind: w.kind,
        injected: !!w.injected,
        target: w.target,
        connections: c,
        ...r,
      });
    }
  }
  byRound.push(results);
}
// Each row: its median round by req/s (with one round, that round).
const rows = byRound[0].map((_, i) => {
  const runs = byRound.map((results) => results[i]).sort((a, b) => a.rps - b.rps);
  const median = runs[Math.floor(runs.length / 2)];
  return rounds > 1
    ? { ...median, rounds_rps: byRound.map((results) => Math.round(results[i].rps)) }
    : median;
});

// Ratios and targets.
for (const row of rows) {
  const ceilingKind = row.kind === 'read' ? 'ceiling-read' : row.kind === 'write' ? 'ceiling-write' : null;
  const ceiling = rows.find((r) => r.kind === ceilingKind && r.connections === row.connections);
  row.ratio = ceiling ? row.rps / ceiling.rps : null;
  // The same comparison in server CPU per request (less sensitive to other load on the machine).
  row.cpu_ratio = ceiling ? ceiling.cpu_us_per_req / row.cpu_us_per_req : null;
  row.p99_vs_ceiling = ceiling ? row.p99 / ceiling.p99 : null;
  row.checks = [];
  if (row.connections === 50 && row.target === 'controlsGet')
    row.checks.push({
      what: `ratio >= ${TARGETS.controlsGetRatio}`,
      pass: row.ratio >= TARGETS.controlsGetRatio,
    });
  if (row.connections === 50 && row.target === 'controlsPut')
    row.checks.push({
      what: `ratio >= ${TARGETS.controlsPutRatio}`,
      pass: row.ratio >= TARGETS.controlsPutRatio,
    });
  if (row.target === 'chaosRate0') {
    const plain = rows.find((r) => r.target === 'controlsGet' && r.connections === row.connections);
    if (plain) {
      row.chaos_cost = 1 - row.rps / plain.rps;
      row.chaos_cpu_cost = row.cpu_us_per_req / plain.cpu_us_per_req - 1;
      if (row.connections === 50)
        row.checks.push({
          what: `cost vs no profile < ${TARGETS.chaosRate0Cost * 100} % (${fmt(row.chaos_cost * 100, 1)} % req/s, ${fmt(row.chaos_cpu_cost * 100, 1)} % CPU/req)`,
          pass: row.chaos_cost < TARGETS.chaosRate0Cost,
        });
    }
  }
  if (row.connections === 50 && !row.injected && !row.kind.startsWith('ceiling'))
    row.checks.push({ what: `p99 < ${TARGETS.p99Ms} ms`, pass: row.p99 < TARGETS.p99Ms });
}

let startup = null;
let idle = null;
if (process.env.BENCH_SKIP_STARTUP !== '1') {
  const machine0 = cpuCounters();
  const s = await startupMedian(10, {});
  const steal = stealShare(machine0, cpuCounters());
  startup = { ...s, steal_pct: +(steal * 100).toFixed(1), pass: s.median < TARGETS.startupMs };
  const readings = [];
  for (let i = 0; i < 3; i++) {
    const sb = await startSandbox();
    await sleep(2000);
    readings.push(rssMiB(sb.pid));
    await sb.stop();
  }
  readings.sort((a, b) => a - b);
  idle = { median_mib: +readings[1].toFixed(1), readings: readings.map((x) => +x.toFixed(1)) };
  idle.pass = idle.median_mib < TARGETS.idleRssMiB;
}

// The table.
const header = [
  'workload',
  'c',
  'req/s',
  'p50 ms',
  'p99 ms',
  '2xx',
  'ratio',
  'CPU µs/req',
  'CPU ratio',
  'p99 / ceiling p99',
  'steal',
  'targets',
];
const lines = rows.map((r) => [
  r.workload,
  String(r.connections),
  fmt(r.rps),
  fmt(r.p50, 1),
  fmt(r.p99, 1),
  `${fmt(r.rate2xx * 100, 1)}%`,
  r.ratio === null ? '(ceiling)' : `${fmt(r.ratio, 2)} vs ${r.kind === 'read' ? 'JSON' : 'insert'}`,
  fmt(r.cpu_us_per_req),
  r.cpu_ratio === null ? '' : fmt(r.cpu_ratio, 2),
  r.p99_vs_ceiling === null ? '' : fmt(r.p99_vs_ceiling, 2),
  `${fmt(r.steal_pct, 0)}%`,
  r.checks.map((k) => `${k.what}: ${k.pass ? 'PASS' : 'FAIL'}`).join('; ') ||
    (r.injected && r.connections === 50 ? '(injected latency: exempt)' : ''),
]);
const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
const out = (cols) =>
  `| ${cols.map((c, i) => (i === 0 || i === header.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
console.log(
  `\n${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} CPUs, ${seconds} s per run after ${warmup} s warm-up` +
    `${rounds > 1 ? `, median of ${rounds} rounds` : ''}; steal = CPU time the hypervisor gave to other guests during the run\n`,
);
console.log(out(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const l of lines) console.log(out(l));
if (startup)
  console.log(
    `\nstart-up to first healthy response (default fixtures): median ${fmt(startup.median)} ms ` +
      `(min ${fmt(startup.min)}, max ${fmt(startup.max)}, ${startup.runs} runs, steal ${fmt(startup.steal_pct, 0)}%) — target < ${TARGETS.startupMs} ms: ${startup.pass ? 'PASS' : 'FAIL'}`,
  );
if (idle)
  console.log(
    `idle RSS (2 s after healthy): median ${idle.median_mib} MiB of ${idle.readings.join(', ')} — target < ${TARGETS.idleRssMiB} MiB: ${idle.pass ? 'PASS' : 'FAIL'}`,
  );

const dir = join(root, 'bench/results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(
  file,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      seconds,
      warmup,
      rounds,
      targets: TARGETS,
      rows,
      startup,
      idle_rss: idle,
    },
    null,
    2,
  )}\n`,
);
console.log(`\nwritten ${file}`);
