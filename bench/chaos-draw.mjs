#!/usr/bin/env node
// What a chaos profile adds to one call's fault plan, in instructions (docs/performance.md,
// "A chaos profile at rate 0"): a tree's src/scenarios (this tree, or --tree=OTHER, e.g. main's
// worktree) bundled by esbuild into a loop of what a controls GET does with its fault plan
// (a FaultPlan, the partner known, drawChaos, serviceFaults), run under callgrind with V8 on one
// thread at two loop lengths; the difference over the extra calls is the count a call, start-up
// and module loading cancelled out. Once with no profile, once with a rate-0 profile for every
// partner (seed 42, the default scenarios), as `npm run bench`'s row sets it.
//   node bench/chaos-draw.mjs [--tree=/work/main] [--calls=200000]
// Needs valgrind. About a minute a tree.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { arg, numberArg, root } from './lib.mjs';

const tree = resolve(arg('tree', root));
const calls = numberArg('calls', 200000);
const dir = mkdtempSync(join(tmpdir(), 'sandbox-chaos-draw-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));

const src = (file) => JSON.stringify(join(tree, 'src/scenarios', file));
writeFileSync(
  join(dir, 'entry.ts'),
  `import { ArmedRegistry } from ${src('armed.js')};
import { ENDPOINTS } from ${src('catalogue.js')};
import { ChaosRegistry, DEFAULT_CHAOS_SCENARIOS } from ${src('chaos.js')};
import { FaultPlan } from ${src('fault-plan.js')};
const n = Number(process.argv[2]);
const armed = new ArmedRegistry();
const chaos = new ChaosRegistry(new Map());
if (process.argv[3] === 'chaos')
  chaos.set({ rate: 0, seed: 42, scenarios: [...DEFAULT_CHAOS_SCENARIOS] }, '2026-12-07T00:00:00Z');
const endpoint = ENDPOINTS.find((e) => String(e).includes('controls')) ?? ENDPOINTS[0];
const paths = Array.from({ length: 10 }, (_, i) => '/v1/partnership/accounts/acct_' + i + '/marketplacecontrolslists');
// what a call that meets no scenario gets (one shared object)
const none = new FaultPlan([], armed, chaos).serviceFaults();
let quiet = 0;
for (let i = 0; i < n; i++) {
  const plan = new FaultPlan([], armed, chaos);
  plan.endpoint = endpoint as never;
  plan.parentId = 'pa_demo_platform';
  plan.accountId = 'acct_' + (i % 10);
  plan.drawChaos(false, 'GET', paths[i % 10]!);
  if (plan.serviceFaults() === none) quiet++;
}
if (quiet !== n) throw new Error('a rate-0 profile met a call');
`,
);
const bundle = join(dir, 'loop.mjs');
execFileSync(
  join(root, 'node_modules/.bin/esbuild'),
  [
    join(dir, 'entry.ts'),
    '--bundle',
    '--platform=node',
    '--format=esm',
    `--outfile=${bundle}`,
    '--log-level=warning',
  ],
  { stdio: 'inherit' },
);

/** Instructions of the whole process for `n` calls. */
function counted(n, mode) {
  const out = join(dir, `cg.${n}.${mode}`);
  execFileSync(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${out}`,
      '--smc-check=all-non-file',
      process.execPath,
      '--single-threaded',
      '--hash-seed=41',
      '--random-seed=41',
      bundle,
      String(n),
      mode,
    ],
    { stdio: 'ignore' },
  );
  return Number(/^totals:\s+(\d+)/m.exec(readFileSync(out, 'utf8'))[1]);
}

const perCall = (mode) => (counted(3 * calls, mode) - counted(calls, mode)) / (2 * calls);
const plain = perCall('plain');
const chaos = perCall('chaos');
console.log(`fault plan of ${tree} (node ${process.version}), instructions a call, GC included:`);
console.log(
  `  no profile ${plain.toFixed(0)}, rate-0 profile ${chaos.toFixed(0)}: the profile adds ${(chaos - plain).toFixed(0)}`,
);
