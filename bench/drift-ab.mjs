#!/usr/bin/env node
// record's CPU per exchange, build against build, side by side (docs/performance.md,
// "Recordings and drift"): on a shared machine req/s swing from one run to the next, so builds
// are compared in the same rounds, against the same sandbox and the same 50 accounts, each
// beside the bare Node.js proxy (bench/baselines/node-proxy.mjs).
//   npm run build && node bench/drift-ab.mjs [--seconds=4] [--rounds=3] [OTHER_MAIN ...]
// OTHER_MAIN: the bin (dist/main.js) of another built checkout, e.g. of the previous commit:
//   git worktree add /tmp/prev HEAD~1 && cd /tmp/prev && npm ci && npm run build
//   node bench/drift-ab.mjs /tmp/prev/dist/main.js
// Each round: the sandbox direct at c=50, then each proxy at c=50 (1 s warm-up, then the
// measured run): req/s, its ratio to that round's direct req/s, and the proxy process's CPU
// time (user + system) per request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cannon,
  controlsGetRequest,
  cpuMs,
  getToken,
  makeAccounts,
  numberArg,
  root,
  sandboxDist,
  startRecord,
  startSandbox,
  startServer,
} from './lib.mjs';

const seconds = numberArg('seconds', 4);
const rounds = numberArg('rounds', 3);
const others = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const dir = mkdtempSync(join(tmpdir(), 'bench-drift-ab-'));
const sandbox = await startSandbox();

const proxy = (name, server) => ({
  name,
  child: server.child,
  url: server.url,
  stop: server.stop,
  cpu: [],
  rps: [],
});
const proxies = [
  proxy(
    'bare Node proxy',
    await startServer(join(root, 'bench/baselines/node-proxy.mjs'), { args: [sandbox.url] }),
  ),
  proxy('record (this build)', await startRecord(sandboxDist().main, sandbox.url, join(dir, '0.har'))),
];
for (const [i, main] of others.entries()) {
  proxies.push(proxy(`record (${main})`, await startRecord(main, sandbox.url, join(dir, `${i + 1}.har`))));
}

const token = await getToken(sandbox.url);
const accounts = await makeAccounts(sandbox.url, token, 50);
const requests = [controlsGetRequest({ token }, accounts)];
const direct = [];
for (let r = 0; r < rounds; r++) {
  const d = await cannon(sandbox.url, { requests, connections: 50, duration: seconds });
  direct.push(d.rps);
  for (const p of proxies) {
    await cannon(p.url, { requests, connections: 50, duration: 1 });
    const before = cpuMs(p.child.pid);
    const x = await cannon(p.url, { requests, connections: 50, duration: seconds });
    p.cpu.push((((cpuMs(p.child.pid) - before) * 1000) / x.total).toFixed(1));
    p.rps.push(`${x.rps.toFixed(0)} (${(x.rps / d.rps).toFixed(2)})${x.rate2xx === 1 ? '' : ' not all 2xx'}`);
  }
}
console.log(
  `\nc=50, controls GET, ${rounds} rounds of ${seconds} s; direct req/s: ${direct.map((x) => x.toFixed(0)).join(', ')}\n`,
);
console.log('| proxy | CPU µs/req, each round | req/s (/ direct), each round |');
console.log('| --- | --- | --- |');
for (const p of proxies) console.log(`| ${p.name} | ${p.cpu.join(', ')} | ${p.rps.join(', ')} |`);
for (const p of proxies) await p.stop();
await sandbox.stop();
rmSync(dir, { recursive: true, force: true });
