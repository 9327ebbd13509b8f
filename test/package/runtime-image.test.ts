/**
 * The Docker runtime stage, proven without a Docker engine: the Dockerfile's start
 * command is the one package.json and the build agree on, and a copy holding only what
 * the runtime stage copies, with production dependencies only (`npm ci --omit=dev`),
 * starts the built entry point and answers health.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function runtimeStage(): string {
  const start = dockerfile.indexOf('AS runtime');
  expect(start).toBeGreaterThan(-1);
  return dockerfile.slice(start);
}

function dockerCmd(): string[] {
  const match = /^CMD\s+(\[.*\])\s*$/m.exec(runtimeStage());
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!);
}

describe('Dockerfile', () => {
  it('starts the same entry point as npm start and package.json main', () => {
    const cmd = dockerCmd();
    expect(cmd.join(' ')).toBe(pkg.scripts.start);
    expect(cmd[1]).toBe(pkg.bin['partnership-sandbox']);
    // the build (scripts/build.mjs) writes that file, a launcher that turns on the compile
    // cache and loads the bundle of src/main.ts beside it (dist/cli.js)
    const build = readFileSync(join(root, 'scripts', 'build.mjs'), 'utf8');
    expect(pkg.scripts.build).toBe('node scripts/build.mjs');
    expect(build).toContain("entryPoints: ['src/main.ts'], outfile: 'dist/cli.js'");
    expect(build).toContain(`new URL('../${cmd[1]}', import.meta.url)`);
    expect(build).toContain("await import('./cli.js');");
  });

  it('is multi-stage, non-root, listens on 0.0.0.0:4010 and has a HEALTHCHECK on /__sandbox/health', () => {
    expect(dockerfile).toMatch(/^FROM .+ AS build$/m);
    const runtime = runtimeStage();
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/HOST=0\.0\.0\.0/);
    expect(runtime).toMatch(/^EXPOSE 4010$/m);
    expect(runtime).toMatch(/^HEALTHCHECK [\s\S]*\/__sandbox\/health/m);
    // the build stage runs the same install and build commands as CI
    expect(dockerfile).toMatch(/RUN npm ci/);
    expect(dockerfile).toMatch(/npm run build/);
  });

  it("sets glibc's trim threshold, so the heap scrypt frees (16 MiB) goes back to the system (docs/performance.md)", () => {
    expect(runtimeStage()).toMatch(/^\s+MALLOC_TRIM_THRESHOLD_=4194304$/m);
  });
});

describe('runtime stage: production dependencies only', () => {
  let dir: string;
  let child: ChildProcess | undefined;

  beforeAll(() => {
    if (!existsSync(join(root, 'dist', 'main.js')))
      execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
    dir = mkdtempSync(join(tmpdir(), 'sandbox-runtime-'));
    // exactly what the runtime stage copies
    for (const item of ['package.json', 'package-lock.json', 'dist', 'fixtures', 'scenarios']) {
      expect(runtimeStage()).toContain(item);
      cpSync(join(root, item), join(dir, item), { recursive: true });
    }
    execFileSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts=false'], {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, npm_config_build_from_source: 'true' },
    });
  }, 600_000);

  afterAll(() => {
    child?.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has no dev dependency installed', () => {
    for (const dev of Object.keys(pkg.devDependencies)) {
      expect(existsSync(join(dir, 'node_modules', dev)), dev).toBe(false);
    }
  });

  it('starts the built entry point with the Dockerfile command and answers health', async () => {
    const [cmd, ...args] = dockerCmd();
    child = spawn(cmd === 'node' ? process.execPath : cmd!, args, {
      cwd: dir,
      env: { ...process.env, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', SANDBOX_LOG: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /on (http:\/\/[^\s]+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child!.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const res = await fetch(`${url}/__sandbox/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', store: { writable: true, problem: null } });
    // The dashboard's assets are in the bundle: served with no dev dependency (esbuild) installed.
    const js = await fetch(`${url}/__sandbox/ui/app.js`);
    expect(js.status).toBe(200);
    expect(await js.text()).toContain('partnership-sandbox.admin-token');
    const css = await fetch(`${url}/__sandbox/ui/app.css`);
    expect(css.status).toBe(200);
    expect(await css.text()).toContain('.scenario-card');
    // The bundle keeps zod's English messages (scripts/build.mjs drops the other locales).
    const grant = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=sandbox-demo-client&client_secret=sandbox-demo-secret',
    });
    const { access_token } = (await grant.json()) as { access_token: string };
    const invalid = await fetch(`${url}/v1/accounts/register/partnership`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${access_token}`,
        'X-Platform-Parent-Account-Id': 'pa_demo_platform',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ brand: 5 }),
    });
    expect(invalid.status).toBe(400);
    const body = (await invalid.json()) as {
      error: { details: { fields: { field: string; message: string }[] } };
    };
    expect(body.error.details.fields[0]).toEqual({
      field: 'brand',
      message: 'expected string, received number',
    });
    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child!.once('exit', resolve));
    expect(code).toBe(0);
  }, 30_000);
});
