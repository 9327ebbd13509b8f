#!/usr/bin/env node
/**
 * One base name per source file: no two files of src/ share a base name (but a folder's public
 * face, an index.ts of re-exports only), so a name seen in an import, a stack trace or a review
 * says which file it is (docs/architecture.md, "Layout of the code"; test/house/base-names.test.ts
 * keeps it). This script holds the renames and makes
 * them, and it is safe to run again: on a tree where files already moved, where other branches
 * changed their content or added imports of the old names, it moves what is still at an old
 * place and rewrites every reference to an old place.
 *
 *   node scripts/rename-modules.mjs            move (git mv), rewrite references, report
 *   node scripts/rename-modules.mjs --check    report only: exit 1 when anything is to do
 *
 * Every rename stays in its folder, so a moved file's own relative imports keep their meaning.
 * What it rewrites, in every tracked text file (src, test, bench, scripts, examples, docs,
 * configs, package.json, .ci/run, Dockerfile; not CHANGELOG.md, which is history, nor this
 * file):
 * - quoted relative specifiers that resolve to an old place (`from '../http/envelope.js'`,
 *   `import('./plan.js')`, `new URL('../../src/ui/client/main.ts', import.meta.url)`), with
 *   the extension they were written with (.js, .ts, .tsx or none);
 * - paths that name an old place from a folder of src/ (`src/http/envelope.ts`,
 *   `http/envelope.ts`, `'ui/client/views/chaos.ts'`, `dist/types/client/control.d.ts`), not
 *   preceded by another path segment
 *   (so `contract/control/pact.ts` is not taken for `control/pact.ts`);
 * - in a file of src/, a bare base name (`envelope.ts`) of an old place in the same folder.
 * Then Biome formats the files it changed (imports sort by path). No dependency: node and git.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { posix, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const CHECK = process.argv.includes('--check');
const SELF = 'scripts/rename-modules.mjs';

/** Old place -> new place, under src/, each in its own folder. */
export const RENAMES = {
  // the control plane: one module of routes per resource (control/routes.ts mounts them)
  'control/accounts.ts': 'control/account-routes.ts',
  'control/bundles.ts': 'control/bundle-routes.ts',
  'control/chaos.ts': 'control/chaos-routes.ts',
  'control/clock.ts': 'control/clock-routes.ts',
  'control/pact.ts': 'control/pact-routes.ts',
  'control/partners.ts': 'control/partner-routes.ts',
  'control/requests.ts': 'control/request-routes.ts',
  'control/scenarios.ts': 'control/scenario-routes.ts',
  'control/snapshots.ts': 'control/snapshot-routes.ts',
  // the store: one module per table group
  'store/accounts.ts': 'store/accounts-table.ts',
  'store/controls.ts': 'store/controls-table.ts',
  'store/partners.ts': 'store/partners-table.ts',
  'store/idempotency.ts': 'store/idempotency-table.ts',
  'store/index.ts': 'store/sqlite-store.ts',
  // pure rules
  'domain/controls.ts': 'domain/controls-list.ts',
  'domain/status.ts': 'domain/aggregate-status.ts',
  // services, http, api
  'services/auth.ts': 'services/tokens.ts',
  'api/oauth.ts': 'api/token-endpoint.ts',
  'http/additive.ts': 'http/additive-answer.ts',
  'http/envelope.ts': 'http/answer-writer.ts',
  'http/headers.ts': 'http/request-headers.ts',
  'http/rate-limit.ts': 'http/rate-limit-check.ts',
  // scenarios
  'scenarios/additive.ts': 'scenarios/additive-changes.ts',
  'scenarios/plan.ts': 'scenarios/fault-plan.ts',
  // the control-plane client and its schemas
  'client/control.ts': 'client/control-client.ts',
  'contract/control/control.ts': 'contract/control/control-schemas.ts',
  // rooms of their own: drift, pact, mcp
  'drift/cli.ts': 'drift/drift-cli.ts',
  'drift/ids.ts': 'drift/id-map.ts',
  'drift/plan.ts': 'drift/replay-plan.ts',
  'drift/report.ts': 'drift/verify-report.ts',
  'mcp/cli.ts': 'mcp/mcp-cli.ts',
  'mcp/server.ts': 'mcp/mcp-server.ts',
  'pact/cli.ts': 'pact/pact-cli.ts',
  // the dashboard: its shell, its entry point, its client's modules, one view per tab
  'ui/index.tsx': 'ui/shell.tsx',
  'ui/client/main.ts': 'ui/client/dashboard-main.ts',
  'ui/client/control.ts': 'ui/client/control-call.ts',
  'ui/client/partners.ts': 'ui/client/partner-list.ts',
  'ui/client/views/account.ts': 'ui/client/views/account-view.ts',
  'ui/client/views/chaos.ts': 'ui/client/views/chaos-view.ts',
  'ui/client/views/clock.ts': 'ui/client/views/clock-view.ts',
  'ui/client/views/journal.ts': 'ui/client/views/journal-view.ts',
  'ui/client/views/partners.ts': 'ui/client/views/partners-view.ts',
  'ui/client/views/report.ts': 'ui/client/views/report-view.ts',
  'ui/client/views/scenarios.ts': 'ui/client/views/scenarios-view.ts',
  'ui/client/views/snapshots.ts': 'ui/client/views/snapshots-view.ts',
};

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const stem = (p) => p.replace(/\.tsx?$/, '');

/** Old place (under src/, without extension) -> new place, for specifiers. */
const byStem = new Map(Object.entries(RENAMES).map(([from, to]) => [stem(from), to]));

/** A quoted relative specifier: its quote, its text. */
const SPECIFIER = /(['"`])(\.{1,2}\/[^'"`\n]*?)\1/g;

function rewriteSpecifiers(file, text) {
  const dir = posix.dirname(file);
  return text.replace(SPECIFIER, (whole, quote, spec) => {
    const m = /^(.*?)(\.js|\.ts|\.tsx)?$/.exec(spec);
    const target = posix.normalize(posix.join(dir, m[1]));
    if (!target.startsWith('src/')) return whole;
    const to = byStem.get(target.slice(4));
    if (!to) return whole;
    const newSpec = `${posix.dirname(spec)}/${posix.basename(stem(to))}${m[2] ?? ''}`;
    return `${quote}${newSpec}${quote}`;
  });
}

/** Paths naming an old place from src/ (or dist/types/) or from a folder of it, with .ts/.tsx, .js or .d.ts. */
const PATHS = Object.entries(RENAMES).map(([from, to]) => {
  const ext = posix.extname(from);
  return {
    re: new RegExp(
      `(?<![\\w./-])(src/|dist/types/)?${escapeRe(stem(from))}(${escapeRe(ext)}|\\.js|\\.d\\.ts)(?![\\w-])`,
      'g',
    ),
    to: stem(to),
  };
});

function rewritePaths(text) {
  let out = text;
  for (const { re, to } of PATHS) out = out.replace(re, (_w, src, ext) => `${src ?? ''}${to}${ext}`);
  return out;
}

/** In a file of src/: bare base names of old places in its own folder. */
function rewriteBareNames(file, text) {
  if (!file.startsWith('src/')) return text;
  const dir = posix.dirname(file).slice(4);
  let out = text;
  for (const [from, to] of Object.entries(RENAMES)) {
    if (posix.dirname(from) !== dir) continue;
    const base = posix.basename(stem(from));
    const re = new RegExp(
      `(?<![\\w./-])${escapeRe(base)}(${escapeRe(posix.extname(from))}|\\.js)(?![\\w-])`,
      'g',
    );
    out = out.replace(re, (_w, ext) => `${posix.basename(stem(to))}${ext}`);
  }
  return out;
}

const TEXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|json|jsonc|md|ya?ml|sh|html|css)$|(^|\/)(Dockerfile|run)$/;

function trackedTextFiles() {
  return git('ls-files', '-z')
    .split('\0')
    .filter((f) => f && TEXT.test(f) && f !== SELF && f !== 'CHANGELOG.md' && f !== 'package-lock.json')
    .filter((f) => existsSync(resolve(ROOT, f)));
}

const todo = [];

// 1. Moves.
for (const [from, to] of Object.entries(RENAMES)) {
  const a = `src/${from}`;
  const b = `src/${to}`;
  const hasA = existsSync(resolve(ROOT, a));
  const hasB = existsSync(resolve(ROOT, b));
  if (hasA && hasB) todo.push(`both ${a} and ${b} exist: merge them by hand`);
  else if (hasA) {
    todo.push(`move ${a} -> ${b}`);
    if (!CHECK) git('mv', a, b);
  } else if (!hasB) todo.push(`neither ${a} nor ${b} exists: drop the entry or find where it went`);
}

// 2. References.
const changed = [];
for (const file of trackedTextFiles()) {
  const path = resolve(ROOT, file);
  const before = readFileSync(path, 'utf8');
  const after = rewriteBareNames(file, rewritePaths(rewriteSpecifiers(file, before)));
  if (after === before) continue;
  changed.push(file);
  todo.push(`rewrite references in ${file}`);
  if (!CHECK) writeFileSync(path, after);
}

// 3. Formatting (imports sort by path).
if (!CHECK && changed.length) {
  const code = changed.filter((f) => /\.(ts|tsx|mts|js|mjs|json)$/.test(f));
  if (code.length) {
    try {
      execFileSync('npx', ['biome', 'check', '--write', ...code], { cwd: ROOT, stdio: 'ignore' });
    } catch {
      // biome exits non-zero on findings it cannot fix; `npx biome check .` shows them
    }
  }
}

for (const line of todo) console.log(line);
console.log(todo.length ? `${todo.length} to do${CHECK ? '' : ' (done)'}` : 'nothing to do');
if (CHECK && todo.length) process.exit(1);
