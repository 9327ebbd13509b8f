#!/usr/bin/env node
/**
 * Tests by room: test/ mirrors the rooms of src/ (docs/architecture.md, "Tests"). This script
 * holds the room of every test file and moves them there, and it is safe to run again: on a
 * tree where files already moved, where other branches changed their content or added files,
 * it moves what is still at an old place, repairs the relative paths that point at an old
 * place, and reports the files it has no room for (it never guesses one).
 *
 *   node scripts/tests-by-room.mjs            move (git mv), rewrite paths, report
 *   node scripts/tests-by-room.mjs --check    report only: exit 1 when anything is to do
 *
 * What it rewrites, in every file under test/ (moved or not): relative imports (`from`,
 * `import()`), `new URL('…', import.meta.url)`, and `join`/`resolve` of `import.meta.dirname`
 * (or `dirname(fileURLToPath(import.meta.url))`) with literal segments. Across the repository
 * (configs, .ci/run, workflows, scripts, src comments, docs; not CHANGELOG.md, which is
 * history): every `test/<old path>` becomes `test/<new path>`. Then Biome formats what changed
 * (imports sort by path). No dependency: node and git.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const TEST = join(ROOT, 'test');
const CHECK = process.argv.includes('--check');

/** The rooms, each a folder of test/, and the files (paths under test/, as they were) in each. */
const ROOMS = {
  // the partner API: src/api, src/http, src/services, src/contract/api
  api: [
    'auth.test.ts',
    'bind.test.ts',
    'concurrency.test.ts',
    'controls.test.ts',
    'cors.test.ts',
    'envelope-text.test.ts',
    'envelope.test.ts',
    'example-client.test.ts',
    'fuzz.test.ts',
    'idempotency.test.ts',
    'layout.test.ts',
    'limits.test.ts',
    'node-request.test.ts',
    'openapi-30.test.ts',
    'openapi-lint.test.ts',
    'openapi.test.ts',
    'rate-limit.test.ts',
    'register.test.ts',
    'router.test.ts',
    'security.test.ts',
    'server-robustness.test.ts',
    'silent-choices.test.ts',
    'smoke.test.ts',
    'spec-fields.test.ts',
    'status.test.ts',
    'token-endpoint.test.ts',
    'validation-messages.test.ts',
    'validation-query.test.ts',
    'validation-utf8.test.ts',
    // coming from other branches
    'rate-limit-early.test.ts',
  ],
  // the control plane and its client: src/control, src/client, src/contract/control (journal,
  // report, snapshots, bundles, a partner's own key and room, isolation, cells)
  control: [
    'bundle-large-import.test.ts',
    'bundle-roundtrip.test.ts',
    'bundle-export-bytes.test.ts',
    'bundle-swap.test.ts',
    'bundles-hostile.test.ts',
    'bundles.test.ts',
    'cells.test.ts',
    'control-client.test.ts',
    'control-plane.test.ts',
    'cross-site.test.ts',
    'fuzz-control.test.ts',
    'isolation-client.test.ts',
    'isolation-example.test.ts',
    'isolation.test.ts',
    'journal-body.test.ts',
    'journal-tenants.test.ts',
    'journal-volume.test.ts',
    'journal.test.ts',
    'partner-key-probe.test.ts',
    'partner-key.test.ts',
    'partner-room.test.ts',
    'report.test.ts',
    'snapshots.test.ts',
    'traces.test.ts',
    // coming from other branches
    'partner-header-doc.test.ts',
    'partner-room-control.test.ts',
  ],
  // the sandbox's state and its store: src/core, src/sandbox, src/store, src/domain
  state: [
    'query-plan.test.ts',
    'reset-atomic.test.ts',
    'secrets-at-rest.test.ts',
    'startup.test.ts',
    'state-registry.test.ts',
    'store-full-disk.test.ts',
    'store-full.test.ts',
  ],
  // fault scenarios and chaos: src/scenarios
  scenarios: [
    'additive-changes.test.ts',
    'chaos-flow.test.ts',
    'chaos-replay.test.ts',
    'chaos-startup.test.ts',
    'chaos.test.ts',
    'scenario-records.test.ts',
    'scenarios.test.ts',
  ],
  // recordings and drift: src/drift (its other tests are in test/drift/ already)
  drift: ['drift-cli.test.ts'],
  // Pacts: src/pact
  pact: ['contracts/*'],
  // the MCP server: src/mcp
  mcp: ['mcp-bin.test.ts', 'mcp-portable.test.ts', 'mcp.test.ts'],
  // the dashboard in a browser: src/ui
  ui: ['ui-trace.browser.test.ts', 'ui.browser.test.ts'],
  // the manual: docs/, README, the served pages (src/guides, /docs)
  docs: ['docs-match.test.ts', 'docs.browser.test.ts', 'docs.test.ts'],
  // the package, the bin and the examples as partners run them (release tests)
  package: [
    'cli-help.test.ts',
    'cli.test.ts',
    'crash.test.ts',
    'examples-additive.test.ts',
    'examples-lang.test.ts',
    'native-teardown.test.ts',
    'native/',
    'old-node.test.ts',
    'package.test.ts',
    'runtime-image.test.ts',
    'sbom.test.ts',
  ],
  // the house rules: layers, short functions, shared workers, the CI files
  house: ['function-length.test.ts', 'layers.test.ts', 'suite-hygiene.test.ts', 'workflows.test.ts'],
  // what tests of several rooms share
  helpers: [
    'browser.ts',
    'build-once.ts',
    'bundle-helpers.ts',
    'contract.ts',
    'fixed-names.ts',
    'fuzz.ts',
    'harness.ts',
    'mcp-client.ts',
    'pack.ts',
    'raw-http.ts',
    'scenarios.case.ts',
    'shell.ts',
    'tenants.ts',
    'workflow-files.ts',
    // coming from other branches
    'room-fill.ts',
  ],
};

/** Folders of test/ that are rooms already, kept as they are. */
const KEPT = ['drift/', 'hosted/', 'image/', 'interop/'];

/** Old path (under test/, a folder ending in '/') -> new path. */
const MOVES = new Map();
for (const [room, entries] of Object.entries(ROOMS)) {
  for (const entry of entries) {
    // 'folder/*': its files into the room itself; 'folder/': the folder into the room.
    if (entry.endsWith('/*')) MOVES.set(entry.slice(0, -1), `${room}/`);
    else
      MOVES.set(
        entry,
        `${room}/${entry.endsWith('/') ? `${posix.basename(entry)}/` : posix.basename(entry)}`,
      );
  }
}
const ROOM_DIRS = [...new Set([...Object.keys(ROOMS).map((r) => `${r}/`), ...KEPT])];

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });
const tracked = () => git('ls-files', '-z').split('\0').filter(Boolean);
const isFile = (p) => existsSync(p) && statSync(p).isFile();

/** An absolute path at its new place when it (or a folder holding it) moved. */
function moved(abs) {
  const rel = relative(TEST, abs).split('\\').join('/');
  if (rel.startsWith('..')) return abs;
  if (MOVES.has(rel)) return join(TEST, MOVES.get(rel));
  // a `.js` import of a moved `.ts` file
  const ts = rel.replace(/\.js$/, '.ts');
  if (ts !== rel && MOVES.has(ts)) return join(TEST, MOVES.get(ts).replace(/\.ts$/, '.js'));
  for (const [from, to] of MOVES) {
    if (from.endsWith('/') && (`${rel}/` === from || rel.startsWith(from)))
      return join(TEST, to, rel.slice(from.length));
  }
  return abs;
}

/** Where a file now at a room's place was before it moved (itself when it never moved). */
function original(abs) {
  const rel = relative(TEST, abs).split('\\').join('/');
  for (const [from, to] of MOVES) {
    if (!from.endsWith('/') && rel === to) return join(TEST, from);
    if (from.endsWith('/') && rel.startsWith(to)) return join(TEST, from, rel.slice(to.length));
  }
  return abs;
}

/** Whether a path names something that is there (a `.js` import of a `.ts` file counts). */
function present(abs) {
  if (existsSync(abs)) return true;
  return abs.endsWith('.js') && existsSync(`${abs.slice(0, -3)}.ts`);
}

/** The specifier `spec` (relative) as written in a file of `writtenIn`, now in `dir`. */
function repoint(spec, writtenIn, dir, fromOld) {
  const trailing = spec.endsWith('/') && spec.length > 1;
  const candidate = (base) => {
    const abs = resolve(base, spec);
    const target = present(abs) ? abs : moved(abs);
    return present(target) ? target : undefined;
  };
  // A file moved by this run was written for its old folder; one already in place is repaired
  // only where a path does not resolve from where it is.
  let target = fromOld ? candidate(writtenIn) : candidate(dir);
  if (!target && !fromOld && writtenIn !== dir) target = candidate(writtenIn);
  if (!target) return undefined;
  let rel = relative(dir, target).split('\\').join('/');
  if (rel === '') rel = '.';
  return { rel, trailing };
}

const unresolved = [];

/** Rewrites the relative paths of one file of test/: its imports and dir-anchored paths. */
function rewrite(text, file, oldFile, fromOld) {
  const dir = dirname(file);
  const writtenIn = dirname(oldFile);
  // A path that resolves nowhere (a file a test generates, an import inside a string) is left
  // as it is; in a file that moved it is named, to be looked at.
  const note = (spec, kept) => {
    if (writtenIn !== dir) unresolved.push(`${relative(ROOT, file)}: ${spec}`);
    return kept;
  };
  const asImport = (spec) => {
    const r = repoint(spec, writtenIn, dir, fromOld);
    if (!r) return note(spec, spec);
    return r.rel.startsWith('.') ? r.rel : `./${r.rel}`;
  };
  let out = text.replace(
    /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.\.?\/[^'"\n$]*)\2/g,
    (_m, lead, q, spec) => `${lead}${q}${asImport(spec)}${q}`,
  );
  out = out.replace(
    /new URL\(\s*'(\.{1,2}(?:\/[^'\n$]*)?)'(\s*,\s*import\.meta\.url\s*\))/g,
    (m, spec, rest) => {
      const r = repoint(spec, writtenIn, dir, fromOld);
      if (!r) return note(spec, m);
      let rel = r.rel.startsWith('.') ? r.rel : `./${r.rel}`;
      if (r.trailing && !rel.endsWith('/')) rel += '/';
      return `new URL('${rel}'${rest}`;
    },
  );
  const ANCHOR =
    /\b(join|resolve)\(\s*(import\.meta\.dirname|dirname\(fileURLToPath\(import\.meta\.url\)\))((?:\s*,\s*'[^'\n$]*')*)/g;
  out = out.replace(ANCHOR, (m, fn, anchor, segs) => {
    const parts = [...segs.matchAll(/'([^']*)'/g)].map((s) => s[1]);
    const spec = parts.length ? parts.join('/') : '.';
    const r = repoint(spec.startsWith('.') ? spec : `./${spec}`, writtenIn, dir, fromOld);
    if (!r) return note(spec, m);
    const next = r.rel === '.' ? [] : r.rel.split('/');
    if (next.join('/') === parts.join('/')) return m;
    return `${fn}(${anchor}${next.map((p) => `, '${p}'`).join('')}`;
  });
  // `const X = import.meta.dirname;` in a moved file meant its old folder.
  if (fromOld && writtenIn !== dir) {
    out = out.replace(/=\s*import\.meta\.dirname;/g, () => {
      const rel = relative(dir, writtenIn).split('\\').join('/');
      if (!/import \{[^}]*\bjoin\b[^}]*\} from 'node:path'/.test(out))
        note('import.meta.dirname (no join imported)');
      return `= join(import.meta.dirname, ${rel
        .split('/')
        .map((p) => `'${p}'`)
        .join(', ')});`;
    });
  }
  return out;
}

/** Every file under a folder, as paths relative to test/. */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = join(dir, e.name);
    return e.isDirectory() ? walk(abs) : [relative(TEST, abs).split('\\').join('/')];
  });
}

// 1. Move what is still at an old place.
const movedNow = new Map(); // new absolute path -> old absolute path
const todo = [];
for (const from of MOVES.keys()) {
  const src = join(TEST, from);
  if (!existsSync(src)) continue;
  const files = from.endsWith('/') ? walk(src) : [from];
  for (const f of files) {
    const dest = moved(join(TEST, f));
    if (existsSync(dest)) {
      todo.push(`test/${f}: both it and test/${relative(TEST, dest)} exist; merge them by hand`);
      continue;
    }
    todo.push(`git mv test/${f} test/${relative(TEST, dest)}`);
    if (CHECK) continue;
    mkdirSync(dirname(dest), { recursive: true });
    git('mv', join(TEST, f), dest);
    movedNow.set(dest, join(TEST, f));
  }
}

// Folders the moves emptied go.
function pruneEmpty(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true }))
    if (e.isDirectory()) pruneEmpty(join(dir, e.name));
  if (dir !== TEST && readdirSync(dir).length === 0) rmdirSync(dir);
}
if (!CHECK) pruneEmpty(TEST);

// 2. Files with no room: reported, never guessed.
const unknown = walk(TEST).filter(
  (f) =>
    !ROOM_DIRS.some((d) => f.startsWith(d)) &&
    !MOVES.has(f) &&
    ![...MOVES.keys()].some((k) => k.endsWith('/') && f.startsWith(k)),
);

// 3. Rewrite the relative paths in every file of test/.
const changed = [];
if (!CHECK) {
  for (const f of walk(TEST)) {
    if (!/\.(ts|mts|mjs|js|tsx)$/.test(f)) continue;
    const abs = join(TEST, f);
    const old = movedNow.get(abs);
    const text = readFileSync(abs, 'utf8');
    // A file moved earlier may hold lines merged since, written for its old place.
    const next = rewrite(text, abs, old ?? original(abs), old !== undefined);
    if (next !== text) {
      writeFileSync(abs, next);
      changed.push(abs);
    }
  }
}

// 4. Every `test/<old path>` named across the repository.
const renames = [...MOVES].sort((a, b) => b[0].length - a[0].length);
const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const named = [];
for (const rel of tracked()) {
  if (rel === 'CHANGELOG.md' || rel === 'package-lock.json' || rel.startsWith('node_modules/')) continue;
  const abs = join(ROOT, rel);
  if (!isFile(abs) || statSync(abs).size > 2_000_000) continue;
  const text = readFileSync(abs, 'utf8');
  if (!text.includes('test/') || text.includes('\0')) continue;
  let next = text;
  for (const [from, to] of renames) {
    const pattern = from.endsWith('/')
      ? new RegExp(`(^|[^\\w.-])test/${escapeRegExp(from.slice(0, -1))}(?=/|[^\\w.-]|$)`, 'gm')
      : new RegExp(`(^|[^\\w.-])test/${escapeRegExp(from)}(?![\\w.-])`, 'gm');
    const replacement = from.endsWith('/') ? to.slice(0, -1) : to;
    next = next.replace(pattern, (_m, lead) => `${lead}test/${replacement}`);
  }
  if (next !== text) {
    named.push(rel);
    if (!CHECK) {
      writeFileSync(abs, next);
      changed.push(abs);
    }
  }
}

// 5. Biome formats what changed (imports sort by path).
const biome = join(ROOT, 'node_modules', '.bin', 'biome');
const formattable = [...new Set(changed)].filter((f) => /\.(ts|mts|mjs|js|json|tsx)$/.test(f));
if (!CHECK && formattable.length && existsSync(biome)) {
  try {
    execFileSync(biome, ['check', '--write', ...formattable], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    console.log('biome check --write reported what it could not fix: run `npm run lint`');
  }
}

const moves = todo.filter((t) => t.startsWith('git mv'));
console.log(`${CHECK ? 'to move' : 'moved'}: ${moves.length}`);
for (const t of todo) if (!t.startsWith('git mv')) console.log(`conflict: ${t}`);
if (!CHECK) console.log(`paths rewritten in ${changed.length} files`);
else if (named.length) console.log(`old paths named in: ${named.join(', ')}`);
for (const u of unresolved) console.log(`left as it is, resolves nowhere (look at it): ${u}`);
for (const f of unknown) console.log(`no room for test/${f}: add it to ROOMS in scripts/tests-by-room.mjs`);
if (CHECK && (moves.length || named.length || unknown.length)) process.exitCode = 1;
