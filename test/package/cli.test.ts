/**
 * The built command line (`node dist/main.js`, the package's bin) as a process:
 * - start-up failures a user can fix stop it with one line on stderr naming the setting
 *   and the cause, exit code 2, no stack trace (a store path that cannot be opened also
 *   names SANDBOX_DB, the path and the user: docs/in-your-ci.md);
 * - SIGTERM with stalled clients: idle and stalled sockets are closed, the request in
 *   flight finishes with 200, the store is closed cleanly, exit 0, well before 10 s.
 */
import { type ChildProcess, execFileSync, execSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { packageDir } from '../../src/base/package-dir.js';
import { loadConfig } from '../../src/core/config.js';
import { hashSecretSync } from '../../src/domain/secrets.js';
import { openDb } from '../../src/store/db.js';
import { createHarness, DEMO } from '../helpers/harness.js';

const MAIN = join(packageDir, 'dist', 'main.js');
const USER = `user ${userInfo().username} (uid ${process.getuid!()})`;
const IS_ROOT = process.getuid!() === 0;

beforeAll(() => {
  if (!existsSync(MAIN)) execSync('npm run build', { cwd: packageDir, stdio: 'ignore' });
}, 120_000);

/** The environment without the sandbox's own settings: each run is configured here only. */
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !/^(PORT|HOST|SANDBOX_)/.test(name)),
);

const dirs: string[] = [];
const procs: ChildProcess[] = [];
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const undo of cleanups.splice(0)) undo();
});
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
  dirs.push(dir);
  return dir;
}

/** Runs the CLI to its exit (start-up failures exit at once). */
function runMain(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    env: { ...baseEnv, SANDBOX_LOG: 'silent', ...env },
    encoding: 'utf8',
    timeout: 15_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Exit 2, one line on stderr (no stack trace) that matches `message`, nothing on stdout. */
function expectStartupFailure(r: ReturnType<typeof runMain>, message: RegExp) {
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(/^partnership-sandbox: /);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).toBe('');
  expect(r.status).toBe(2);
}

const re = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('start-up failures: one line naming the setting and the cause, exit 2', () => {
  it('a store path in a folder that does not exist (SANDBOX_DB)', () => {
    const path = join(tempDir(), 'missing', 'sandbox.db');
    expectStartupFailure(
      runMain([], { SANDBOX_DB: path }),
      new RegExp(
        `SANDBOX_DB=${re(path)}: cannot open the store as ${re(USER)}: the folder ${re(join(path, '..'))} does not exist`,
      ),
    );
  });

  it('a folder as the store path (--db)', () => {
    const dir = tempDir();
    expectStartupFailure(
      runMain(['--db', dir]),
      new RegExp(`SANDBOX_DB=${re(dir)}: cannot open the store as ${re(USER)}: it is a folder, not a file`),
    );
  });

  it('a file that is not SQLite', () => {
    const path = join(tempDir(), 'notes.txt');
    writeFileSync(path, 'These are my notes, not a database. '.repeat(20));
    expectStartupFailure(
      runMain(['--db', path]),
      new RegExp(
        `SANDBOX_DB=${re(path)}: cannot open the store as ${re(USER)}: the file is not a SQLite database`,
      ),
    );
  });

  it('a path under a read-only place (/proc): the file cannot be created', () => {
    expectStartupFailure(
      runMain(['--db', '/proc/sandbox.db']),
      new RegExp(
        `SANDBOX_DB=/proc/sandbox\\.db: cannot open the store as ${re(USER)}: the file cannot be created: check that this user can write to /proc`,
      ),
    );
  });

  it(`a folder this user cannot write to (${IS_ROOT ? 'root ignores permissions: chattr +i makes it immutable' : 'chmod 555'})`, () => {
    const dir = join(tempDir(), 'locked');
    mkdirSync(dir);
    if (IS_ROOT) {
      execFileSync('chattr', ['+i', dir]);
      cleanups.push(() => execFileSync('chattr', ['-i', dir]));
    } else {
      chmodSync(dir, 0o555);
      cleanups.push(() => chmodSync(dir, 0o755));
    }
    const path = join(dir, 'sandbox.db');
    expectStartupFailure(
      runMain(['--db', path]),
      new RegExp(
        `SANDBOX_DB=${re(path)}: cannot open the store as ${re(USER)}: the file cannot be created: check that this user can write to ${re(dir)}`,
      ),
    );
  });

  it(`a store file this user cannot write, in a folder it can (${IS_ROOT ? 'chattr +i on the file' : 'chmod 444'}): SQLite would open it read-only`, () => {
    const dir = tempDir();
    const path = join(dir, 'sandbox.db');
    // A sound store, migrated (so nothing needs writing until the sandbox seeds it).
    openDb(path, { hashSecret: hashSecretSync }).close();
    if (IS_ROOT) {
      execFileSync('chattr', ['+i', path]);
      cleanups.push(() => execFileSync('chattr', ['-i', path]));
    } else {
      chmodSync(path, 0o444);
      cleanups.push(() => chmodSync(path, 0o644));
    }
    expectStartupFailure(
      runMain(['--db', path]),
      new RegExp(
        `SANDBOX_DB=${re(path)}: cannot open the store as ${re(USER)}: the file cannot be opened for writing: check its permissions and those of ${re(dir)} \\(attempt to write a readonly database, SQLITE_READONLY\\)`,
      ),
    );
  });

  describe('a port in use', () => {
    let blocker: Server;
    let port: number;
    beforeAll(async () => {
      blocker = createServer();
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      port = (blocker.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

    it('names PORT and the address (env)', () => {
      expectStartupFailure(
        runMain([], { PORT: String(port) }),
        new RegExp(`PORT \\(--port\\)=${port}: 127\\.0\\.0\\.1:${port} is in use by another process`),
      );
    });

    it('names it with --port too', () => {
      expectStartupFailure(
        runMain(['--port', String(port)]),
        new RegExp(`PORT \\(--port\\)=${port}: .* is in use`),
      );
    });
  });

  it('a fixtures folder that does not exist (SANDBOX_FIXTURES)', () => {
    const dir = join(tempDir(), 'no-fixtures');
    expectStartupFailure(
      runMain([], { SANDBOX_FIXTURES: dir }),
      new RegExp(`SANDBOX_FIXTURES \\(--fixtures\\)=${re(dir)}: no such folder`),
    );
  });

  it('a fixtures folder without the fixture files names the file it looked for', () => {
    const dir = tempDir();
    expectStartupFailure(
      runMain(['--fixtures', dir]),
      new RegExp(`${re(join(dir, 'partners.json'))} cannot be read`),
    );
  });

  it('a scenarios path that is a file (--scenarios)', () => {
    const file = join(tempDir(), 'preset.json');
    writeFileSync(file, '{}');
    expectStartupFailure(
      runMain(['--scenarios', file]),
      new RegExp(`SANDBOX_SCENARIOS \\(--scenarios\\)=${re(file)}: not a folder`),
    );
  });

  it('a bad journal body size (SANDBOX_JOURNAL_BODY_BYTES=16k)', () => {
    expectStartupFailure(
      runMain([], { SANDBOX_JOURNAL_BODY_BYTES: '16k' }),
      /invalid configuration: SANDBOX_JOURNAL_BODY_BYTES="16k": /,
    );
  });

  it('a budget in hex (SANDBOX_JOURNAL_BUDGET_MB=0x10): a whole number is digits only', () => {
    expectStartupFailure(
      runMain([], { SANDBOX_JOURNAL_BUDGET_MB: '0x10' }),
      /^partnership-sandbox: invalid configuration: SANDBOX_JOURNAL_BUDGET_MB="0x10": must be a whole number from 1 to 1048576$/m,
    );
  });

  it.each([
    ['abc', 'PORT'],
    ['1.5', 'PORT'],
    ['70000', 'PORT'],
    ['-1', 'PORT'],
  ])("PORT=%s is named in the sandbox's words, not zod's", (value, name) => {
    expect(() => loadConfig([], { [name]: value })).toThrow(
      `invalid configuration: ${name}=${JSON.stringify(value)}: must be a whole number from 0 to 65535`,
    );
    expect(() => loadConfig([`--port=${value}`], {})).toThrow(
      `invalid configuration: --port=${JSON.stringify(value)}: must be a whole number from 0 to 65535`,
    );
  });

  it('a bad value (PORT=eighty)', () => {
    expectStartupFailure(
      runMain([], { PORT: 'eighty' }),
      /^partnership-sandbox: invalid configuration: PORT="eighty": must be a whole number from 0 to 65535$/m,
    );
  });

  it.each([
    ['a space', 'open sesame', /it contains whitespace/],
    ['whitespace only', '   ', /it contains whitespace/],
    ['a non-ASCII character', 'tok€n-9f3a', /it contains a non-ASCII character/],
    ['a control character', 'tok\u0001en-9f3a', /it contains a control character/],
    ['1,025 characters', 'z'.repeat(1025), /it is 1025 characters long/],
  ])(
    'a SANDBOX_ADMIN_TOKEN no Authorization header can carry (%s) stops start-up; the token is not echoed',
    (_, token, cause) => {
      const r = runMain([], { SANDBOX_ADMIN_TOKEN: token });
      expectStartupFailure(
        r,
        /^partnership-sandbox: invalid configuration: SANDBOX_ADMIN_TOKEN: must be what an Authorization: Bearer header can carry: 1 to 1024 visible ASCII characters \(! to ~\), no spaces; /,
      );
      expect(r.stderr).toMatch(cause);
      if (token.trim()) expect(r.stderr).not.toContain(token);
    },
  );
});

// ---- shutdown ------------------------------------------------------------------------------

interface Child {
  proc: ChildProcess;
  url: string;
  port: number;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** What it wrote on stdout so far. */
  stdout(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Starts the CLI on a free port; resolves with the URL of its first stdout line. */
function startMain(env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, [MAIN, '--port', '0'], {
    env: { ...baseEnv, SANDBOX_LOG: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stderr!.on('data', (d) => {
      err += d;
    });
    proc.stdout!.on('data', (d) => {
      out += d;
      const first = out.includes('\n') ? out.slice(0, out.indexOf('\n')) : undefined;
      const url = first && /http:\/\/127\.0\.0\.1:(\d+)/.exec(first);
      if (url)
        resolve({ proc, url: url[0], port: Number(url[1]), exited, stderr: () => err, stdout: () => out });
    });
    void exited.then(({ code }) => reject(new Error(`exited before listening (${code}): ${err}`)));
  });
}

/** A raw socket that records whether the server closed it. */
function rawSocket(port: number, send?: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      if (send !== undefined) socket.write(send);
      let received = '';
      socket.on('data', (d) => {
        received += d;
      });
      const closed = new Promise<string>((done) => socket.once('close', () => done(received)));
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

describe('the start-up lines: the URL first, then where the docs, the dashboard and the default credentials are', () => {
  /** Its stdout up to the JSON "sandbox listening" log line, which follows the banner, as lines. */
  async function banner(child: Child): Promise<{ lines: string[]; log: Record<string, unknown> }> {
    for (let i = 0; i < 250 && !child.stdout().includes('"sandbox listening"'); i++)
      await new Promise((r) => setTimeout(r, 20));
    const all = child.stdout().split('\n');
    const at = all.findIndex((l) => l.includes('"sandbox listening"'));
    expect(at, child.stdout()).toBeGreaterThan(0);
    return { lines: all.slice(0, at), log: JSON.parse(all[at]!) };
  }

  const tokenStatus = async (url: string, id: string, secret: string) =>
    (
      await fetch(`${url}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }),
      })
    ).status;

  /** A copy of the package's fixtures whose first partner is `first`. */
  function ownFixtures(first: Record<string, string>): string {
    const dir = tempDir();
    for (const file of ['taxonomy.json', 'preset.json', 'pages.json'])
      writeFileSync(join(dir, file), readFileSync(join(packageDir, 'fixtures', file)));
    const partners = JSON.parse(readFileSync(join(packageDir, 'fixtures', 'partners.json'), 'utf8'));
    partners.partners[0] = { ...partners.partners[0], ...first };
    writeFileSync(join(dir, 'partners.json'), JSON.stringify(partners));
    return dir;
  }

  it("the package's fixtures: the documented demo credentials, which get a token; the docs and dashboard answer", async () => {
    const child = await startMain({});
    const { lines, log } = await banner(child);
    expect(lines).toEqual([
      `Partnership sandbox on ${child.url}`,
      `  API docs:    ${child.url}/docs`,
      `  Dashboard:   ${child.url}/__sandbox/ui`,
      `  Default credentials: client_id ${DEMO.clientId}, client_secret ${DEMO.clientSecret}, parent account ID ${DEMO.parent}`,
    ]);
    const [id, secret, parent] = /client_id (\S+), client_secret (\S+), parent account ID (\S+)$/
      .exec(lines[3]!)!
      .slice(1);
    expect(await tokenStatus(child.url, id!, secret!)).toBe(200);
    expect(parent).toBe(DEMO.parent);
    for (const path of ['/docs', '/__sandbox/ui']) {
      const res = await fetch(`${child.url}${path}`);
      expect([path, res.status, res.headers.get('content-type')]).toEqual([
        path,
        200,
        'text/html; charset=UTF-8',
      ]);
    }
    expect(log).toMatchObject({
      msg: 'sandbox listening',
      url: child.url,
      docs: `${child.url}/docs`,
      dashboard: `${child.url}/__sandbox/ui`,
      default_client_id: DEMO.clientId,
      default_parent_account_id: DEMO.parent,
    });
    expect(JSON.stringify(log)).not.toContain(DEMO.clientSecret);
    child.proc.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  });

  it("a partner's own fixtures folder: its own client_id and parent, its secret named by file and never printed; the admin token neither", async () => {
    const own = {
      parent_account_id: 'pa_acme_ci',
      client_id: 'acme-ci-client',
      client_secret: 'acme-ci-secret-42',
    };
    const dir = ownFixtures(own);
    const adminToken = 'admin-token-not-for-logs';
    const child = await startMain({ SANDBOX_FIXTURES: dir, SANDBOX_ADMIN_TOKEN: adminToken });
    const { lines } = await banner(child);
    expect(lines).toEqual([
      `Partnership sandbox on ${child.url}`,
      `  API docs:    ${child.url}/docs`,
      `  Dashboard:   ${child.url}/__sandbox/ui (asks for the SANDBOX_ADMIN_TOKEN)`,
      `  Default credentials: client_id ${own.client_id}, client_secret as in ${join(dir, 'partners.json')}, parent account ID ${own.parent_account_id}`,
    ]);
    expect(await tokenStatus(child.url, own.client_id, own.client_secret)).toBe(200);
    child.proc.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
    for (const text of [child.stdout(), child.stderr()]) {
      expect(text).not.toContain(own.client_secret);
      expect(text).not.toContain(adminToken);
    }
  });

  it('a durable store holding a partner created on the control plane: after a restart, only the default partner is printed', async () => {
    const db = join(tempDir(), 'sandbox.db');
    const first = await startMain({ SANDBOX_DB: db });
    const mine = { parent_account_id: 'pa_mine', client_id: 'mine-client', client_secret: 'mine-secret-77' };
    const created = await fetch(`${first.url}/__sandbox/partners`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(mine),
    });
    expect(created.status).toBe(201);
    first.proc.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);

    const again = await startMain({ SANDBOX_DB: db });
    const { lines } = await banner(again);
    expect(lines[3]).toBe(
      `  Default credentials: client_id ${DEMO.clientId}, client_secret ${DEMO.clientSecret}, parent account ID ${DEMO.parent}`,
    );
    expect(await tokenStatus(again.url, mine.client_id, mine.client_secret)).toBe(200);
    again.proc.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
    for (const text of [first.stdout(), again.stdout()]) {
      expect(text).not.toContain(mine.client_secret);
      expect(text).not.toContain(mine.client_id);
    }
  });

  it('a seed bundle that gave the default partner another secret: the secret is not printed (the fixture one would not work)', async () => {
    const dir = tempDir();
    const seed = join(dir, 'demo.json');
    const h = createHarness();
    const exported = (await h.request('GET', `/__sandbox/partners/${DEMO.parent}/bundle`)).body;
    const { client_secret_hash: _, ...partner } = exported.partner;
    const replaced = 'replaced-demo-secret';
    writeFileSync(
      seed,
      JSON.stringify({ ...exported, version: 1, partner: { ...partner, client_secret: replaced } }),
    );
    const child = await startMain({ SANDBOX_SEED: seed });
    const { lines } = await banner(child);
    expect(lines[3]).toBe(
      `  Default credentials: client_id ${DEMO.clientId}, client_secret as in ${join(packageDir, 'fixtures', 'partners.json')}, parent account ID ${DEMO.parent}`,
    );
    expect(await tokenStatus(child.url, DEMO.clientId, DEMO.clientSecret)).toBe(401);
    expect(await tokenStatus(child.url, DEMO.clientId, replaced)).toBe(200);
    child.proc.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
    expect(child.stdout()).not.toContain(replaced);
    expect(child.stdout()).not.toContain(DEMO.clientSecret);
  });
});

describe('an empty SANDBOX_ADMIN_TOKEN (a CI secret that is not there)', () => {
  it('leaves the control plane open, as unset, and says so in one line on stderr', async () => {
    const child = await startMain({ SANDBOX_ADMIN_TOKEN: '' });
    const open = await fetch(`${child.url}/__sandbox/requests`);
    expect(open.status).toBe(200);
    for (let i = 0; i < 100 && !child.stderr().includes('\n'); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(child.stderr()).toBe(
      'partnership-sandbox: warning: SANDBOX_ADMIN_TOKEN is empty, so the control plane is open (no token is required); set a token to protect it, or unset the variable to silence this\n',
    );
    child.proc.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
  });

  it('an unset one prints no warning', async () => {
    const child = await startMain({});
    expect((await fetch(`${child.url}/__sandbox/requests`)).status).toBe(200);
    child.proc.kill('SIGTERM');
    expect((await child.exited).code).toBe(0);
    expect(child.stderr()).toBe('');
  });
});

describe('a signal right after the URL line', () => {
  /** Starts the CLI and sends `signal` from the first stdout data that carries the URL. */
  function signalAtUrl(
    signal: NodeJS.Signals,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const proc = spawn(process.execPath, [MAIN, '--port', '0'], {
      env: { ...baseEnv, SANDBOX_LOG: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    procs.push(proc);
    let sent = false;
    proc.stdout!.on('data', (d: Buffer) => {
      if (!sent && d.toString().includes('http://')) {
        sent = true;
        proc.kill(signal);
      }
    });
    return new Promise((resolve) => proc.once('exit', (code, sig) => resolve({ code, signal: sig })));
  }

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s sent at once, 10 times: each run drains and exits 0 (the handlers are installed before the line is printed)',
    async (signal) => {
      for (let run = 0; run < 10; run++) {
        expect({ run, ...(await signalAtUrl(signal)) }).toEqual({ run, code: 0, signal: null });
      }
    },
    60_000,
  );
});

describe('SIGTERM with stalled clients', () => {
  it('closes idle and stalled sockets, finishes the request in flight (200), closes the store, exits 0', async () => {
    const db = join(tempDir(), 'sandbox.db');
    const child = await startMain({ SANDBOX_DB: db });
    const token = await fetch(`${child.url}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: DEMO.clientId,
        client_secret: DEMO.clientSecret,
      }),
    }).then(async (r) => ((await r.json()) as { access_token: string }).access_token);

    // connected, nothing sent
    const silent = await rawSocket(child.port);
    // the request line and part of the headers, then nothing
    const partialHeaders = await rawSocket(child.port, 'GET /__sandbox/health HTTP/1.1\r\nHost: x\r\n');
    // complete headers of a body that never arrives in full (10 of 100 bytes)
    const stalledUpload = await rawSocket(
      child.port,
      'POST /__sandbox/partners HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"',
    );
    // keep-alive: one request answered, the connection left open
    const keptAlive = await rawSocket(child.port, 'GET /__sandbox/health HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));

    const inFlight = fetch(`${child.url}/v1/partnership/vertical-mappings`, {
      headers: { Authorization: `Bearer ${token}`, 'X-Sandbox-Scenario': 'latency=500' },
    }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { data: { vertical_mappings: unknown[] } },
    }));
    await new Promise((r) => setTimeout(r, 150));
    const signalled = performance.now();
    child.proc.kill('SIGTERM');

    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.body.data.vertical_mappings.length).toBeGreaterThan(0);
    for (const s of [silent, partialHeaders, stalledUpload]) expect(await s.closed).toBe('');
    expect(await keptAlive.closed).toMatch(/^HTTP\/1\.1 200 OK/);

    const exit = await child.exited;
    expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
    // the latency (500 ms) plus the stall detection (500 ms), far from the 10 s guard
    expect(exit.at - signalled).toBeLessThan(3_000);

    // closed cleanly: the last connection checkpointed and removed the WAL, and the file is sound
    expect(existsSync(`${db}-wal`)).toBe(false);
    const conn = new Database(db);
    try {
      expect(conn.pragma('integrity_check', { simple: true })).toBe('ok');
      expect((conn.prepare('SELECT count(*) AS n FROM partners').get() as { n: number }).n).toBeGreaterThan(
        0,
      );
    } finally {
      conn.close();
    }
  });
});

describe('the built bundles', () => {
  it.each(['main.js', 'cli.js', 'index.js', 'mcp.js', 'openapi-validator.js'])(
    '%s is ASCII only: V8 keeps its source at one byte a character, not two (docs/performance.md)',
    (bundle) => {
      const text = readFileSync(join(packageDir, 'dist', bundle), 'utf8');
      const at = text.search(/[\u0080-\uffff]/);
      expect(at === -1 ? '' : text.slice(Math.max(0, at - 60), at + 20)).toBe('');
    },
  );
});

describe('one form for errors: `partnership-sandbox[ <command>]: <one line>`, quotes balanced', () => {
  it.each([
    [[], '--prot', 'partnership-sandbox: unknown option --prot (see --help)'],
    [
      ['mcp', '--url', 'http://127.0.0.1:9'],
      '--prot',
      'partnership-sandbox mcp: unknown option --prot (see --help)',
    ],
    [
      ['record', '--upstream', 'http://127.0.0.1:9'],
      '--prot',
      'partnership-sandbox record: unknown option --prot (see --help)',
    ],
    [['verify', 'x.har'], '--prot', 'partnership-sandbox verify: unknown option --prot (see --help)'],
  ])('%j with an unknown option', (command, option, line) => {
    const r = runMain([...command, option, '1']);
    expect(r.stderr).toBe(`${line}\n`);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(2);
  });
});

describe('record: the closing line counts its exchanges in words that agree', () => {
  it('one exchange: "1 exchange", not "1 exchanges"', async () => {
    const upstream = await createUpstream();
    const out = join(tempDir(), 'one.har');
    const child = spawn(
      process.execPath,
      [MAIN, 'record', '--upstream', upstream.url, '--port', '0', '--out', out],
      {
        env: baseEnv,
      },
    );
    procs.push(child);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const url = await new Promise<string>((done) =>
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        const m = /http:\/\/[\d.:]+/.exec(c);
        if (m) done(m[0]);
      }),
    );
    expect((await fetch(`${url}/__sandbox/health`)).status).toBe(200);
    const exited = new Promise<number | null>((done) => child.on('exit', done));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain(`partnership-sandbox record: 1 exchange in ${out}\n`);
    await upstream.close();
  }, 60_000);
});

/** A plain HTTP upstream answering 200 {"status":"ok"} to anything. */
async function createUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const { createServer: createHttpServer } = await import('node:http');
  const server = createHttpServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'),
  );
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((done) => server.close(() => done())),
  };
}
