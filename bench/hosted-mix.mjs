#!/usr/bin/env node
// A hosted sandbox's mix of calls (bench/workloads.mjs HOSTED_MIX: token 5 %, register 10,
// controls GET 45, controls PUT with a key 25, status PUT with a key 15), spread over 1, 100,
// 1,000 and 10,000 partners, each call's partner and kind drawn from a seeded sequence: the
// server's CPU time a call (user + system, /proc/<pid>/stat, over the measured run), its req/s,
// p99, and the issue's check: req/s within 10 % of the first row's (1 partner) at every count.
//   npm run build && node bench/hosted-mix.mjs [--partners=1,100,1000,10000] [--seconds=10]
//     [--warmup=3] [--connections=10] [--run=2] [--budget=6000] [--kinds] [--only=KIND] [--main=OTHER/dist/main.js]
// Each count of partners gets a fresh sandbox (in-memory store), its partners made on the
// control plane, each with a token and an account, before the warm-up: nothing of the set-up
// (partners, tokens, accounts) is in the measured window, whose calls are the mix alone.
// The same at every count: no partner nears its room (26 MiB). The warm-up and the measured
// window are runs of --run seconds (by time: autocannon's `amount` ends a run only at its next
// one-second tick, so runs of a fixed number of calls measured the tick, not the server: every
// row read 3,000 req/s on 2026-12-07); between two runs, outside the count (time and CPU), each
// partner past MIX_WRITES_BUDGET writes since its last reset is reset through its own control
// plane and registers its accounts again. With one partner, which takes every write of the
// process, that is every few runs; with 10,000, never. The row says how many resets there were.
// --kinds: first, each kind of the mix alone at the first count, in the same run, so the mix's
// CPU a call is compared with what its calls cost one by one under the same load (a figure from
// another run, or from `npm run bench` on a quieter machine, is no comparison: CPU µs a call
// grows about threefold on a loaded machine). --only=KIND: that kind alone at every count.
// Every measured call must be a 2xx: a row prints its share of 2xx and every other status by code.
import { cpus, loadavg } from 'node:os';
import { arg, cannon, cpuMs, numberArg, rssMiB, sandboxDist, startServer } from './lib.mjs';
import { HOSTED_MIX, hostedMix, MIX_WRITES_BUDGET } from './workloads.mjs';

const counts = arg('partners', '1,100,1000,10000').split(',').map(Number);
const seconds = numberArg('seconds', 10);
const warmup = numberArg('warmup', 3);
const connections = numberArg('connections', 10);
/** Seconds a run between two looks at the partners' writes (one partner takes every write of a run). */
const runSeconds = numberArg('run', 2);
/** Writes a partner takes between two resets (--budget=0 resets every partner written to after each run). */
const budget = numberArg('budget', MIX_WRITES_BUDGET);
const main = arg('main', sandboxDist().main);
/** One kind of the mix alone (HOSTED_MIX's names). */
const only = arg('only', '') || undefined;
const kinds = process.argv.includes('--kinds');
/** The issue's target: throughput within 10 % from 1 to 10,000 partners. */
const TOLERANCE = 0.1;

/**
 * Runs of `runSeconds` until `seconds` of them; before each, every partner past its budget of
 * writes is reset through its own control plane and given its accounts again (hostedMix's
 * `between`), outside the count: no partner nears its room at any number of partners.
 */
async function runs(server, prep, seconds) {
  const sum = { calls: 0, ok: 0, time: 0, cpu: 0, p99: 0, resets: 0, codes: {} };
  while (sum.time < seconds) {
    sum.resets += await prep.between(budget);
    const cpu0 = cpuMs(server.pid);
    const r = await cannon(server.url, { requests: prep.requests(), connections, duration: runSeconds });
    sum.cpu += cpuMs(server.pid) - cpu0;
    sum.calls += r.total;
    sum.ok += r.ok;
    sum.time += r.durationS;
    sum.p99 = Math.max(sum.p99, r.p99);
    for (const [code, { count }] of Object.entries(r.statusCodes))
      sum.codes[code] = (sum.codes[code] ?? 0) + count;
  }
  return sum;
}

async function measure(partners, kind) {
  const server = await startServer(main);
  try {
    const t0 = Date.now();
    const prep = await hostedMix(server.url, connections, partners, 41, kind);
    const setupS = (Date.now() - t0) / 1000;
    await runs(server, prep, warmup);
    const load = loadavg()[0];
    const m = await runs(server, prep, seconds);
    const row = {
      partners,
      kind: kind ?? 'mix',
      setupS,
      rps: m.calls / m.time,
      p99: m.p99,
      ok: m.ok / m.calls,
      calls: m.calls,
      cpuUs: (m.cpu * 1000) / m.calls,
      rss: rssMiB(server.pid),
      codes: m.codes,
      resets: m.resets,
      load,
    };
    process.stderr.write(
      `  ${partners} partners, ${row.kind}: ${row.cpuUs.toFixed(1)} CPU µs a call, ${Math.round(row.rps)} req/s\n`,
    );
    return row;
  } finally {
    await server.stop();
  }
}

const alone = [];
if (kinds) for (const [name] of HOSTED_MIX) alone.push(await measure(counts[0], name));
const rows = [];
for (const partners of counts) rows.push(await measure(partners, only));

console.log(
  `\nhosted mix (${only ?? HOSTED_MIX.map(([n, w]) => `${n} ${w} %`).join(', ')}), node ${process.version}, ` +
    `${cpus().length} CPUs, c=${connections}, ${seconds} s after ${warmup} s warm-up\n`,
);
const base = rows[0];
/** Each status but 2xx, by code, with its share of the row's calls: a row with refusals shows them. */
const refused = (r) =>
  Object.entries(r.codes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${code}: ${n} (${((n / r.calls) * 100).toFixed(1)} %)`)
    .join(', ') || 'none';
console.log(
  '| partners | req/s | against 1st row | within 10 % | CPU µs a call | p99 ms (worst run) | 2xx | other statuses | calls | partners reset | RSS after, MiB | set-up s | load |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  const ratio = r.rps / base.rps;
  const check = r.ok < 1 ? 'FAIL (not all 2xx)' : Math.abs(1 - ratio) <= TOLERANCE ? 'PASS' : 'FAIL';
  console.log(
    `| ${r.partners.toLocaleString('en-US')} | **${Math.round(r.rps)}** | ${ratio.toFixed(3)} | ${check} | ${r.cpuUs.toFixed(1)} | ${r.p99.toFixed(1)} | ${(r.ok * 100).toFixed(1)} % | ${refused(r)} | ${r.calls} | ${r.resets} | ${r.rss.toFixed(1)} | ${r.setupS.toFixed(1)} | ${r.load.toFixed(1)} |`,
  );
}
if (alone.length) {
  // What the mix would cost a call if each kind cost what it costs alone, in this same run.
  const total = HOSTED_MIX.reduce((n, [, w]) => n + w, 0);
  const expected = HOSTED_MIX.reduce(
    (n, [name, w]) => n + (w / total) * alone.find((a) => a.kind === name).cpuUs,
    0,
  );
  console.log(`\neach kind alone at ${counts[0].toLocaleString('en-US')} partner(s), same run:\n`);
  console.log('| kind | share | CPU µs a call | req/s | 2xx (other statuses) |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const a of alone)
    console.log(
      `| ${a.kind} | ${HOSTED_MIX.find(([n]) => n === a.kind)[1]} % | ${a.cpuUs.toFixed(1)} | ${Math.round(a.rps)} | ${(a.ok * 100).toFixed(1)} % (${refused(a)}) |`,
    );
  console.log(
    `| the mix, by those shares | | ${expected.toFixed(1)} (measured: ${base.cpuUs.toFixed(1)}, ratio ${(base.cpuUs / expected).toFixed(2)}) | | |`,
  );
}
