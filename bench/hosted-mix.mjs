#!/usr/bin/env node
// A hosted sandbox's mix of calls (bench/workloads.mjs HOSTED_MIX: token 5 %, register 10,
// controls GET 45, controls PUT with a key 25, status PUT with a key 15), spread over 1 and over
// 10,000 partners, each call's partner and kind drawn from a seeded sequence: the server's CPU
// time a call (user + system, /proc/<pid>/stat, over the measured run), its req/s, p99.
//   npm run build && node bench/hosted-mix.mjs [--partners=1,10000] [--seconds=10]
//     [--warmup=3] [--connections=10] [--main=OTHER/dist/main.js]
// Each count of partners gets a fresh sandbox (in-memory store), its partners made on the
// control plane, each with a token and an account, before the warm-up.
import { cpus } from 'node:os';
import { arg, cannon, cpuMs, numberArg, rssMiB, sandboxDist, startServer } from './lib.mjs';
import { HOSTED_MIX, hostedMix } from './workloads.mjs';

const counts = arg('partners', '1,10000').split(',').map(Number);
const seconds = numberArg('seconds', 10);
const warmup = numberArg('warmup', 3);
const connections = numberArg('connections', 10);
const main = arg('main', sandboxDist().main);

const rows = [];
for (const partners of counts) {
  const server = await startServer(main);
  try {
    const t0 = Date.now();
    const prep = await hostedMix(server.url, connections, partners);
    const setupS = (Date.now() - t0) / 1000;
    await cannon(server.url, { requests: prep.requests(), connections, duration: warmup });
    await prep.between();
    const cpu0 = cpuMs(server.pid);
    const r = await cannon(server.url, { requests: prep.requests(), connections, duration: seconds });
    const cpu = cpuMs(server.pid) - cpu0;
    rows.push({
      partners,
      setupS,
      rps: r.rps,
      p99: r.p99,
      ok: r.rate2xx,
      calls: r.total,
      cpuUs: (cpu * 1000) / r.total,
      rss: rssMiB(server.pid),
      codes: r.statusCodes,
    });
    process.stderr.write(`  ${partners} partners: ${((cpu * 1000) / r.total).toFixed(1)} CPU µs a call\n`);
  } finally {
    await server.stop();
  }
}

console.log(
  `\nhosted mix (${HOSTED_MIX.map(([n, w]) => `${n} ${w} %`).join(', ')}), node ${process.version}, ` +
    `${cpus().length} CPUs, c=${connections}, ${seconds} s after ${warmup} s warm-up\n`,
);
console.log('| partners | CPU µs a call | req/s | p99 ms | 2xx | calls | RSS after, MiB | set-up s |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows)
  console.log(
    `| ${r.partners.toLocaleString('en-US')} | **${r.cpuUs.toFixed(1)}** | ${Math.round(r.rps)} | ${r.p99.toFixed(1)} | ${(r.ok * 100).toFixed(1)}% | ${r.calls} | ${r.rss.toFixed(1)} | ${r.setupS.toFixed(1)} |`,
  );
for (const r of rows)
  if (r.ok < 0.99) console.log(`${r.partners} partners: status codes ${JSON.stringify(r.codes)}`);
