#!/usr/bin/env node
// A workload's CPU profile, self time per call by function: the sandbox (this tree's build, or
// --main=OTHER/dist/main.js) runs under `node --cpu-prof`, takes --warmup calls, then --calls
// calls at c=1 (autocannon), and is stopped; the profile of the whole process is read and each
// function's self time (the samples of the measured window only) divided by the calls.
//   npm run build && node bench/cpu-profile.mjs [--workload='controls GET'] [--calls=20000]
//     [--warmup=20000] [--top=30] [--main=...] [--partners=1]
// A loaded machine stretches every sample alike, so compare shares and the order of functions
// more than absolute microseconds; bench/instructions.mjs gives counts that repeat.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg, cannon, numberArg, sandboxDist, startServer } from './lib.mjs';
import { hostedMix, WORKLOADS } from './workloads.mjs';

const workload = arg('workload', 'controls GET');
const calls = numberArg('calls', 20000);
const warmup = numberArg('warmup', 20000);
const top = numberArg('top', 30);
const partners = numberArg('partners', 1);
const main = arg('main', sandboxDist().main);
const prepare = workload === 'hosted mix' ? (url, c) => hostedMix(url, c, partners) : WORKLOADS[workload];
if (!prepare) throw new Error(`unknown workload ${workload}`);

const dir = mkdtempSync(join(tmpdir(), 'sandbox-cpu-prof-'));
const sb = await startServer(main, {
  nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=100'],
});
let window;
try {
  const prep = await prepare(sb.url, 1);
  if (warmup > 0) await cannon(sb.url, { requests: prep.requests(), connections: 1, amount: warmup });
  if (prep.between) await prep.between();
  const requests = prep.requests();
  const t0 = Date.now();
  const r = await cannon(sb.url, { requests, connections: 1, amount: calls });
  window = { from: t0, to: Date.now(), calls: r.total };
} finally {
  await sb.stop();
}

const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
rmSync(dir, { recursive: true, force: true });

// Samples are in µs from profile.startTime (µs of a monotonic clock): keep the last
// (window length) of samples before the process was stopped, less the stop itself.
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const times = [];
let t = profile.startTime;
for (const d of profile.timeDeltas) {
  t += d;
  times.push(t);
}
const windowUs = (window.to - window.from) * 1000;
// the window ends where the samples of the load end: the last sample that is not idle
let end = times.length - 1;
while (end > 0 && ['(idle)', '(program)'].includes(nodes.get(profile.samples[end]).callFrame.functionName))
  end--;
const start = times[end] - windowUs;
const self = new Map();
let total = 0;
for (let i = 0; i < profile.samples.length; i++) {
  if (times[i] < start || times[i] > times[end]) continue;
  const node = nodes.get(profile.samples[i]);
  const f = node.callFrame;
  if (f.functionName === '(idle)') continue;
  const dt = i + 1 < times.length ? times[i + 1] - times[i] : 0;
  const where = f.url ? `${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'} ${where}`;
  self.set(key, (self.get(key) ?? 0) + dt);
  total += dt;
}
console.log(
  `\n${workload}: CPU self time a call (µs), ${window.calls} calls at c=1 after ${warmup}; busy ${(total / window.calls).toFixed(2)} µs a call\n`,
);
console.log('| function | µs a call | share |');
console.log('| --- | --- | --- |');
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`| ${key} | ${(us / window.calls).toFixed(3)} | ${((us / total) * 100).toFixed(1)}% |`);
