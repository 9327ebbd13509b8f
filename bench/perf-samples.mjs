#!/usr/bin/env node
// Where a workload's CPU goes, by Linux `perf` samples (the kernel's and Node's native code
// included, which `--cpu-prof` misattributes), at any concurrency: the server (this tree's
// build, --main=OTHER/dist/main.js, or --ceiling: bench/baselines/constant-json.mjs) runs
// with `--perf-basic-prof` (JIT code named), takes --warmup calls at --connections, then
// `perf record -p PID` samples the next --calls calls. Printed: the server's user and system
// CPU a call (/proc/PID/stat over the window), and the top symbols by self samples, as a
// share of the window's samples and as µs a call.
//   npm run build && node bench/perf-samples.mjs [--workload='controls GET'] [--connections=1]
//     [--calls=20000] [--warmup=20000] [--top=40] [--ceiling] [--main=...] [--node-args='...']
// Needs `perf` and permission to sample the process (root, or perf_event_paranoid <= 1).
// On a loaded machine the µs stretch; the shares and the order of symbols hold better.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  arg,
  authHeaders,
  CONTROLS,
  cannon,
  getToken,
  makeAccounts,
  numberArg,
  root,
  sandboxDist,
  sleep,
  startServer,
} from './lib.mjs';
import { WORKLOADS } from './workloads.mjs';

const workload = arg('workload', 'controls GET');
const connections = numberArg('connections', 1);
const calls = numberArg('calls', 20000);
const warmup = numberArg('warmup', 20000);
const top = numberArg('top', 40);
const ceiling = process.argv.includes('--ceiling');
const main = arg('main', sandboxDist().main);
const nodeArgs = ['--perf-basic-prof', ...arg('node-args', '').split(' ').filter(Boolean)];

/** user and system CPU time of a process in ms (USER_HZ = 100). */
function cpu(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]) * 10, sys: Number(f[12]) * 10 };
}

/** As `npm run bench` (bench/run.mjs): one account per connection, at least 10. */
async function controlsGets(url, c) {
  const token = await getToken(url);
  const accounts = await makeAccounts(url, token, Math.max(c, 10));
  const reqs = accounts.map((a) => ({ method: 'GET', path: CONTROLS(a.id), headers: authHeaders(token) }));
  return { requests: () => reqs };
}

const sb = ceiling
  ? await startServer('bench/baselines/constant-json.mjs', { readyPath: '/health', nodeArgs })
  : await startServer(main, { nodeArgs });
const dir = mkdtempSync(join(tmpdir(), 'sandbox-perf-'));
const data = join(dir, 'perf.data');
let window;
try {
  const prep = ceiling
    ? { requests: () => [{ method: 'GET', path: '/json' }] }
    : workload === 'controls GET'
      ? await controlsGets(sb.url, connections)
      : await WORKLOADS[workload](sb.url, connections);
  if (warmup > 0) await cannon(sb.url, { requests: prep.requests(), connections, amount: warmup });
  if (prep.between) await prep.between();
  const requests = prep.requests();
  const rec = spawn('perf', ['record', '-F', '2999', '-g', '-p', String(sb.pid), '-o', data], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await sleep(500);
  const c0 = cpu(sb.pid);
  const r = await cannon(sb.url, { requests, connections, amount: calls });
  const c1 = cpu(sb.pid);
  rec.kill('SIGINT');
  await new Promise((resolve) => rec.once('exit', resolve));
  window = { calls: r.total, rate2xx: r.rate2xx, user: c1.user - c0.user, sys: c1.sys - c0.sys };
} finally {
  await sb.stop();
}

const perfReport = (...args) =>
  execFileSync('perf', ['report', '-i', data, '--stdio', '--no-children', '-g', 'none', ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
const report = perfReport('--sort', 'dso,sym', '--percent-limit', '0.3');
const threads = perfReport('--sort', 'comm', '--percent-limit', '0.5');
const bySym = perfReport('--sort', 'sym', '--percent-limit', '0');
rmSync(dir, { recursive: true, force: true });
// what --perf-basic-prof leaves behind: the JIT map, and V8's log in the working directory
rmSync(`/tmp/perf-${sb.pid}.map`, { force: true });
for (const f of readdirSync(root))
  if (f.startsWith('isolate-') && f.includes(`-${sb.pid}-`)) rmSync(join(root, f));
const perCall = (ms) => ((ms * 1000) / window.calls).toFixed(1);
console.log(
  `\n${ceiling ? 'ceiling: constant JSON' : workload}, c=${connections}: ${window.calls} calls after ${warmup} ` +
    `(${(window.rate2xx * 100).toFixed(1)}% 2xx), node ${process.version}; CPU a call: ` +
    `${perCall(window.user)} µs user + ${perCall(window.sys)} µs sys = ${perCall(window.user + window.sys)} µs\n`,
);
const busyUs = ((window.user + window.sys) * 1000) / window.calls;
// Kinds of work, from the symbol names: what V8's collector, its compiler, the kernel took.
const kinds = [
  ['kernel', /\[k\]/],
  [
    'GC (V8 heap)',
    /v8::internal::(Scavenger|Heap|MarkCompact|Mark|Sweep|Concurrent|MemoryChunk|PagedSpace|Evacuat|Minor|GC|Young|LargeObject|MemoryAllocator)|Builtins_RecordWrite/,
  ],
  ['V8 compiler', /v8::internal::(compiler|maglev|baseline|Compiler|Turbofan|Maglev)/],
];
const kindShare = new Map(kinds.map(([k]) => [k, 0]));
for (const line of bySym.split('\n')) {
  const m = /^\s+([\d.]+)%\s+(\[[.k]\]\s+.*)$/.exec(line);
  if (!m) continue;
  for (const [k, re] of kinds)
    if (re.test(m[2])) {
      kindShare.set(k, kindShare.get(k) + Number(m[1]));
      break;
    }
}
console.log(
  `kinds: ${[...kindShare].map(([k, v]) => `${k} ${v.toFixed(1)}% (${((v / 100) * busyUs).toFixed(1)} µs)`).join(', ')}`,
);
console.log(
  `threads: ${threads
    .split('\n')
    .map((l) => /^\s+([\d.]+)%\s+(.*)$/.exec(l))
    .filter(Boolean)
    .map((m) => `${m[2].trim()} ${m[1]}%`)
    .join(', ')}\n`,
);
console.log('| share of samples | µs a call | where | symbol |');
console.log('| --- | --- | --- | --- |');
let shown = 0;
for (const line of report.split('\n')) {
  const m = /^\s+([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)$/.exec(line);
  if (!m || shown++ >= top) continue;
  const share = Number(m[1]);
  console.log(
    `| ${share.toFixed(1)}% | ${((share / 100) * busyUs).toFixed(1)} | ${m[2]} | ${m[3].trim().slice(0, 110)} |`,
  );
}
