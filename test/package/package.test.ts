/**
 * The npm package `partnership-sandbox` (docs/in-your-ci.md) as a partner gets it: `npm pack`,
 * installed from the tarball into a fresh project, then used there: the bin through npx,
 * the types in a strict TypeScript project, a vitest project whose globalSetup calls
 * startSandbox() (examples/node-vitest, the README's example), and two sandboxes in one
 * process.
 *
 * How it stays fast and offline:
 * - The package is packed from a staging copy of the sources (test/helpers/pack.ts), so `prepack`
 *   never deletes the dist/ that other test files run at the same time.
 * - The tarball is installed with `--prefer-offline`, as a partner would, install scripts
 *   and all: its dependencies come from npm's cache (filled by the checkout's own `npm ci`;
 *   the registry only for what is missing). better-sqlite3 comes inside the tarball
 *   (bundleDependencies) without binding.gyp, and loads one of the prebuilt addons it
 *   ships, so nothing is compiled and no install script runs (asserted below; the same
 *   install on the slim images with no toolchain: test/image/consumer.test.ts).
 * - vitest and @types/node, which a partner's project has of its own, are links to the
 *   checkout's.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';
import { packTarball } from '../helpers/pack.js';

const NODE_MODULES = join(packageDir, 'node_modules');
const EXAMPLE = join(packageDir, 'examples', 'node-vitest');
const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };

/** The environment without the sandbox's own settings, so each run is configured by its flags only. */
const cleanEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(PORT|HOST|SANDBOX_|FORCE_COLOR)/.test(name)),
  ),
  NO_COLOR: '1',
};

let work: string;
let project: string;
let tarball: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sandbox-package-'));
  tarball = packTarball(work, cleanEnv);

  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'partner-project', private: true, type: 'module' }),
  );
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--silent', tarball], {
    cwd: project,
    env: cleanEnv,
    stdio: 'ignore',
  });
  mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
  symlinkSync(join(NODE_MODULES, 'vitest'), join(project, 'node_modules', 'vitest'));
  symlinkSync(join(NODE_MODULES, '@types', 'node'), join(project, 'node_modules', '@types', 'node'));
  for (const file of readdirSync(EXAMPLE)) {
    if (file !== 'package.json') cpSync(join(EXAMPLE, file), join(project, file));
  }
}, 240_000);

afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (work) rmSync(work, { recursive: true, force: true });
});

function run(
  command: string,
  args: string[],
  timeout = 60_000,
): { status: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(command, args, {
      cwd: project,
      env: cleanEnv,
      encoding: 'utf8',
      timeout,
      stdio: 'pipe',
    });
    return { status: 0, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { status: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('the tarball', () => {
  it("holds the bundles, the declarations, Swagger UI, the manual's screenshots, fixtures, presets, README, LICENSE, CHANGELOG and the bundled better-sqlite3, and nothing else", () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((f) => f.replace(/^package\//, ''))
      .sort();
    for (const needed of [
      'package.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      'dist/main.js',
      'dist/cli.js',
      'dist/index.js',
      'dist/openapi-validator.js',
      'dist/mcp.js',
      'dist/guides.json',
      'dist/types/index.d.ts',
      'dist/types/start.d.ts',
      'dist/types/client/control-client.d.ts',
      'fixtures/partners.json',
      'fixtures/taxonomy.json',
      'scenarios/flaky-network.json',
      'dist/swagger-ui/swagger-ui-bundle.js',
      'dist/swagger-ui/swagger-ui.css',
      'docs/screenshots/journal.png', // the served manual shows them (/docs/guides/screenshots/)
      'node_modules/better-sqlite3/package.json',
      'node_modules/better-sqlite3/lib/index.js',
      'node_modules/better-sqlite3/prebuilds/linux-x64.node',
      'node_modules/better-sqlite3/prebuilds/linuxmusl-arm64.node',
      'node_modules/better-sqlite3/prebuilds/darwin-arm64.node',
      'node_modules/better-sqlite3/prebuilds/win32-x64.node',
    ]) {
      expect(files).toContain(needed);
    }
    const allowed =
      /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/(main|cli|index|mcp|openapi-validator)\.js|dist\/guides\.json|dist\/types\/.+\.d\.ts|dist\/swagger-ui\/(swagger-ui-bundle\.js|swagger-ui\.css|LICENSE|NOTICE)|docs\/screenshots\/[a-z0-9-]+\.png|fixtures\/.+\.json|scenarios\/.+\.json|node_modules\/better-sqlite3\/(package\.json|LICENSE|README\.md|lib\/.+\.js|prebuilds\/[a-z0-9-]+\.node))$/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    // better-sqlite3 bundled (package.json says so in the tarball only: postpack puts the
    // checkout's back), with nothing that would make npm build: no binding.gyp, no C sources.
    const packed = JSON.parse(
      execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], { encoding: 'utf8' }),
    );
    expect(packed.bundleDependencies).toEqual(['better-sqlite3']);
    expect(
      JSON.parse(readFileSync(join(work, 'stage', 'package.json'), 'utf8')).bundleDependencies,
    ).toBeUndefined();
    expect(files.filter((f) => /^node_modules\/better-sqlite3\/(binding\.gyp|src\/|deps\/)/.test(f))).toEqual(
      [],
    );
    const size = statSync(tarball).size;
    console.log(`tarball: ${(size / 1024).toFixed(0)} KiB, ${files.length} files`);
    // Eight prebuilt addons (about 2 MB each, which hardly compress) are most of it; the
    // manual's screenshots add about 1 MB, and record's validator and upstream client
    // (dist/openapi-validator.js: openapi-backend, ajv, undici) about 0.5 MB.
    expect(size).toBeLessThan(13 * 1024 * 1024);
  });
});

describe('the install', () => {
  it('compiles nothing and runs no install script: better-sqlite3 is bundled, with its prebuilt addons and no binding.gyp', () => {
    const sqlite = join(project, 'node_modules', 'partnership-sandbox', 'node_modules', 'better-sqlite3');
    expect(existsSync(join(sqlite, 'build'))).toBe(false);
    expect(existsSync(join(sqlite, 'binding.gyp'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', 'better-sqlite3'))).toBe(false);
    // swagger-ui-dist (and with it @scarf/scarf's install-time analytics) is not installed.
    expect(existsSync(join(project, 'node_modules', 'swagger-ui-dist'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', '@scarf'))).toBe(false);
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    expect(
      Object.entries(lock.packages)
        .filter(([, p]) => p.hasInstallScript)
        .map(([name]) => name),
    ).toEqual([]);
    expect(readdirSync(join(sqlite, 'prebuilds'))).toContain(`${process.platform}-${process.arch}.node`);
    const probe = run(process.execPath, [
      '--input-type=module',
      '-e',
      "import { createRequire } from 'node:module'; const require = createRequire(import.meta.resolve('partnership-sandbox')); const Database = require('better-sqlite3'); console.log(new Database(':memory:').prepare('select sqlite_version() v').get().v)",
    ]);
    expect(probe.stderr).toBe('');
    expect(probe.stdout).toMatch(/^3\.\d+\.\d+/);
  });
});

describe('the bundles', () => {
  it('leave the manual (README.md and docs/ as HTML, for /docs/guides/) to dist/guides.json, read on the first request for a guide, and carry no marked', () => {
    const dist = join(project, 'node_modules', 'partnership-sandbox', 'dist');
    const guides = JSON.parse(readFileSync(join(dist, 'guides.json'), 'utf8'));
    expect(guides.pages.map((p: { name: string }) => p.name)).toContain('where-the-spec-is-silent');
    expect(JSON.stringify(guides)).toMatch(/id=\\?"where-the-spec-is-silent\\?"/);
    for (const bundle of ['cli.js', 'index.js']) {
      const text = readFileSync(join(dist, bundle), 'utf8');
      expect(text, bundle).not.toMatch(/id=\\?"where-the-spec-is-silent\\?"/);
      expect(text, bundle).not.toContain('walkTokens');
    }
  });
});

describe('npx partnership-sandbox mcp', () => {
  it('the bin runs the MCP server bundle (dist/mcp.js), which needs no package of its own: usage, and the tools listed', () => {
    const bin = join(project, 'node_modules', '.bin', 'partnership-sandbox');
    const help = run(bin, ['mcp', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: partnership-sandbox mcp --url URL [--admin-token T | --token T]');
    expect(existsSync(join(project, 'node_modules', '@modelcontextprotocol'))).toBe(false);
    const requests = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'pack', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const out = execFileSync(bin, ['mcp', '--url', 'http://127.0.0.1:4010'], {
      cwd: project,
      env: cleanEnv,
      encoding: 'utf8',
      timeout: 30_000,
      input: `${requests.map((r) => JSON.stringify(r)).join('\n')}\n`,
    });
    const listed = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((a) => a.id === 2);
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toContain('listRequests');
  });
});

describe('npx partnership-sandbox', () => {
  interface Started {
    child: ChildProcess;
    url: string;
    stdout: () => string;
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  }

  /** Spawns the command in its own process group and resolves with the URL of its first stdout line. */
  async function start(command: string, args: string[]): Promise<Started> {
    const child = spawn(command, args, {
      cwd: project,
      env: cleanEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let stdout = '';
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
    });
    const firstLine = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line on stdout in 30 s: ${stdout}`)), 30_000);
      const check = () => {
        if (!stdout.includes('\n')) return;
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(stdout.slice(0, stdout.indexOf('\n')));
      };
      child.stdout!.on('data', check);
    });
    const url = /http:\/\/127\.0\.0\.1:(\d+)/.exec(firstLine)?.[0];
    expect(url, firstLine).toBeDefined();
    expect(url).not.toMatch(/:0$/);
    return { child, url: url!, stdout: () => stdout, exited };
  }

  it('--port 0: the first line on stdout has the URL, health answers, Ctrl-C drains and stops it', async () => {
    const { child, url, stdout, exited } = await start('npx', ['partnership-sandbox', '--port', '0']);
    const health = await fetch(`${url}/__sandbox/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', store: { writable: true, problem: null } });
    // The served manual shows its screenshots from the installed package.
    const shot = await fetch(`${url}/docs/guides/screenshots/journal.png`);
    expect(shot.status).toBe(200);
    expect(shot.headers.get('content-type')).toBe('image/png');
    // And its pages, read from dist/guides.json on this first request for one.
    const page = await fetch(`${url}/docs/guides/where-the-spec-is-silent`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('id="where-the-spec-is-silent"');
    // Ctrl-C in a terminal signals the whole foreground process group: npx, its shell, the sandbox.
    process.kill(-child.pid!, 'SIGINT');
    await exited;
    expect(stdout()).toMatch(/"msg":"stopped","signal":"SIGINT"/);
    await expect(fetch(`${url}/__sandbox/health`)).rejects.toThrow();
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'the bin (node_modules/.bin) drains on %s and exits 0',
    async (signal) => {
      const bin = join(project, 'node_modules', '.bin', 'partnership-sandbox');
      const { child, url, exited } = await start(bin, ['--port', '0']);
      expect((await fetch(`${url}/__sandbox/health`)).status).toBe(200);
      child.kill(signal);
      expect(await exited).toEqual({ code: 0, signal: null });
      await expect(fetch(`${url}/__sandbox/health`)).rejects.toThrow();
    },
  );

  it('--help prints the usage and --version the package version, both exit 0', () => {
    const help = run('npx', ['partnership-sandbox', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: partnership-sandbox \[--port N\] \[--host H\] \[--db PATH/);
    for (const flag of ['--port', '--host', '--db', '--fixtures', '--scenarios', '--version']) {
      expect(help.stdout).toContain(flag);
    }
    const version = run('npx', ['partnership-sandbox', '--version']);
    expect(version).toMatchObject({ status: 0, stdout: `${pkg.version}\n` });
  });

  it('a bad flag exits 2 with one line on stderr naming it', () => {
    const bad = run('npx', ['partnership-sandbox', '--prot', '1']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('partnership-sandbox: unknown option --prot (see --help)\n');
    expect(bad.stderr).not.toContain('Usage');
  });
});

describe('the package API in a partner project', () => {
  it('type-checks under strict TypeScript (declarations and the example, skipLibCheck off)', () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `import { ControlPlaneError, createControlClient, type RunningSandbox, startSandbox } from 'partnership-sandbox';

const sandbox: RunningSandbox = await startSandbox({ port: 0, strictIdempotency: true });
const control = createControlClient(sandbox.url, { adminToken: 'token' });
const clock: { now: string; offset_seconds: number } = await control.clock.advance(60);
const armed: number = (await control.scenarios.arm({ scenario: 'latency', value: 5, account_id: 'a' })).armed.id;
const xml: string = await control.report('pa', 'junit');
const checks: number = (await control.report('pa')).checks.length;
try {
  await control.accounts.get('acct_x');
} catch (e) {
  if (e instanceof ControlPlaneError) console.log(e.status satisfies number, e.body);
}
// @ts-expect-error seconds is a number
await control.clock.advance('60');
// @ts-expect-error not an option of startSandbox
await startSandbox({ prot: 1 });
// @ts-expect-error page_id is required
await control.variants.add('acct', { name: 'x' });
console.log(clock, armed, xml, checks);
await sandbox.stop();
`,
    );
    writeFileSync(
      join(project, 'tsconfig.check.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          types: ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['consumer.ts', 'global-setup.ts', 'partner.test.ts', 'vitest.config.ts'],
      }),
    );
    const tsc = run(
      process.execPath,
      [join(NODE_MODULES, 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.check.json'],
      120_000,
    );
    expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);

  it("the README shows the example's global setup as it is", () => {
    const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
    expect(readme).toContain(readFileSync(join(EXAMPLE, 'global-setup.ts'), 'utf8').trimEnd());
  });

  it('a vitest project whose globalSetup calls startSandbox() runs the partner test (examples/node-vitest)', () => {
    const vitest = run(process.execPath, [
      join(project, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--root',
      project,
    ]);
    expect(vitest.stdout).toMatch(/Tests\s+3 passed/);
    expect(vitest.status).toBe(0);
  }, 90_000);

  it('two startSandbox() in one process keep separate state, and stop() frees both ports', () => {
    writeFileSync(
      join(project, 'two.mjs'),
      `import { createServer } from 'node:net';
const t0 = performance.now();
const { startSandbox } = await import('partnership-sandbox');
const t1 = performance.now();
const a = await startSandbox();
const t2 = performance.now();
const b = await startSandbox();
const t3 = performance.now();
await a.control.partners.create({ parent_account_id: 'pa_only_in_a' });
await a.control.clock.advance(120);
const seededInB = await b.control.partners.seedMappings('pa_only_in_a', []).then(() => 'found', (e) => e.status);
const clocks = [(await a.control.clock.get()).offset_seconds, (await b.control.clock.get()).offset_seconds];
await Promise.all([a.stop(), b.stop()]);
const free = (port) => new Promise((resolve) => {
  const s = createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
});
console.log(JSON.stringify({
  ports: [a.port, b.port], seededInB, clocks, free: [await free(a.port), await free(b.port)],
  importMs: t1 - t0, firstStartMs: t2 - t1, secondStartMs: t3 - t2,
}));
`,
    );
    const out = run(process.execPath, ['two.mjs']);
    expect(out.stderr).toBe('');
    const result = JSON.parse(out.stdout);
    console.log(
      `import ${result.importMs.toFixed(0)} ms; startSandbox() to resolved: first ${result.firstStartMs.toFixed(0)} ms, second ${result.secondStartMs.toFixed(0)} ms`,
    );
    expect(result.ports[0]).not.toBe(result.ports[1]);
    expect(result.seededInB).toBe(404);
    expect(result.clocks).toEqual([120, 0]);
    expect(result.free).toEqual([true, true]);
  });
});
