// Another git revision of this repository, built beside the working tree, for a comparison in
// the same run (bench/compare.mjs, bench/instructions.mjs): a detached git worktree in a temp
// dir, its dependencies installed (`npm ci --prefer-offline`, or the working tree's
// node_modules linked when the two package-lock.json files are the same bytes), then
// `npm run build`. The worktree is removed when the process exits.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './lib.mjs';

const git = (...args) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();

/** The newest tag reachable from HEAD (the last release), or undefined when there is none. */
export function lastTag() {
  try {
    return git('describe', '--tags', '--abbrev=0');
  } catch {
    return undefined;
  }
}

/**
 * Builds `rev` (a commit, a tag, `HEAD~1`) in a temp worktree and returns
 * `{ rev, commit, dir, main }`: `main` is its bin (dist/main.js), run like this tree's.
 */
export function buildRevision(rev, log = (line) => process.stderr.write(`${line}\n`)) {
  const commit = git('rev-parse', '--verify', `${rev}^{commit}`);
  const dir = mkdtempSync(join(tmpdir(), `sandbox-rev-${commit.slice(0, 8)}-`));
  log(`building ${rev} (${commit.slice(0, 12)}) in ${dir}`);
  git('worktree', 'add', '--detach', '--force', dir, commit);
  // An interrupted run removes it too.
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
  process.once('exit', () => {
    try {
      git('worktree', 'remove', '--force', dir);
    } catch {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  const run = (cmd, args) =>
    execFileSync(cmd, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], env: process.env });
  const lock = (d) => readFileSync(join(d, 'package-lock.json'), 'utf8');
  if (existsSync(join(root, 'node_modules')) && lock(dir) === lock(root)) {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  } else {
    run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund']);
  }
  run('npm', ['run', 'build']);
  return { rev, commit, dir, main: join(dir, 'dist', 'main.js') };
}
