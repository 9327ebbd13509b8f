// Loaded into a sandbox with --import (bench/hosted-export.mjs): how long the event loop went
// without coming back to its timers (a tick every TICK_MS; a gap of more is one loop
// iteration's synchronous work: what held every other call), in wall time and in the main
// thread's CPU time (what the gap takes on a machine of its own: a loaded machine stretches
// the wall time, not the CPU time), and each GC pause, with their times (epoch ms), written as
// JSON to BENCH_TURNS_OUT when the process exits.
import { writeFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const TICK_MS = 2;
/** Gaps shorter than this are not kept (a loop iteration of ordinary calls). */
const KEEP_MS = 8;
const gaps = [];
const gcs = [];
const cpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};
let last = performance.now();
let lastCpu = cpuMs();
setInterval(() => {
  const now = performance.now();
  const cpu = cpuMs();
  if (now - last >= KEEP_MS) gaps.push([performance.timeOrigin + last, now - last, cpu - lastCpu]);
  last = now;
  lastCpu = cpu;
}, TICK_MS).unref();
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    gcs.push([performance.timeOrigin + e.startTime, e.duration, e.detail?.kind]);
}).observe({ entryTypes: ['gc'] });
process.once('exit', () => {
  if (process.env.BENCH_TURNS_OUT) writeFileSync(process.env.BENCH_TURNS_OUT, JSON.stringify({ gaps, gcs }));
});
