#!/usr/bin/env node
// Two or more ways of running the same build, side by side under the hosted mix: each variant
// is a server of its own (its own environment and node flags), given the same partners
// (bench/workloads.mjs hostedMix), warmed up, then measured in alternating runs (the order
// reversed every round), so that a loaded machine's minutes fall on every variant alike. Printed:
// each variant's CPU µs a call (user + system of the server, all its threads, /proc/<pid>/stat)
// over all its runs, and its ratio to the first variant's.
//   npm run build && node bench/hosted-ab.mjs [--partners=10000 | --partners=1,100,1000,10000] [--rounds=6]
//     [--run=2] [--only=KIND]
//     [--variant='NAME:ENV=value,ENV=value' ...] [--variant='NAME:--node-flag' ...]
// Without --variant: the server as `node dist/main.js` starts it, against the same with malloc's
// memory in transparent huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), which made no
// difference (docs/performance.md, "A hosted cell's memory").
// With several counts of partners: a server for each count (this build, plain), measured in the
// same turns, so the hosted mix's rows share the machine's minutes (in bench/hosted-mix.mjs each
// row has minutes of its own, and on 2026-12-07 the first row measured read about half the
// others' req/s, whichever count it was).
import { arg, cannon, cpuMs, numberArg, sandboxDist, startServer } from './lib.mjs';
import { hostedMix, MIX_WRITES_BUDGET } from './workloads.mjs';

/** One count, or several (`--partners=1,10000`): then a server for each count, no variants. */
const counts = arg('partners', '10000').split(',').map(Number);
const partners = counts[0];
const rounds = numberArg('rounds', 6);
const runSeconds = numberArg('run', 2);
const connections = numberArg('connections', 10);
const only = arg('only', '') || undefined;

/** `NAME:ENV=value,--flag,...`: a variant's environment and node flags. */
function variant(text) {
  const [name, spec = ''] = text.split(/:(.*)/s);
  const env = {};
  const nodeArgs = [];
  for (const part of spec.split(',').filter(Boolean)) {
    if (part.startsWith('--')) nodeArgs.push(part);
    else {
      const [k, v] = part.split(/=(.*)/s);
      env[k] = v;
    }
  }
  return { name, env, nodeArgs };
}
const given = process.argv.filter((a) => a.startsWith('--variant=')).map((a) => variant(a.slice(10)));
const byCount = counts.length > 1;
const variants = byCount
  ? counts.map((n) => ({ ...variant(`${n} partners:`), partners: n }))
  : given.length > 0
    ? given
    : [variant('plain:'), variant('huge pages:GLIBC_TUNABLES=glibc.malloc.hugetlb=1')];

const servers = [];
try {
  for (const v of variants) {
    const sb = await startServer(sandboxDist().main, { env: v.env, nodeArgs: v.nodeArgs });
    servers.push({ v, sb, cpu: 0, calls: 0, seconds: 0 });
    const prep = await hostedMix(sb.url, connections, v.partners ?? partners, 41, only);
    servers.at(-1).prep = prep;
    await cannon(sb.url, { requests: prep.requests(), connections, duration: 3 });
  }
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 ? [...servers].reverse() : servers) {
      await s.prep.between?.(MIX_WRITES_BUDGET);
      const cpu0 = cpuMs(s.sb.pid);
      const res = await cannon(s.sb.url, { requests: s.prep.requests(), connections, duration: runSeconds });
      s.cpu += cpuMs(s.sb.pid) - cpu0;
      s.calls += res.total;
      s.seconds += res.durationS;
    }
  }
} finally {
  for (const s of servers) await s.sb.stop();
}
const first = (servers[0].cpu * 1000) / servers[0].calls;
const firstRate = servers[0].calls / servers[0].seconds;
console.log(
  `\n${byCount ? counts.join(', ') : partners} partners, ${only ?? 'the hosted mix'}, ${rounds} rounds of ` +
    `${runSeconds} s a server, in turns, c=${connections}, node ${process.version}\n`,
);
console.log('| server | CPU µs a call | against the first | req/s | against the first | calls |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const s of servers) {
  const us = (s.cpu * 1000) / s.calls;
  const rate = s.calls / s.seconds;
  console.log(
    `| ${s.v.name} | ${us.toFixed(1)} | ${(us / first).toFixed(3)} | ${rate.toFixed(0)} | ${(rate / firstRate).toFixed(3)} | ${s.calls} |`,
  );
}
