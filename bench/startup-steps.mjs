#!/usr/bin/env node
// The first startSandbox() of a process after the package's import, step by step, in
// instructions under callgrind (docs/performance.md, "startSandbox() step by step").
//   npm run build && node bench/startup-steps.mjs [--no-v8-flags] [OTHER/dist/index.js ...]
// Each bundle (this tree's dist/index.js first, then each one named) is copied with a mark
// written before each step (the anchors below, found in the bundle's text: a build whose code
// moved says which anchor it misses), and the copy runs under `valgrind --tool=callgrind
// --dump-before=node::v8_utils::SetFlagsFromString*`: each mark calls v8.setFlagsFromString, so
// callgrind writes the count of each step apart. V8 on one thread, fixed seeds, the compile cache
// off, as bench/startup-instructions.mjs. The count ends when startSandbox() resolves (no request
// is made). Each step's instructions are printed without V8's garbage collections, which are
// printed apart: a scavenge falls in whichever step allocates past the young generation's room
// (a change anywhere moves it, and its cost depends on what is alive then).
// --no-v8-flags: the process runs without those V8 flags, as a partner's process does: any V8
// flag on the command line makes Node reject the code cache its own modules are compiled from
// (`require('cluster')` costs 62 M instructions with --single-threaded, 7 M without), so the
// default count overstates what loading Node's modules costs. V8 then has helper threads, whose
// work varies from run to run: only the main thread's instructions are counted
// (`--separate-threads=yes`), and the count repeats.
// Needs valgrind. About a minute a bundle.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './lib.mjs';

/** [step that starts here, anchor in the bundle, where: before it or after it]. */
const STEPS = [
  ['options parsed (zod)', /const parsed = Options\.safeParse/, 'before'],
  ['configuration parsed (zod)', /const \{ log, strictIdempotency/, 'before'],
  ['logger, folders checked', /const logger = typeof log/, 'before'],
  ['fixtures loaded', /const fixtures = loadFixtures\(/, 'before'],
  ['presets loaded', /const presets = loadPresets\(/, 'before'],
  ['store: SQLite opened (the addon loaded)', /const store = createStore\(/, 'before'],
  ['store: pragmas', /applyPragmas\(db\d*, path\d*\);/, 'before'],
  ['store: migrations', /migrate\(db\d*, hooks\d*\);/, 'before'],
  ['store: write probe', /probeWritable\(db\d*\);/, 'before'],
  ['store: statements, caches', /probeWritable\(db\d*\);/, 'after'],
  ['sandbox, registry, snapshots', /const clock = new Clock\(\);/, 'before'],
  ['clock loaded', /sandbox\.loadClock\(\);/, 'before'],
  ['start-up writes (fixtures seeded)', /flushChaos = startUp\(sandbox\d*\);/, 'before'],
  ['app: new app, request context', /flushChaos = startUp\(sandbox\d*\);/, 'after'],
  ['app: token endpoint', /app\d*\.route\("\/", oauthApi\(\)\);/, 'before'],
  ['app: partnership API', /app\d*\.route\("\/", partnershipApi\(\)\);/, 'before'],
  ['app: control plane', /app\d*\.route\("\/", controlApi\(sandbox\d*\)\);/, 'before'],
  ['app: OpenAPI extras', /registerPartnershipExtras\(app\d*\);/, 'before'],
  ['app: documents', /app\d*\.route\("\/", docsApi\(app\d*\)\);/, 'before'],
  ['app: not found, errors; request listener', /app\d*\.route\("\/", docsApi\(app\d*\)\);/, 'after'],
  // The server made, then listening: @hono/node-server's serve() before, server.ts's listenOn() now.
  [
    'listen (Node: net, dns, cluster)',
    /const s\d* = (?:serve\(|\(0, import_node_http\d*\.createServer\)\()/,
    'before',
  ],
  ['after listening', /running\.sandbox\.log\.info\("sandbox listening"/, 'before'],
];

const noV8Flags = process.argv.includes('--no-v8-flags');

const MARK = (name) => `globalThis.__startupMark?.(${JSON.stringify(name)});`;

/** A copy of `index` (beside its package, so fixtures and node_modules resolve) with the marks. */
function marked(index) {
  let text = readFileSync(index, 'utf8');
  for (const [name, anchor, where] of STEPS) {
    const found = anchor.exec(text);
    if (!found) throw new Error(`${index}: anchor of "${name}" not found (${anchor})`);
    const at = where === 'before' ? found.index : found.index + found[0].length;
    text = `${text.slice(0, at)}${MARK(name)}${text.slice(at)}`;
  }
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-steps-'));
  const pkg = dirname(dirname(index));
  symlinkSync(join(pkg, 'node_modules'), join(dir, 'node_modules'));
  for (const name of ['fixtures', 'scenarios', 'package.json']) symlinkSync(join(pkg, name), join(dir, name));
  const dist = join(dir, 'dist');
  spawnSync('mkdir', [dist]);
  writeFileSync(join(dist, 'index.js'), text);
  copyFileSync(join(dirname(index), 'guides.json'), join(dist, 'guides.json'));
  return { dir, index: join(dist, 'index.js') };
}

/** The instructions of V8's garbage collections in one dump (callgrind_annotate, inclusive). */
function gcOf(file) {
  const r = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const line = r.stdout
    .split('\n')
    .find((l) => l.includes('v8::internal::Heap::CollectGarbage(') && !l.includes("'2"));
  return line ? Number(line.trim().split(/\s+/)[0].replaceAll(',', '')) : 0;
}

function steps(index) {
  const copy = marked(index);
  const out = join(copy.dir, 'cg');
  spawnSync('mkdir', [out]);
  const script = `
import v8 from 'node:v8';
const names = [];
globalThis.__startupMark = (name) => { names.push(name); v8.setFlagsFromString('--no-trace-gc'); };
const { startSandbox } = await import(${JSON.stringify(pathToFileURL(copy.index).href)});
globalThis.__startupMark('startSandbox() called: runtime check');
await startSandbox();
globalThis.__startupMark('end');
console.log(JSON.stringify(names));
process.exit(0);
`;
  const r = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      ...(noV8Flags ? ['--separate-threads=yes'] : []),
      '--dump-before=node::v8_utils::SetFlagsFromString*',
      `--callgrind-out-file=${out}/cg.%p`,
      process.execPath,
      ...(noV8Flags ? [] : ['--single-threaded', '--hash-seed=41', '--random-seed=41']),
      '--input-type=module',
      '-e',
      script,
    ],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, SANDBOX_LOG: 'silent', NODE_DISABLE_COMPILE_CACHE: '1' },
    },
  );
  try {
    const names = JSON.parse(r.stdout.trim().split('\n').pop());
    // Dump k holds what ran up to the k-th mark: dump 1 is the import, dump k+1 the step names[k-1].
    const counts = new Map();
    for (const f of readdirSync(out)) {
      // With --separate-threads=yes each dump is one file a thread (…\.N-01 is the main thread's).
      const n = Number((noV8Flags ? /\.(\d+)-01$/ : /\.(\d+)$/).exec(f)?.[1]);
      const total = /^totals:\s+(\d+)/m.exec(readFileSync(join(out, f), 'utf8'));
      if (n && total) counts.set(n, { count: Number(total[1]), gc: gcOf(join(out, f)) });
    }
    return names.slice(0, -1).map((name, k) => ({ name, ...(counts.get(k + 2) ?? { count: 0, gc: 0 }) }));
  } finally {
    rmSync(copy.dir, { recursive: true, force: true });
  }
}

const bundles = [join(root, 'dist', 'index.js'), ...process.argv.slice(2).filter((a) => !a.startsWith('--'))];
const results = bundles.map(steps);
const m = (x) => (x / 1e6).toFixed(2).padStart(7);
console.log(
  noV8Flags
    ? `node ${process.version}, no V8 flags (its modules' code cache used), the main thread only, compile cache off; M instructions per step`
    : `node ${process.version}, --single-threaded, compile cache off; M instructions per step`,
);
console.log(bundles.map((b, i) => `[${i}] ${b}`).join('\n'));
for (const [i, { name }] of results[0].entries()) {
  const cells = results.map((r) =>
    `${m((r[i]?.count ?? 0) - (r[i]?.gc ?? 0))} ${r[i]?.gc ? `+${m(r[i].gc).trim()} GC` : ''}`.padEnd(18),
  );
  console.log(`${cells.join(' ')}  ${name}`);
}
const sum = (r, key) => r.reduce((s, x) => s + x[key], 0);
console.log(
  `${results.map((r) => `${m(sum(r, 'count') - sum(r, 'gc'))} +${m(sum(r, 'gc')).trim()} GC`.padEnd(18)).join(' ')}  startSandbox() in all`,
);
console.log(
  `${results.map((r) => `${m(sum(r, 'count'))}`.padEnd(18)).join(' ')}  the same with its garbage collections`,
);
