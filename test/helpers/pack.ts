/**
 * `npm pack` of the package as a partner gets it, from a staging copy of the sources (its
 * node_modules a link to the checkout's), so `prepack` (build, declarations, the bundled
 * better-sqlite3 trimmed) never deletes the dist/ that other test files run at the same
 * time. Used by test/package/package.test.ts and test/image/consumer.test.ts.
 */

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { packageDir } from '../../src/base/package-dir.js';

/** Packs into `work` and returns the tarball's path. */
export function packTarball(work: string, env: NodeJS.ProcessEnv): string {
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const item of [
    'package.json',
    'README.md',
    'LICENSE',
    'CHANGELOG.md',
    'src',
    'scripts',
    'fixtures',
    'scenarios',
    'tsconfig.json',
    'tsconfig.types.json',
    'docs',
  ]) {
    cpSync(join(packageDir, item), join(stage, item), { recursive: true });
  }
  symlinkSync(join(packageDir, 'node_modules'), join(stage, 'node_modules'));
  const packed = execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], {
    cwd: stage,
    encoding: 'utf8',
    env,
  });
  return join(work, packed.trim().split('\n').at(-1)!);
}
