#!/usr/bin/env node
// The heap a workload leaves: the young generation's size after --warmup calls (V8 grows it
// while objects keep surviving scavenges), the bytes allocated a call (V8's sampling heap
// profiler, collected objects included, over --calls calls).
// The server (this tree's build, --main=OTHER/dist/main.js, or --ceiling:
// bench/baselines/constant-json.mjs) runs with a preload that answers SIGUSR2 through the
// inspector, outside the request path.
//   npm run build && node bench/heap-shape.mjs [--connections=1] [--calls=10000]
//     [--warmup=20000] [--ceiling] [--main=...] [--top=15]
// Counts and sizes, not times: they hold on a loaded machine.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  sandboxDist,
  sleep,
  startServer,
} from './lib.mjs';

const connections = numberArg('connections', 1);
const calls = numberArg('calls', 10000);
const warmup = numberArg('warmup', 20000);
const top = numberArg('top', 15);
const ceiling = process.argv.includes('--ceiling');
const main = arg('main', sandboxDist().main);

const dir = mkdtempSync(join(tmpdir(), 'sandbox-heap-'));
const preload = join(dir, 'preload.mjs');
// First SIGUSR2: the spaces now, and sampling starts; second: sampling stops, the profile written.
writeFileSync(
  preload,
  `import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import v8 from 'node:v8';
const s = new Session();
s.connect();
let on = false;
process.on('SIGUSR2', () => {
  if (!on) {
    on = true;
    writeFileSync(${JSON.stringify(join(dir, 'spaces.json'))}, JSON.stringify(v8.getHeapSpaceStatistics()));
    s.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  } else {
    s.post('HeapProfiler.stopSampling', (err, r) => writeFileSync(${JSON.stringify(join(dir, 'profile.json'))}, JSON.stringify(r.profile)));
  }
});
`,
);
const nodeArgs = ['--import', preload];
const sb = ceiling
  ? await startServer('bench/baselines/constant-json.mjs', { readyPath: '/health', nodeArgs })
  : await startServer(main, { nodeArgs });
const readJson = async (file) => {
  for (let i = 0; i < 600; i++) {
    try {
      return JSON.parse(readFileSync(join(dir, file), 'utf8'));
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`no ${file} from the server`);
};
let spaces;
let profile;
let r;
try {
  let requests;
  if (ceiling) requests = [{ method: 'GET', path: '/json' }];
  else {
    // as `npm run bench`: one account per connection, at least 10
    const token = await getToken(sb.url);
    const accounts = await makeAccounts(sb.url, token, Math.max(connections, 10));
    requests = accounts.map((a) => ({ method: 'GET', path: CONTROLS(a.id), headers: authHeaders(token) }));
  }
  await cannon(sb.url, { requests, connections, amount: warmup });
  sb.child.kill('SIGUSR2');
  spaces = await readJson('spaces.json');
  r = await cannon(sb.url, { requests, connections, amount: calls });
  sb.child.kill('SIGUSR2');
  profile = await readJson('profile.json');
} finally {
  await sb.stop();
  rmSync(dir, { recursive: true, force: true });
}

const self = new Map();
let total = 0;
const walk = (n) => {
  const f = n.callFrame;
  const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
  total += n.selfSize;
  self.set(key, (self.get(key) ?? 0) + n.selfSize);
  for (const child of n.children) walk(child);
};
walk(profile.head);
const mib = (b) => (b / 1048576).toFixed(1);
const space = (name) => spaces.find((s) => s.space_name === name);
console.log(
  `\n${ceiling ? 'ceiling: constant JSON' : 'controls GET'}, c=${connections}, node ${process.version}: after ${warmup} calls, ` +
    `new space ${mib(space('new_space').space_size)} MiB, old space ${mib(space('old_space').space_used_size)} MiB used; ` +
    `over ${r.total} calls: ${Math.round(total / r.total)} bytes allocated a call (sampled)\n`,
);
console.log('| bytes a call | allocated by |');
console.log('| --- | --- |');
for (const [key, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`| ${Math.round(bytes / r.total)} | ${key} |`);
