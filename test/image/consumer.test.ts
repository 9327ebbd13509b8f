/**
 * A partner's own project installs the packed tarball from its lockfile on the slim images,
 * which have no python3, make or compiler (SANDBOX.md section 9: "needs no compiler"), then
 * starts the sandbox: `npm ci`, then `npm install` from the same lockfile, on
 * node:22-bookworm-slim and node:24-bookworm-slim (stand-ins here when they cannot be
 * pulled: scripts/docker-env.sh says so). Before better-sqlite3 was bundled, npm ran an
 * implicit `node-gyp rebuild` (the lockfile does not keep its `gypfile: false`) and the
 * install failed with `gyp ERR! not ok`.
 *
 * The lockfile is made here, as a partner's would be (`npm install --package-lock-only`
 * against the tarball); the container installs from the registry, so it runs with the
 * host's network.
 */
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packTarball } from '../helpers/pack.js';

const exec = promisify(execFile);
const RUN = process.env.SANDBOX_IMAGE_TEST_RUN ?? String(process.pid);
const LABEL = `sandbox-image-test=${RUN}`;
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(PORT|HOST|SANDBOX_)/.test(name))),
  NO_COLOR: '1',
};

/** What the partner's project runs once installed: startSandbox() and the bin, each to a healthy answer. */
const CHECK = `import { spawn } from 'node:child_process';
import { startSandbox } from 'partnership-sandbox';
const sandbox = await startSandbox();
console.log('startSandbox health', (await fetch(sandbox.url + '/__sandbox/health')).status);
await sandbox.stop();
const child = spawn('node_modules/.bin/partnership-sandbox', ['--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    const line = out.split('\\n');
    if (line.length > 1) resolve(/https?:\\/\\/\\S+/.exec(line[0])?.[0]);
  });
  child.on('exit', (code) => reject(new Error('the bin exited ' + code)));
});
console.log('bin health', (await fetch(url + '/__sandbox/health')).status);
const exited = new Promise((resolve) => child.on('exit', resolve));
child.kill('SIGTERM');
console.log('bin exit', await exited);
`;

/** In the container: npm ci, the checks, then npm install from the same lockfile and the checks again. */
const SCRIPT = `set -e
for tool in python3 make cc gcc g++; do
  if command -v $tool; then echo "this base has $tool: the test would prove nothing"; exit 3; fi
done
cp -a /src /p && cd /p
npm ci --no-audit --no-fund
test ! -e node_modules/@scarf && test ! -e node_modules/swagger-ui-dist
test ! -e node_modules/partnership-sandbox/node_modules/better-sqlite3/binding.gyp
test ! -e node_modules/partnership-sandbox/node_modules/better-sqlite3/build
node check.mjs
rm -rf node_modules
npm install --no-audit --no-fund
node check.mjs
echo consumer-ok`;

let work: string;
let project: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sandbox-consumer-'));
  const tarball = packTarball(work, env);
  project = join(work, 'project');
  mkdirSync(project);
  copyFileSync(tarball, join(project, basename(tarball)));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify(
      {
        name: 'partner-slim-project',
        private: true,
        type: 'module',
        dependencies: { 'partnership-sandbox': `file:./${basename(tarball)}` },
      },
      null,
      2,
    ),
  );
  writeFileSync(join(project, 'check.mjs'), CHECK);
  execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--silent'], {
    cwd: project,
    env,
    stdio: 'ignore',
  });
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.each(['22', '24'])(
  "a partner's project on node:%s-bookworm-slim (no python3, make or compiler)",
  (line) => {
    it('npm ci and npm install from its lockfile pass, compile nothing, run no analytics, and the sandbox starts', async () => {
      let out: string;
      try {
        const r = await exec(
          'docker',
          [
            'run',
            '--rm',
            '--label',
            LABEL,
            '--network',
            'host',
            '-v',
            `${project}:/src:ro`,
            `node:${line}-bookworm-slim`,
            'bash',
            '-c',
            SCRIPT,
          ],
          { maxBuffer: 64 << 20, timeout: 600_000 },
        );
        out = r.stdout + r.stderr;
      } catch (e) {
        // Not err.message: it quotes the command, script included.
        const err = e as { stdout?: string; stderr?: string; code?: number | string };
        out = `exit ${err.code}\n${err.stdout ?? ''}${err.stderr ?? ''}`;
      }
      if (!out.includes('consumer-ok')) console.error(out.slice(-4000));
      expect(out).not.toMatch(/gyp (ERR|info)/);
      expect(out.match(/startSandbox health 200/g)).toHaveLength(2);
      expect(out.match(/bin health 200/g)).toHaveLength(2);
      expect(out.match(/bin exit 0/g)).toHaveLength(2);
      expect(out).toContain('consumer-ok');
    }, 600_000);
  },
);
