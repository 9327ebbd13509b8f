#!/usr/bin/env node
// The export of the largest partner (SANDBOX.md section 13: "exporting the largest holds others
// at most 100 ms"): the production build, the demo partner filled through the API near its
// room (26 MiB: controls lists of 900 long domains on new accounts until a write is refused
// with 403 partner_storage_full), then GET /__sandbox/partners/pa_demo_platform/bundle, a few
// times apart, while a probe partner (made on the control plane, with an account) sends
// controls GETs back to back (c=1). Prints the probe's latency alone, then for each export its
// duration, size and the probe's longest wait, against 100 ms. The export is read by another
// process, so that reading it does not delay the probe in this one.
//
// Inside the sandbox (bench/loop-turns.mjs, loaded with --import): during each export, the
// longest the event loop went without coming back to its timers (its longest synchronous
// stretch, which holds every other call), in wall time and in the main thread's CPU time
// (which a loaded machine does not stretch), and the GC pauses.
//
// Usage: npm run build && node bench/hosted-export.mjs [--repeat=3] [--most=200] [--rev=REV]
// (--rev: that git revision built beside the tree (bench/revision.mjs) and measured instead.)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  arg,
  CONTROLS,
  controlsHash,
  freshKey,
  getToken,
  numberArg,
  partnerWithToken,
  REGISTER,
  registerAccount,
  registerBody,
  root,
  rssMiB,
  startSandbox,
  startServer,
} from './lib.mjs';
import { holdsTable, startProbe } from './probe.mjs';
import { buildRevision } from './revision.mjs';

const repeat = numberArg('repeat', 3);

/**
 * GET `url` read whole by another process (a Response-like answer: status, its bytes): the 27 MB
 * answer's reading would otherwise take this process's turns and delay the probe's own calls,
 * which would count as the server holding them. Its duration includes the process's start.
 */
const fetchInChild = (url) =>
  new Promise((resolve, reject) => {
    const code = `const r = await fetch(${JSON.stringify(url)}); const b = await r.arrayBuffer(); process.stdout.write(JSON.stringify({ status: r.status, bytes: b.byteLength }));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.once('error', reject);
    child.once('exit', () => {
      try {
        const { status, bytes } = JSON.parse(out);
        resolve({ status, arrayBuffer: async () => ({ byteLength: bytes }) });
      } catch (e) {
        reject(e);
      }
    });
  });
const most = numberArg('most', 200);

/** A controls list of 900 domains of 240 characters (about 230 KB, under the 256 KB body limit). */
const fatList = (hash, tag) =>
  JSON.stringify({
    blockedVerticals: [{ partnerVerticalId: 10, partnerSubVerticalId: 1001 }],
    domains: Array.from({ length: 900 }, (_, i) => ({
      domain: `${`${tag}n${i}`.padEnd(60, 'x')}.${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(50)}.example`,
      policy: 'Block',
    })),
    contentHash: hash,
  });

// BENCH_NODE_ARGS: flags for the sandbox process (--cpu-prof, a preload; bench/lib.mjs adds them).
const turnsDir = mkdtempSync(join(tmpdir(), 'sandbox-turns-'));
const turnsOut = join(turnsDir, 'turns.json');
const rev = arg('rev', '');
const sb = await (rev ? (opts) => startServer(buildRevision(rev).main, opts) : startSandbox)({
  nodeArgs: ['--import', './bench/loop-turns.mjs'],
  env: { BENCH_TURNS_OUT: turnsOut },
});
/** Each export's [start, end], epoch ms (the sandbox's turns file is in the same clock). */
const windows = [];
const epochNow = () => performance.timeOrigin + performance.now();
try {
  // The largest partner: the demo, filled until a write is refused (its room is full).
  const t0 = performance.now();
  const token = await getToken(sb.url);
  let writes = 0;
  let refused;
  for (; writes < most && !refused; writes++) {
    const id = await registerAccount(sb.url, token, `export-${writes}`);
    const hash = await controlsHash(sb.url, token, id);
    const res = await fetch(sb.url + CONTROLS(id), {
      method: 'PUT',
      headers: {
        Authorization: `Bearer ${token}`,
        'X-Platform-Parent-Account-Id': 'pa_demo_platform',
        'Content-Type': 'application/json',
        'Idempotency-Key': freshKey(),
      },
      body: fatList(hash, `w${writes}`),
    });
    const text = await res.text();
    if (res.status === 403) refused = JSON.parse(text).error;
    else if (res.status !== 200) throw new Error(`controls PUT: ${res.status} ${text.slice(0, 300)}`);
  }
  if (!refused) throw new Error(`the demo partner was not full after ${most} writes`);
  const setupS = (performance.now() - t0) / 1000;

  // The probe partner: its own mapping and account, controls GETs back to back.
  const taxonomy = JSON.parse(readFileSync(join(root, 'fixtures', 'taxonomy.json'), 'utf8'));
  const mapping = taxonomy.verticals.flatMap((v) =>
    v.sub_verticals.map((s) => ({
      partner_vertical_id: v.partner_vertical_id,
      partner_vertical_name: v.partner_vertical_name,
      ...s,
    })),
  );
  const probe = await partnerWithToken(sb.url, 'pa_export_probe');
  const seeded = await fetch(`${sb.url}/__sandbox/partners/${probe.parent}/vertical-mappings`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ vertical_mappings: mapping }),
  });
  if (seeded.status !== 200) throw new Error(`probe mapping: ${seeded.status}`);
  const reg = await fetch(sb.url + REGISTER, {
    method: 'POST',
    headers: { ...probe.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...JSON.parse(registerBody('probe')), platform_parent_account_id: probe.parent }),
  });
  const probeAccount = (await reg.json()).data.account_id;
  const prober = startProbe(async () => {
    const res = await fetch(sb.url + CONTROLS(probeAccount), { headers: probe.headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`probe: ${res.status}`);
  });
  const alone = await prober.alone();
  process.stderr.write(`exporting from ${new Date().toISOString()}\n`);
  const holds = {
    'GET /__sandbox/partners/pa_demo_platform/bundle (the largest)': await prober.hold(async () => {
      const from = epochNow();
      const res = await fetchInChild(`${sb.url}/__sandbox/partners/pa_demo_platform/bundle`);
      windows.push([from, epochNow()]);
      return res;
    }, repeat),
  };
  await prober.stop();
  console.log(
    `\nexport of the largest partner, node ${process.version}, ${new Date().toISOString()}: ` +
      `filled by ${writes} writes in ${setupS.toFixed(0)} s (refused: ${refused.code}, ` +
      `${(refused.details.used_bytes / 2 ** 20).toFixed(1)} MiB of ${(refused.details.limit_bytes / 2 ** 20).toFixed(0)}), ` +
      `RSS ${rssMiB(sb.pid).toFixed(0)} MiB; the probe's controls GET alone: ${alone.calls} calls, ` +
      `p50 ${alone.p50_ms.toFixed(1)} ms, max ${alone.max_ms.toFixed(1)} ms\n`,
  );
  console.log(holdsTable(holds));
} finally {
  await sb.stop();
}
try {
  const { gaps, gcs } = JSON.parse(readFileSync(turnsOut, 'utf8'));
  const lines = [
    '\n| export | longest loop iteration in the sandbox, wall ms | the longest by CPU time, main thread ms | GC pauses (longest, ms, kind) |',
    '| --- | --- | --- | --- |',
  ];
  windows.forEach(([from, to], i) => {
    const inside = ([at]) => at >= from && at <= to;
    const gap = Math.max(0, ...gaps.filter(inside).map(([, ms]) => ms));
    const cpu = Math.max(0, ...gaps.filter(inside).map(([, , ms]) => ms));
    const pauses = gcs.filter(inside);
    const longest = pauses.reduce((a, p) => (p[1] > (a?.[1] ?? -1) ? p : a), undefined);
    const kinds = { 1: 'minor', 2: 'minor mark-sweep', 4: 'major', 8: 'incremental', 16: 'weak callbacks' };
    lines.push(
      `| ${i + 1} | ${gap.toFixed(1)} | **${cpu.toFixed(1)}** | ${pauses.length} (${longest ? `${longest[1].toFixed(1)}, ${kinds[longest[2]] ?? longest[2]}` : '-'}) |`,
    );
  });
  console.log(lines.join('\n'));
} finally {
  rmSync(turnsDir, { recursive: true, force: true });
}
