#!/usr/bin/env node
// Recordings and drift (docs/drift.md), on the production build:
//   npm run build && node bench/drift.mjs
// 1. record's cost: the controls GET driven by autocannon straight at a sandbox process and
//    through `partnership-sandbox record` in front of it, at c=1 and c=50, beside the constant
//    JSON ceiling (bench/baselines/constant-json.mjs, a bare Hono route) in the same run.
//    Targets: record adds at most 1 ms to the p50 at c=1; keeps at least 0.5 of direct
//    throughput at c=50. Throughput on a shared machine swings with its load from one run to
//    the next, so the CPU time (user + system, /proc) each proxy process spends per request is
//    shown beside it: that figure hardly moves with the load, and says what record's own work
//    costs over the bare proxy's.
// 2. verify of a 1,000-entry recording (made here through record: a token, then registers,
//    controls GETs and PUTs, status PUTs and GETs): wall time and peak RSS (VmHWM) of
//    `partnership-sandbox verify`. Targets: under 10 s and under 200 MB.
// Env: BENCH_SECONDS (default 10) per measured run, BENCH_WARMUP (default 2); the same as flags,
// --seconds=N and --warmup=N. --only=throughput runs only the c=50 rows of part 1 (no ceiling,
// no c=1, no verify): a quick look while working, not the documented figures.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  arg,
  authHeaders,
  benchSeconds,
  CONTROLS,
  cannon,
  controlsGetRequest,
  cpuMs,
  getToken,
  makeAccounts,
  numberArg,
  REGISTER,
  registerBody,
  root,
  STATUS,
  sandboxDist,
  startRecord,
  startSandbox,
  startServer,
} from './lib.mjs';

const seconds = benchSeconds(10);
const warmup = numberArg('warmup', process.env.BENCH_WARMUP ?? 2);
const throughputOnly = arg('only') === 'throughput';
const dir = mkdtempSync(join(tmpdir(), 'bench-drift-'));
const { main } = sandboxDist();

/**
 * The entries of a HAR file record wrote, each parsed, with its head and tail checked: record
 * writes the head on the first line, each entry on a line of its own and `]}}` on the last, and
 * a recording of this load is larger than the longest string V8 makes (512 MiB), so it cannot be
 * read and parsed whole. Throws if a line is not JSON or the head or tail is not record's.
 */
function harEntries(file) {
  const bytes = readFileSync(file);
  let start = bytes.indexOf(10) + 1;
  if (!bytes.subarray(0, start).toString().startsWith('{"log":{"version":"1.2"'))
    throw new Error(`${file}: no HAR head`);
  let n = 0;
  for (let end = bytes.indexOf(10, start); end !== -1; end = bytes.indexOf(10, start)) {
    const line = bytes.subarray(start, end).toString();
    start = end + 1;
    if (line === ']}}') {
      if (start !== bytes.length) throw new Error(`${file}: text after the tail`);
      return n;
    }
    JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line);
    n++;
  }
  throw new Error(`${file}: no HAR tail`);
}

/** A measured run; with `pid`, also that process's CPU time (user + system) per request, in µs. */
async function run(url, requests, c, pid) {
  await cannon(url, { requests, connections: c, duration: warmup });
  const before = pid ? cpuMs(pid) : 0;
  const result = await cannon(url, { requests, connections: c, duration: seconds });
  return { ...result, cpuUs: pid ? ((cpuMs(pid) - before) * 1000) / result.total : Number.NaN };
}

const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

// 1. record's cost on the controls GET
const ceiling = await startServer(join(root, 'bench/baselines/constant-json.mjs'), { readyPath: '/health' });
const sandbox = await startSandbox();
const recorder = await startRecord(main, sandbox.url, join(dir, 'load.har'));
const bare = await startServer(join(root, 'bench/baselines/node-proxy.mjs'), { args: [sandbox.url] });
const token = await getToken(sandbox.url);
const accounts = await makeAccounts(sandbox.url, token, 50);
const auth = { token };
const rows = [];
for (const c of throughputOnly ? [50] : [1, 50]) {
  const ceil = throughputOnly
    ? { rps: Number.NaN }
    : await run(`${ceiling.url}/json`, [{ method: 'GET' }], c);
  const direct = await run(sandbox.url, [controlsGetRequest(auth, accounts)], c);
  const proxied = await run(recorder.url, [controlsGetRequest(auth, accounts)], c, recorder.pid);
  const bareProxy = await run(bare.url, [controlsGetRequest(auth, accounts)], c, bare.pid);
  rows.push({ c, ceil, direct, proxied, bareProxy });
}
await recorder.stop();
const loadEntries = harEntries(join(dir, 'load.har'));
await ceiling.stop();
await bare.stop();

console.log(
  '\nrecord in front of a sandbox: controls GET (autocannon, %d s after %d s warm-up)\n',
  seconds,
  warmup,
);
console.log(
  '| c | ceiling req/s | direct req/s | via record req/s | record / direct | bare Node proxy req/s | bare proxy / direct | record CPU µs/req | bare proxy CPU µs/req | direct p50 ms | via record p50 ms | p50 added ms | all 2xx |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const { c, ceil, direct, proxied, bareProxy } of rows) {
  console.log(
    `| ${c} | ${fmt(ceil.rps, 0)} | ${fmt(direct.rps, 0)} | ${fmt(proxied.rps, 0)} | ${fmt(proxied.rps / direct.rps, 2)} | ${fmt(bareProxy.rps, 0)} | ${fmt(bareProxy.rps / direct.rps, 2)} | ${fmt(proxied.cpuUs, 0)} | ${fmt(bareProxy.cpuUs, 0)} | ${fmt(direct.p50, 2)} | ${fmt(proxied.p50, 2)} | ${fmt(proxied.p50 - direct.p50, 2)} | ${proxied.rate2xx === 1 && direct.rate2xx === 1 ? 'yes' : `no (${fmt(proxied.rate2xx * 100)}%)`} |`,
  );
}
console.log(`(the recording of that load: ${loadEntries} entries, each parsed, the file whole)`);
if (throughputOnly) {
  await sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

// 2. verify of a 1,000-entry recording
const file = join(dir, 'thousand.har');
const rec = await startRecord(main, sandbox.url, file);
let n = 0;
const call = async (method, path, body, extra = {}) => {
  n++;
  const res = await fetch(rec.url + path, {
    method,
    headers: { ...authHeaders(token2), ...extra },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return res.json();
};
let token2 = '';
{
  const res = await fetch(`${rec.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=sandbox-demo-client&client_secret=sandbox-demo-secret',
  });
  token2 = (await res.json()).access_token;
  n++;
}
let round = 0;
while (n < 1000) {
  const account = (await call('POST', REGISTER, registerBody(`bench-drift-${round++}-${Date.now()}`))).data
    .account_id;
  let hash = (await call('GET', CONTROLS(account))).data.marketplace_controls_list.content_hash;
  for (let i = 0; i < 3 && n < 1000; i++) {
    const body = {
      name: 'bench',
      blockedVerticals: [
        { partnerVerticalId: 40, partnerSubVerticalId: 4002, policy: 'Block', position1Policy: 'Block' },
      ],
      domains: [{ domain: `d${i}.example`, policy: 'Block' }],
      contentHash: hash,
    };
    hash = (await call('PUT', CONTROLS(account), body, { 'Idempotency-Key': `bench-drift-${round}-${i}` }))
      .data.marketplace_controls_list.content_hash;
  }
  if (n < 1000)
    await call('PUT', STATUS(account), { status: 'paused' }, { 'Idempotency-Key': `bench-drift-s-${round}` });
  if (n < 1000) await call('GET', STATUS(account));
  if (n < 1000) await call('GET', CONTROLS(account));
}
await rec.stop();
await sandbox.stop();
const entries = JSON.parse(readFileSync(file, 'utf8')).log.entries.length;

const t0 = performance.now();
const child = spawn(process.execPath, [main, 'verify', file], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
child.stdout.on('data', (c) => {
  out += c;
});
let peakKiB = 0;
const poll = setInterval(() => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    if (m) peakKiB = Math.max(peakKiB, Number(m[1]));
  } catch {
    // exited
  }
}, 10);
const code = await new Promise((resolve) => child.once('exit', resolve));
clearInterval(poll);
const wall = (performance.now() - t0) / 1000;
console.log('\nverify of a %d-entry recording (exit %d): %s', entries, code, out.trim().split('\n').at(-1));
console.log('| measure | figure | target |');
console.log('| --- | --- | --- |');
console.log(`| wall time (start-up, embedded sandbox, replay, compare) | ${fmt(wall, 2)} s | < 10 s |`);
console.log(`| peak RSS (VmHWM, sampled every 10 ms) | ${fmt(peakKiB / 1024)} MiB | < 200 MB |`);
rmSync(dir, { recursive: true, force: true });
