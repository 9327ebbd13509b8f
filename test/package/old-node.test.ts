/**
 * An unsupported Node.js (20, Debian 12's own node): better-sqlite3 13 kills the process with
 * a segmentation fault and no message there, so the built bin (dist/main.js) and the package
 * entry's startSandbox() check the version before the store is opened: one line naming the
 * version found and the lines supported, exit 2 (src/runtime.ts). Run with a real Node 20 of
 * this machine (`which -a node`, /usr/bin/node); without one the test fails and says so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';
import { OLDEST_NODE_MAJOR } from '../../src/runtime.js';

const MAIN = join(packageDir, 'dist', 'main.js');
const INDEX = join(packageDir, 'dist', 'index.js');

/** The nodes of this machine, each with its version: the PATH's (`which -a node`) and the usual places. */
function nodesOfThisMachine(): { path: string; version: string }[] {
  const found = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n');
  const paths = [...new Set([...found, '/usr/bin/node', '/usr/local/bin/node'].filter(Boolean))];
  return paths.flatMap((path) => {
    const r = spawnSync(path, ['-v'], { encoding: 'utf8' });
    return r.status === 0 ? [{ path, version: r.stdout.trim().replace(/^v/, '') }] : [];
  });
}

const nodes = nodesOfThisMachine();
const old = nodes.find((n) => Number.parseInt(n.version, 10) < OLDEST_NODE_MAJOR);
const LOOKED_AT = nodes.map((n) => `${n.path} (${n.version})`).join(', ') || 'none found';

beforeAll(() => {
  if (!existsSync(INDEX)) execFileSync('npm', ['run', 'build'], { cwd: packageDir, stdio: 'ignore' });
}, 120_000);

/** Fails with what to do when this machine has no node older than 22 (Debian 12's nodejs is 20). */
function oldNode(): string {
  expect(
    old,
    `no Node.js older than ${OLDEST_NODE_MAJOR} on this machine, so this test cannot run it (looked at: ${LOOKED_AT}): install one, e.g. Debian 12's nodejs (Node 20): apt-get install nodejs`,
  ).toBeDefined();
  return old!.path;
}

const LINE = (version: string) =>
  `Node.js ${version} is not supported: the sandbox runs on Node.js 22 or 24 (the maintained LTS lines)`;

describe(`an unsupported Node.js (older than ${OLDEST_NODE_MAJOR})`, () => {
  it.each([[[]], [['--port', '0']], [['verify', 'recording.har']], [['mcp', '--url', 'http://127.0.0.1:9']]])(
    'the bin (node dist/main.js %j) exits 2 with one line naming the version and the supported ones',
    (args) => {
      const node = oldNode();
      const r = spawnSync(node, [MAIN, ...args], { encoding: 'utf8', timeout: 15_000 });
      expect(r.signal).toBeNull(); // not the segmentation fault
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`partnership-sandbox: ${LINE(old!.version)}\n`);
      expect(r.status).toBe(2);
    },
  );

  it('the package entry: importing works, startSandbox() rejects with the same line', () => {
    const node = oldNode();
    const script = `import { startSandbox } from ${JSON.stringify(pathToFileURL(INDEX).href)};
try { await startSandbox(); console.log('started'); }
catch (err) { console.log(JSON.stringify({ name: err.name, message: err.message })); }`;
    const r = spawnSync(node, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 15_000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      name: 'StartupError',
      message: `startSandbox: ${LINE(old!.version)}`,
    });
  });

  it('this machine’s Node 24 or 22 is not refused (the check reads the running version)', () => {
    const r = spawnSync(process.execPath, [MAIN, '--version'], { encoding: 'utf8', timeout: 15_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
