#!/usr/bin/env node
// The V8 heap a hosted partner holds: a sandbox (this tree's build, or --main=OTHER/dist/main.js)
// started with --expose-gc and a preload that answers SIGUSR2 with process.memoryUsage() after a
// full GC; N partners set up as bench/workloads.mjs's hostedPartners sets them up (each made on
// the control plane, its mapping seeded with the demo partner's 18 rows, a token, one account
// registered); heap used read at N=1 and at each --partners=N, one fresh process each, and the
// heap a partner holds = (heap(N) - heap(1)) / (N - 1).
//   npm run build && node bench/partner-heap.mjs [--partners=2000] [--main=...] [--shapes=15]
// --shapes=K also writes a heap snapshot at the largest N and prints its K largest groups of
// objects by shape (an object's property names; a string's or other node's type), with counts;
// --snapshot=FILE keeps that snapshot (for Chrome's DevTools).
// Sizes, not times: they hold on a loaded machine.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arg, numberArg, sandboxDist, sleep, startServer } from './lib.mjs';
import { hostedPartners } from './workloads.mjs';

const sizes = String(arg('partners', '2000')).split(',').map(Number);
const main = arg('main', sandboxDist().main);
const shapes = numberArg('shapes', 0);

const dir = mkdtempSync(join(tmpdir(), 'sandbox-partner-heap-'));
const preload = join(dir, 'preload.mjs');
writeFileSync(
  preload,
  `import { readFileSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';
let n = 0;
process.on('SIGUSR2', () => {
  globalThis.gc();
  globalThis.gc();
  const memory = JSON.stringify(process.memoryUsage());
  if (process.env.BENCH_HEAP_SNAPSHOT) v8.writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT);
  const out = ${JSON.stringify(dir)} + '/memory-' + ++n + '.json';
  writeFileSync(out + '.tmp', memory);
  writeFileSync(out, readFileSync(out + '.tmp'));
});
`,
);

async function memoryAfterGc(sb) {
  sb.child.kill('SIGUSR2');
  const file = join(dir, 'memory-1.json');
  for (let i = 0; i < 1200; i++) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      await sleep(100);
    }
  }
  throw new Error('no memory reading from the server');
}

/** Heap used after a full GC with `n` partners set up; a snapshot written to `snapshot` if given. */
async function heapWith(n, snapshot) {
  rmSync(join(dir, 'memory-1.json'), { force: true });
  const env = snapshot ? { BENCH_HEAP_SNAPSHOT: snapshot } : {};
  const sb = await startServer(main, { nodeArgs: ['--expose-gc', '--import', preload], env });
  try {
    await hostedPartners(sb.url, n, 0);
    await sleep(500);
    return (await memoryAfterGc(sb)).heapUsed;
  } finally {
    await sb.stop();
  }
}

/** The K largest groups of a heap snapshot's nodes: objects by property names, others by type. */
function shapeSummary(file, k) {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const { node_fields, edge_fields, node_types, edge_types } = snap.snapshot.meta;
  const nf = node_fields.length;
  const ef = edge_fields.length;
  const [typeAt, nameAt, sizeAt, edgesAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
    node_fields.indexOf(f),
  );
  const [eTypeAt, eNameAt] = ['type', 'name_or_index'].map((f) => edge_fields.indexOf(f));
  const nodeTypes = node_types[typeAt];
  const edgeTypes = edge_types[eTypeAt];
  const { nodes, edges, strings } = snap;
  const groups = new Map();
  let e = 0;
  for (let i = 0; i < nodes.length; i += nf) {
    const type = nodeTypes[nodes[i + typeAt]];
    const count = nodes[i + edgesAt];
    let key;
    if (type === 'object') {
      const props = [];
      for (let j = 0; j < count; j++) {
        const at = e + j * ef;
        if (edgeTypes[edges[at + eTypeAt]] === 'property') props.push(strings[edges[at + eNameAt]]);
      }
      key = `${strings[nodes[i + nameAt]]} {${props.filter((p) => p !== '__proto__' && p !== 'map').join(', ')}}`;
    } else key = `(${type})`;
    e += count * ef;
    const g = groups.get(key) ?? { count: 0, bytes: 0 };
    g.count++;
    g.bytes += nodes[i + sizeAt];
    groups.set(key, g);
  }
  return [...groups].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, k);
}

const one = await heapWith(1);
console.log(JSON.stringify({ partners: 1, heap_used_mb: +(one / 1e6).toFixed(1) }));
for (const n of sizes) {
  const snapshot =
    shapes && n === Math.max(...sizes) ? arg('snapshot', join(dir, 'heap.heapsnapshot')) : undefined;
  const used = await heapWith(n, snapshot);
  console.log(
    JSON.stringify({
      partners: n,
      heap_used_mb: +(used / 1e6).toFixed(1),
      bytes_a_partner: Math.round((used - one) / (n - 1)),
    }),
  );
  if (snapshot) {
    for (const [key, g] of shapeSummary(snapshot, shapes))
      console.log(
        `  ${String(g.count).padStart(9)}  ${(g.bytes / 2 ** 20).toFixed(1).padStart(7)} MiB  ${key}`,
      );
  }
}
console.log(
  `node ${process.version}, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ', 3).join(' ')}`,
);
rmSync(dir, { recursive: true, force: true });
