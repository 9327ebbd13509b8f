#!/usr/bin/env node
// Idle memory of the production build (docs/performance.md, the idle RSS row), and where it
// goes: for each variant, three processes started one after another, each read 2 s after its
// first healthy answer (as bench/run.mjs reads idle RSS), then a full GC in the server
// (SIGUSR2, gc-on-signal.mjs) and a second reading. /proc/<pid>/smaps splits RSS into the
// node binary's pages, V8's and other anonymous mappings, and malloc's heap.
//
// Usage: npm run build && node bench/idle-rss.mjs [variant ...]
//   variants: default (the build as shipped); 'main:<path>' another build's main.js (a copy of
//   an earlier dist/, to compare before and after in one run); and, to weigh a setting without
//   changing the build, 'flag:<node flag>' or 'env:<NAME=value>', e.g. flag:--max-semi-space-size=1.
import { readFileSync } from 'node:fs';
import { rssMiB, sandboxDist, sleep, startServer } from './lib.mjs';

/** RSS of a pid by mapping, in MiB: the node binary, [heap] (malloc), anonymous, other files. */
function rssByMapping(pid) {
  const out = { node: 0, malloc: 0, anon: 0, files: 0 };
  let kind = 'anon';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const name = head[1];
      kind =
        name === process.execPath
          ? 'node'
          : name === '[heap]'
            ? 'malloc'
            : name.startsWith('/')
              ? 'files'
              : 'anon';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[kind] += Number(rss[1]) / 1024;
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, +v.toFixed(1)]));
}

const variants = process.argv.slice(2).length ? process.argv.slice(2) : ['default'];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = [];
for (const variant of variants) {
  const nodeArgs = ['--expose-gc'];
  const env = {};
  if (variant.startsWith('flag:')) nodeArgs.push(variant.slice(5));
  if (variant.startsWith('env:')) {
    const [k, ...v] = variant.slice(4).split('=');
    env[k] = v.join('=');
  }
  const idle = [];
  const afterGc = [];
  let split;
  for (let i = 0; i < 3; i++) {
    const sb = await startServer(new URL('./gc-on-signal.mjs', import.meta.url).pathname, {
      args: [variant.startsWith('main:') ? variant.slice(5) : sandboxDist().main],
      nodeArgs,
      env,
    });
    await sleep(2000);
    idle.push(rssMiB(sb.pid));
    sb.child.kill('SIGUSR2');
    await sleep(1000);
    afterGc.push(rssMiB(sb.pid));
    split = rssByMapping(sb.pid);
    await sb.stop();
  }
  const row = {
    variant,
    idle_mib: +median(idle).toFixed(1),
    idle_readings: idle.map((x) => +x.toFixed(1)),
    after_gc_mib: +median(afterGc).toFixed(1),
    last_split_mib: split,
  };
  results.push(row);
  console.log(JSON.stringify(row));
}
console.log(
  `node ${process.version}, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ', 3).join(' ')}`,
);
