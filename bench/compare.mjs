#!/usr/bin/env node
// This tree against another revision, measured in one run (docs/performance.md, "A guard
// against the next regression"): the revision (default HEAD~1; a tag, a commit) is built beside
// the working tree (bench/revision.mjs: a git worktree in a temp dir, npm ci --prefer-offline,
// npm run build), then both builds serve the same workloads in interleaved rounds (each round
// runs every workload on both builds, which goes first alternating), each on a fresh process,
// warmed up, at the same concurrency. Per workload it prints the median over the rounds of
// this tree's server CPU time a call and its req/s, each as a ratio to the revision's.
//   npm run build && node bench/compare.mjs [REV] [--rounds=5] [--seconds=4] [--connections=10]
//     [--only='controls GET'] [--max-slowdown=0.10] [--gate='controls GET']
//     [--other-main=DIR/dist/main.js]   (a build of REV made before, instead of building it now)
// Exit 1 when the gated workload (the controls GET) costs more than 1 + max-slowdown times the
// revision's CPU a call; the CPU time moves far less than req/s when other work shares the
// machine. The release workflow runs it against the last tag.
import { cpus } from 'node:os';
import { arg, cannon, cpuMs, numberArg, sandboxDist, startServer } from './lib.mjs';
import { buildRevision } from './revision.mjs';
import { WORKLOADS } from './workloads.mjs';

const rev = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'HEAD~1';
const rounds = numberArg('rounds', 5);
const seconds = numberArg('seconds', 4);
const warmup = numberArg('warmup', 2);
const connections = numberArg('connections', 10);
const maxSlowdown = numberArg('max-slowdown', 0.1);
const gate = arg('gate', 'controls GET');
const only = arg('only', undefined);
const names = ['controls GET', 'controls PUT', 'token'].filter((n) => !only || n.includes(only));

const builds = [
  { name: 'this tree', main: sandboxDist().main },
  { name: rev, main: arg('other-main', undefined) ?? buildRevision(rev).main },
];

async function measure(main, workload) {
  const server = await startServer(main);
  try {
    const prep = await WORKLOADS[workload](server.url, connections);
    await cannon(server.url, { requests: prep.requests(), connections, duration: warmup });
    if (prep.between) await prep.between();
    const cpu0 = cpuMs(server.pid);
    const r = await cannon(server.url, { requests: prep.requests(), connections, duration: seconds });
    const cpu = cpuMs(server.pid) - cpu0;
    return { rps: r.rps, cpuUs: (cpu * 1000) / r.total, ok: r.rate2xx };
  } finally {
    await server.stop();
  }
}

const results = Object.fromEntries(names.map((n) => [n, builds.map(() => [])]));
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? [0, 1] : [1, 0];
  for (const workload of names) {
    for (const b of order) {
      const r = await measure(builds[b].main, workload);
      results[workload][b].push(r);
      process.stderr.write(
        `  [round ${round + 1}/${rounds}] ${workload} ${builds[b].name}: ${Math.round(r.rps)} req/s, ${r.cpuUs.toFixed(1)} CPU µs a call\n`,
      );
    }
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
console.log(
  `\nthis tree against ${rev} (${builds[1].main}), node ${process.version}, ${cpus().length} CPUs, ` +
    `${rounds} interleaved rounds of ${seconds} s after ${warmup} s warm-up, c=${connections}; medians\n`,
);
console.log(
  '| workload | CPU µs a call, this tree | CPU µs a call, other | CPU ratio | req/s, this tree | req/s, other | req/s ratio | 2xx |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
let failed = false;
for (const workload of names) {
  const [mine, theirs] = results[workload];
  // per round, this tree over the other: the ratio of two runs minutes apart, then its median
  const cpuRatio = median(mine.map((m, i) => m.cpuUs / theirs[i].cpuUs));
  const rpsRatio = median(mine.map((m, i) => m.rps / theirs[i].rps));
  const ok = Math.min(...mine.map((m) => m.ok), ...theirs.map((t) => t.ok));
  const gated = workload === gate;
  const over = gated && cpuRatio > 1 + maxSlowdown;
  if (over) failed = true;
  console.log(
    `| ${workload}${gated ? ` (gate: CPU ratio <= ${(1 + maxSlowdown).toFixed(2)})` : ''} | ${median(mine.map((m) => m.cpuUs)).toFixed(1)} | ${median(theirs.map((t) => t.cpuUs)).toFixed(1)} | ` +
      `**${cpuRatio.toFixed(3)}**${over ? ' FAIL' : ''} | ${Math.round(median(mine.map((m) => m.rps)))} | ${Math.round(median(theirs.map((t) => t.rps)))} | ${rpsRatio.toFixed(3)} | ${(ok * 100).toFixed(1)}% |`,
  );
}
if (failed) {
  console.log(`\n${gate}: more than ${Math.round(maxSlowdown * 100)} % more CPU a call than ${rev}`);
  process.exitCode = 1;
}
