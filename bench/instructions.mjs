#!/usr/bin/env node
// Instructions per call under callgrind: a count that repeats on a shared, loaded machine where
// req/s and even CPU time do not (docs/performance.md, "Instructions per call").
//   npm run build && node bench/instructions.mjs [--workload='controls GET'] [--calls=2000]
//     [--warmup=20000] [--partners=1] [--connections=1] [--rev=REV ...] [--main=OTHER/dist/main.js ...]
//     [--ceiling] [--insert-ceiling] [--cache-sim]
// The bin (this tree's dist/main.js, then each --rev built beside it by bench/revision.mjs, then
// each --main) runs under `valgrind --tool=callgrind --instr-atstart=no` with V8 on one thread
// (--single-threaded) and fixed seeds; the load (autocannon, --connections, outside valgrind)
// warms it up with `--warmup` calls, then `callgrind_control -i on` counts the next `--calls`
// calls, and `callgrind_control -d` dumps the count. Printed: instructions per call, and the
// ratio to the first bin. Workloads: bench/workloads.mjs ('hosted mix' takes --partners).
// Needs valgrind (callgrind_control). Slow: about a minute a bin for a warm-up of 20,000.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg, cannon, freePort, numberArg, root, sandboxDist, sleep } from './lib.mjs';
import { buildRevision } from './revision.mjs';
import { hostedMix, insertCeiling, WORKLOADS } from './workloads.mjs';

const workload = arg('workload', 'controls GET');
const calls = numberArg('calls', 2000);
const warmup = numberArg('warmup', 20000);
const partners = numberArg('partners', 1);
const connections = numberArg('connections', 1);
// --cache-sim: callgrind simulates the caches too, and each bin gets an estimated cycle count
// (callgrind's own weights: Ir + 10 × L1 misses + 100 × last-level misses), which sees what
// a large heap or young generation costs in memory traffic where the instruction count does not.
const cacheSim = process.argv.includes('--cache-sim');
const many = (name) =>
  process.argv.filter((a) => a.startsWith(`--${name}=`)).map((a) => a.slice(name.length + 3));

const prepare = workload === 'hosted mix' ? (url, c) => hostedMix(url, c, partners) : WORKLOADS[workload];
if (!prepare)
  throw new Error(`unknown workload ${workload}: ${Object.keys(WORKLOADS).join(', ')}, hosted mix`);

// --this=no: the other bins only (two runs side by side, one bin each)
const bins = arg('this', 'yes') === 'no' ? [] : [{ name: 'this tree', main: sandboxDist().main }];
for (const rev of many('rev')) bins.push({ name: rev, main: buildRevision(rev).main });
for (const main of many('main')) bins.push({ name: main, main });
// --ceiling: the constant-JSON Hono server `npm run bench` compares reads with (same bytes)
if (process.argv.includes('--ceiling'))
  bins.push({
    name: 'ceiling: constant JSON',
    main: 'bench/baselines/constant-json.mjs',
    health: '/health',
    prepare: async () => ({ requests: () => [{ method: 'GET', path: '/json' }] }),
  });

// --insert-ceiling: the zod + SQLite insert Hono server `npm run bench` compares writes with
if (process.argv.includes('--insert-ceiling'))
  bins.push({
    name: 'ceiling: zod + SQLite insert',
    main: 'bench/baselines/zod-sqlite-insert.mjs',
    health: '/health',
    prepare: insertCeiling,
  });

const out = mkdtempSync(join(tmpdir(), 'sandbox-callgrind-'));
process.once('exit', () => {
  if (process.env.BENCH_KEEP_CALLGRIND) process.stderr.write(`callgrind files kept in ${out}\n`);
  else rmSync(out, { recursive: true, force: true });
});

/** The sandbox under callgrind, instrumentation off; resolves once healthy. */
async function underCallgrind(main, tag, health = '/__sandbox/health') {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', SANDBOX_LOG: 'silent' };
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--smc-check=all-non-file',
      ...(cacheSim ? ['--cache-sim=yes'] : []),
      `--callgrind-out-file=${join(out, `${tag}.%p`)}`,
      process.execPath,
      '--single-threaded',
      '--hash-seed=41',
      '--random-seed=41',
      main,
    ],
    {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  for (;;) {
    if (exited) throw new Error(`sandbox under valgrind exited: ${stderr.slice(-2000)}`);
    try {
      const res = await fetch(url + health);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not yet
    }
    if (Date.now() - t0 > 300_000) throw new Error('no healthy answer under valgrind within 300 s');
    await sleep(200);
  }
  // vgdb finds the process by a file named after its USER and HOST: the same environment.
  const control = (...args) =>
    execFileSync('callgrind_control', [...args, String(child.pid)], { env, stdio: 'ignore' });
  return {
    url,
    pid: child.pid,
    control,
    stop: () =>
      new Promise((resolve) => {
        if (exited) return resolve();
        child.once('exit', resolve);
        child.kill('SIGKILL');
      }),
  };
}

/**
 * The instructions counted in the dump files of one process, and those of V8's garbage
 * collections among them (inclusive cost of Heap::CollectGarbage, by callgrind_annotate): a
 * major collection falls in one window and not in another, so the rest repeats better.
 */
function dumpedInstructions(tag, pid) {
  let total = 0;
  let gc = 0;
  let cycles = 0;
  for (const f of readdirSync(out)) {
    if (!f.startsWith(`${tag}.${pid}.`)) continue;
    const text = readFileSync(join(out, f), 'utf8');
    const m = /^totals:\s+(\d+)/m.exec(text);
    if (m) total += Number(m[1]);
    const events = /^events:\s+(.*)$/m.exec(text)?.[1].trim().split(/\s+/);
    const totals = /^totals:\s+(.*)$/m.exec(text)?.[1].trim().split(/\s+/).map(Number);
    if (events && totals) {
      const of = (name) => totals[events.indexOf(name)] ?? 0;
      cycles +=
        of('Ir') + 10 * (of('I1mr') + of('D1mr') + of('D1mw')) + 100 * (of('ILmr') + of('DLmr') + of('DLmw'));
    }
    const annotated = execFileSync(
      'callgrind_annotate',
      ['--inclusive=yes', '--threshold=100', join(out, f)],
      {
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      },
    );
    const line = annotated.split('\n').find((l) => /v8::internal::Heap::CollectGarbage\(/.test(l));
    if (line) gc += Number(line.trim().split(/\s+/)[0].replaceAll(',', ''));
  }
  return { total, gc, cycles };
}

const rows = [];
for (const [i, bin] of bins.entries()) {
  const tag = `bin${i}`;
  process.stderr.write(`${bin.name}: starting under callgrind ...`);
  const sb = await underCallgrind(bin.main, tag, bin.health);
  try {
    const prep = await (bin.prepare ?? prepare)(sb.url, connections);
    process.stderr.write(` warm-up of ${warmup} calls ...`);
    if (warmup > 0) await cannon(sb.url, { requests: prep.requests(), connections, amount: warmup });
    if (prep.between) await prep.between();
    const requests = prep.requests();
    process.stderr.write(` counting ${calls} calls ...`);
    sb.control('-i', 'on');
    const r = await cannon(sb.url, { requests, connections, amount: calls });
    sb.control('-d');
    const { total, gc, cycles } = dumpedInstructions(tag, sb.pid);
    const perCall = total / r.total;
    const gcPerCall = gc / r.total;
    const cyclesPerCall = cycles / r.total;
    process.stderr.write(
      ` ${Math.round(perCall)} a call (${Math.round(gcPerCall)} in GC)${cacheSim ? `, ${Math.round(cyclesPerCall)} estimated cycles` : ''}\n`,
    );
    rows.push({ bin: bin.name, calls: r.total, rate2xx: r.rate2xx, perCall, gcPerCall, cyclesPerCall });
  } finally {
    await sb.stop();
  }
}

console.log(
  `\n${workload}${workload === 'hosted mix' ? ` (${partners} partners)` : ''}: instructions a call under callgrind, ` +
    `${calls} calls counted after ${warmup} at c=${connections} (node ${process.version}, --single-threaded)\n`,
);
const n = (x) => Math.round(x).toLocaleString('en-US');
const outside = (r) => r.perCall - r.gcPerCall;
const cyclesCols = cacheSim ? ' estimated cycles a call | cycles vs first |' : '';
console.log(
  `| bin | calls | 2xx | instructions a call | of which GC | outside GC | vs first | outside GC vs first |${cyclesCols}`,
);
console.log(`| --- | --- | --- | --- | --- | --- | --- | --- |${cacheSim ? ' --- | --- |' : ''}`);
for (const r of rows)
  console.log(
    `| ${r.bin} | ${r.calls} | ${(r.rate2xx * 100).toFixed(1)}% | ${n(r.perCall)} | ${n(r.gcPerCall)} | ${n(outside(r))} | ` +
      `${(r.perCall / rows[0].perCall).toFixed(3)} | ${(outside(r) / outside(rows[0])).toFixed(3)} |` +
      (cacheSim ? ` ${n(r.cyclesPerCall)} | ${(r.cyclesPerCall / rows[0].cyclesPerCall).toFixed(3)} |` : ''),
  );
