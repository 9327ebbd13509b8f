/**
 * A real full disk (issue 25, item 4), where this runs as root on Linux: the built command
 * line on a 3 MB tmpfs refuses writes with 503 store_not_writable, logs once, is killed
 * (-9) and restarted, loses nothing it acknowledged, and takes writes again once space is
 * freed. A release test (it starts dist/main.js); test/state/store-full.test.ts checks the same
 * rules in process with SQLite's max_page_count and query_only.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';
import { storeNotWritableMessage } from '../../src/contract/api/messages.js';
import { DEMO, REGISTER, registerBody } from '../helpers/harness.js';

const FULL = { code: 'SQLITE_FULL', cause: 'the disk is full' };

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const done of cleanups.splice(0).reverse()) await done();
});

/** Root on Linux can mount a tmpfs: the real thing, through a listening server, with a restart. */
const canMount = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'sandbox-tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

/** `node dist/main.js` (built by the tests' global setup) on a free port, its stdout kept. */
async function startChild(db: string) {
  const proc = spawn(process.execPath, [join(packageDir, 'dist', 'main.js')], {
    cwd: packageDir,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SANDBOX_DB: db, SANDBOX_LOG: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => {
    out += String(d);
  });
  proc.stderr.on('data', (d) => {
    err += String(d);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /"msg":"sandbox listening".*?"url":"([^"]+)"/.exec(out);
      if (match) {
        clearInterval(timer);
        resolve(match[1]!);
      } else if (proc.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`exited: ${err}`));
      }
    }, 20);
  });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  return {
    proc,
    url,
    exited,
    log: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
  };
}

describe.runIf(canMount)('a real full disk: a 3 MB tmpfs, the CLI, kill -9', () => {
  it('refuses writes with 503, logs once, loses nothing acknowledged, and takes writes again once space is freed', async () => {
    const mountDir = mkdtempSync(join(tmpdir(), 'sandbox-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mountDir]);
    cleanups.push(() => {
      execFileSync('umount', ['-l', mountDir]);
      rmSync(mountDir, { recursive: true, force: true });
    });
    mkdirSync(join(mountDir, 'data'));
    const db = join(mountDir, 'data', 'sandbox.db');
    // Room that can be freed later.
    writeFileSync(join(mountDir, 'ballast'), Buffer.alloc(512 * 1024));
    let child = await startChild(db);
    const call = async (
      method: string,
      path: string,
      init: { headers?: Record<string, string>; body?: string } = {},
    ) => {
      const res = await fetch(`${child.url}${path}`, { method, ...init });
      // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
      return { status: res.status, body: (await res.json()) as any };
    };
    const token = (
      await call('POST', '/oauth/token', {
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
      })
    ).body.access_token as string;
    const headers = {
      Authorization: `Bearer ${token}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
      'Content-Type': 'application/json',
    };
    const register = () =>
      call('POST', REGISTER, {
        headers,
        body: JSON.stringify(registerBody({ store_identifier: `https://s.example.com/${'p'.repeat(300)}` })),
      });
    const acknowledged: string[] = [];
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 2000 && !refused; i++) {
      const res = await register();
      if (res.status === 200) acknowledged.push(res.body.data.account_id);
      else refused = res;
    }
    expect(refused?.status).toBe(503);
    expect(refused?.body.error).toEqual({
      code: 'store_not_writable',
      details: { setting: 'SANDBOX_DB', sqlite_code: 'SQLITE_FULL' },
    });
    expect(refused?.body.message).toBe(storeNotWritableMessage(db, FULL));
    expect(acknowledged.length).toBeGreaterThan(5);
    for (let i = 0; i < 5; i++) expect((await register()).status).toBe(503);
    const down = await call('GET', '/__sandbox/health');
    expect(down.status).toBe(200);
    expect(down.body.store.writable).toBe(false);
    // One line for the six refusals, no stack trace, nothing "unhandled".
    const errors = child.log().filter((l) => l.level === 'error');
    expect(errors.map((l) => l.msg)).toEqual(['store cannot take writes']);
    expect(errors[0]).not.toHaveProperty('stack');

    rmSync(join(mountDir, 'ballast'));
    expect((await call('GET', '/__sandbox/health')).body.store).toEqual({ writable: true, problem: null });
    const after = await register();
    expect(after.status).toBe(200);
    acknowledged.push(after.body.data.account_id);

    // kill -9 and a restart on the same store: every acknowledged account is there.
    child.proc.kill('SIGKILL');
    await child.exited;
    child = await startChild(db);
    for (const id of acknowledged) expect((await call('GET', `/__sandbox/accounts/${id}`)).status).toBe(200);
  });

  it('start-up on a disk already full exits 2 with one line naming SANDBOX_DB, the path, the user and the full disk, no stack trace (a new store, and a store that has data)', () => {
    const mountDir = mkdtempSync(join(tmpdir(), 'sandbox-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mountDir]);
    cleanups.push(() => {
      execFileSync('umount', ['-l', mountDir]);
      rmSync(mountDir, { recursive: true, force: true });
    });
    const start = (db: string) => {
      try {
        execFileSync(process.execPath, [join(packageDir, 'dist', 'main.js')], {
          cwd: packageDir,
          env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SANDBOX_DB: db },
          stdio: 'pipe',
          timeout: 20_000,
        });
        return { status: 0, stderr: '' };
      } catch (e) {
        const err = e as { status: number; stderr: Buffer };
        return { status: err.status, stderr: String(err.stderr) };
      }
    };
    // A store that opens but whose fixtures do not fit (the first start on a 256 KiB disk)...
    const first = start(join(mountDir, 'new.db'));
    // ...and a store with data on a disk filled up since.
    try {
      writeFileSync(join(mountDir, 'ballast'), Buffer.alloc(256 * 1024));
    } catch {
      // ENOSPC: the failed start filled it already
    }
    const again = start(join(mountDir, 'new.db'));
    for (const [what, run] of [
      ['new', first],
      ['again', again],
    ] as const) {
      expect(run.status, what).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines, what).toHaveLength(1);
      expect(lines[0], what).toMatch(
        new RegExp(
          `^partnership-sandbox: SANDBOX_DB=${join(mountDir, 'new.db')}: cannot (open|write to) the store as .*uid 0.*the disk holding ${mountDir} is full.*SQLITE_FULL`,
        ),
      );
      expect(run.stderr, what).not.toMatch(/\s+at /);
    }
  });
});
