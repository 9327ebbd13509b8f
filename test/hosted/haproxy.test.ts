/**
 * Past one machine: cells (docs/hosting.md), through the real HAProxy. The shipped
 * deploy/haproxy/haproxy.cfg and partners.map, unchanged (their addresses and paths set by the
 * environment variables the file reads), in front of three sandbox processes of the built
 * command line, each its own cell (SANDBOX_CELL) with its own store:
 * - each partner reaches its own cell by its host (token, register, controls, health);
 * - a killed cell costs its own partners only: the others' calls are all answered;
 * - a partner moved by its bundle (export on one cell, import on another, the map changed
 *   through HAProxy's runtime API) keeps its state on its new cell, with its credentials and
 *   new tokens, at its new host.
 * Also: `haproxy -c` takes the shipped config; the compose file and the Kubernetes manifests
 * parse and agree with it on the cells; bad SANDBOX_CELL and SANDBOX_RATE_LIMIT values stop
 * the command line with exit 2 naming them.
 *
 * Needs Debian's `haproxy` (.ci/run installs it): without it this file fails, it never skips.
 */
import { type ChildProcess, execSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFixturesDir, packageDir } from '../../src/base/package-dir.js';
import { loadFixtures } from '../../src/core/fixtures.js';
import { CONTROLS, REGISTER, registerBody } from '../helpers/harness.js';

const HAPROXY = '/usr/sbin/haproxy';
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML, asserted field by field
type Yaml = any;
const MAIN = join(packageDir, 'dist', 'main.js');
const DEPLOY = join(packageDir, 'deploy');
const CONFIG = join(DEPLOY, 'haproxy', 'haproxy.cfg');
const MAP = join(DEPLOY, 'haproxy', 'partners.map');
const ADMIN = 'hosted-admin-token';
const CELLS = ['cell-0', 'cell-1', 'cell-2'] as const;
type Cell = (typeof CELLS)[number];

const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => !/^(PORT|HOST|SANDBOX_|CELL_|HAPROXY_|PARTNERS_MAP)/.test(name),
  ),
);

function requireHaproxy() {
  if (!existsSync(HAPROXY)) {
    throw new Error(
      `${HAPROXY} is missing: install Debian's haproxy package (apt-get install haproxy; .ci/run does) to run the cells test`,
    );
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  body: any;
}

/** One call through HAProxy with this Host header (fetch cannot set Host). */
function call(
  port: number,
  host: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; form?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { Host: host, ...options.headers };
  let payload: string | undefined;
  if (options.form) {
    payload = new URLSearchParams(options.form).toString();
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  } else if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['Content-Type'] = 'application/json';
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`${method} ${host}${path}: no answer in 10 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

interface Running {
  proc: ChildProcess;
  url: string;
}
const procs: ChildProcess[] = [];
let dir: string;

/** A sandbox cell as the built command line, on a free port; resolves once it prints its URL. */
function startCell(cell: Cell, db: string): Promise<Running> {
  const proc = spawn(process.execPath, [MAIN, '--port', '0', '--cell', cell], {
    env: { ...baseEnv, SANDBOX_LOG: 'silent', SANDBOX_ADMIN_TOKEN: ADMIN, SANDBOX_DB: db },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stderr!.on('data', (d) => {
      err += d;
    });
    proc.stdout!.on('data', (d) => {
      out += d;
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(out.split('\n')[0] ?? '');
      if (out.includes('\n') && url) resolve({ proc, url: url[0] });
    });
    proc.once('exit', (code) => reject(new Error(`${cell} exited before listening (${code}): ${err}`)));
  });
}

/** HAProxy's runtime API over its stats socket: one command, its answer. */
function runtime(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket, () => conn.end(`${command}\n`));
    let answer = '';
    conn.setEncoding('utf8');
    conn.on('data', (d) => {
      answer += d;
    });
    conn.on('end', () => resolve(answer));
    conn.on('error', reject);
  });
}

/** The map's lines: host -> cell, comments aside. */
function mapLines(): [string, string][] {
  return readFileSync(MAP, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(/\s+/) as [string, string]);
}

const hostOf = (partner: string, cell: Cell) => `${partner}.${cell}.sandbox.example.com`;
const adminHost = (cell: Cell) => `${cell}.sandbox.example.com`;
const admin = { Authorization: `Bearer ${ADMIN}` };

describe('cells behind the real HAProxy (deploy/haproxy)', () => {
  let port: number;
  let socket: string;
  let haproxy: ChildProcess;
  const cells = new Map<Cell, Running>();
  /** The partners the test places: each one's host is in partners.map. */
  const partners = [
    { name: 'acme', cell: 'cell-0' as Cell },
    { name: 'globex', cell: 'cell-1' as Cell },
    { name: 'initech', cell: 'cell-2' as Cell },
  ].map((p) => ({
    ...p,
    parent: `pa_${p.name}`,
    clientId: `${p.name}-client`,
    clientSecret: `${p.name}-secret`,
  }));

  beforeAll(async () => {
    requireHaproxy();
    if (!existsSync(MAIN)) execSync('npm run build', { cwd: packageDir, stdio: 'ignore' });
    dir = mkdtempSync(join(tmpdir(), 'sandbox-cells-'));
    // cell-0 keeps a store file, the others are in memory: both kinds serve a cell.
    for (const cell of CELLS)
      cells.set(cell, await startCell(cell, cell === 'cell-0' ? join(dir, `${cell}.db`) : ':memory:'));
    port = await freePort();
    socket = join(dir, 'admin.sock');
    haproxy = spawn(HAPROXY, ['-db', '-f', CONFIG], {
      env: {
        ...baseEnv,
        HAPROXY_BIND: `127.0.0.1:${port}`,
        PARTNERS_MAP: MAP,
        HAPROXY_ADMIN_SOCKET: socket,
        CELL_0: new URL(cells.get('cell-0')!.url).host,
        CELL_1: new URL(cells.get('cell-1')!.url).host,
        CELL_2: new URL(cells.get('cell-2')!.url).host,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    procs.push(haproxy);
    let stderr = '';
    haproxy.stderr!.on('data', (d) => {
      stderr += d;
    });
    // Up once every cell answers its health through it.
    for (const cell of CELLS) {
      for (let i = 0; ; i++) {
        const health = await call(port, adminHost(cell), 'GET', '/__sandbox/health').catch(() => undefined);
        if (health?.status === 200) break;
        if (i > 100 || haproxy.exitCode !== null) throw new Error(`HAProxy did not serve ${cell}: ${stderr}`);
        await sleep(100);
      }
    }
    // The owner places its partners: each created on its cell, with the demo partner's taxonomy.
    const taxonomy = loadFixtures(defaultFixturesDir).partners[0]!.mapping.map((m) => ({
      partner_vertical_id: m.partner_vertical_id,
      partner_vertical_name: m.partner_vertical_name,
      partner_sub_vertical_id: m.partner_sub_vertical_id,
      partner_sub_vertical_name: m.partner_sub_vertical_name,
      vertical_name: m.vertical_name,
    }));
    for (const p of partners) {
      const created = await call(port, adminHost(p.cell), 'POST', '/__sandbox/partners', {
        headers: admin,
        body: { parent_account_id: p.parent, client_id: p.clientId, client_secret: p.clientSecret },
      });
      expect(created.status).toBe(201);
      const seeded = await call(
        port,
        adminHost(p.cell),
        'PUT',
        `/__sandbox/partners/${p.parent}/vertical-mappings`,
        {
          headers: admin,
          body: { vertical_mappings: taxonomy },
        },
      );
      expect(seeded.status).toBe(200);
    }
  }, 120_000);

  afterAll(() => {
    for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A partner's token, register and controls GET at a host: the account and its content_hash. */
  async function integrate(host: string, p: (typeof partners)[number]) {
    const token = await call(port, host, 'POST', '/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: p.clientId, client_secret: p.clientSecret },
    });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const auth = {
      Authorization: `Bearer ${token.body.access_token}`,
      'X-Platform-Parent-Account-Id': p.parent,
    };
    const registered = await call(port, host, 'POST', REGISTER, {
      headers: auth,
      body: registerBody({ platform_parent_account_id: p.parent, external_account_id: `${p.name}-shop` }),
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    const accountId: string = registered.body.data.account_id;
    const controls = await call(port, host, 'GET', CONTROLS(accountId), { headers: auth });
    expect(controls.status).toBe(200);
    return {
      token: token.body.access_token as string,
      auth,
      accountId,
      hash: controls.body.data.content_hash,
    };
  }

  const placed = new Map<string, Awaited<ReturnType<typeof integrate>>>();

  it('each partner reaches its own cell by its host: token, register, controls; health names the cell', async () => {
    for (const p of partners) {
      const host = hostOf(p.name, p.cell);
      placed.set(p.name, await integrate(host, p));
      const health = await call(port, host, 'GET', '/__sandbox/health');
      expect(health.body).toMatchObject({ status: 'ok', cell: p.cell });
      // Its calls are in its own cell's journal, and no other cell knows the partner.
      const journal = await call(
        port,
        adminHost(p.cell),
        'GET',
        `/__sandbox/requests?parent_account_id=${p.parent}`,
        {
          headers: admin,
        },
      );
      expect(journal.body.requests.map((e: { path: string }) => e.path)).toContain(REGISTER);
      for (const other of CELLS.filter((c) => c !== p.cell)) {
        const elsewhere = await call(
          port,
          adminHost(other),
          'GET',
          `/__sandbox/partners/${p.parent}/bundle`,
          {
            headers: admin,
          },
        );
        expect(elsewhere.status).toBe(404);
      }
    }
    // The report names the cell too.
    const report = await call(
      port,
      adminHost('cell-1'),
      'GET',
      '/__sandbox/report?parent_account_id=pa_globex',
      {
        headers: admin,
      },
    );
    expect(report.body).toMatchObject({ parent_account_id: 'pa_globex', cell: 'cell-1' });
  });

  it('a host that is not in the map never reaches a cell: 404 from the balancer', async () => {
    const res = await call(port, 'nobody.cell-0.sandbox.example.com', 'GET', '/__sandbox/health');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ status: 404, error: { code: 'not_found' }, data: null });
  });

  it('a partner moved by its bundle keeps its state on its new cell, at its new host, with new tokens', async () => {
    const acme = partners[0]!;
    const before = placed.get('acme')!;
    const bundle = await call(port, adminHost('cell-0'), 'GET', `/__sandbox/partners/${acme.parent}/bundle`, {
      headers: admin,
    });
    expect(bundle.status).toBe(200);
    const imported = await call(port, adminHost('cell-1'), 'POST', '/__sandbox/bundles', {
      headers: admin,
      body: bundle.body,
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    // The owner's placement, live: the new host to the new cell, the old host gone.
    expect(await runtime(socket, `add map ${MAP} ${hostOf('acme', 'cell-1')} cell-1`)).toBe('\n');
    expect(await runtime(socket, `del map ${MAP} ${hostOf('acme', 'cell-0')}`)).toBe('\n');

    const host = hostOf('acme', 'cell-1');
    // Its old token was not in the bundle: 401 on the new cell.
    const stale = await call(port, host, 'GET', CONTROLS(before.accountId), { headers: before.auth });
    expect(stale.status).toBe(401);
    const token = await call(port, host, 'POST', '/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: acme.clientId, client_secret: acme.clientSecret },
    });
    expect(token.status).toBe(200);
    const auth = {
      Authorization: `Bearer ${token.body.access_token}`,
      'X-Platform-Parent-Account-Id': acme.parent,
    };
    const controls = await call(port, host, 'GET', CONTROLS(before.accountId), { headers: auth });
    expect(controls.status).toBe(200);
    expect(controls.body.data.content_hash).toBe(before.hash);
    expect((await call(port, host, 'GET', '/__sandbox/health')).body.cell).toBe('cell-1');
    // The same external account matches the moved account.
    const again = await call(port, host, 'POST', REGISTER, {
      headers: auth,
      body: registerBody({ platform_parent_account_id: acme.parent, external_account_id: 'acme-shop' }),
    });
    expect(again.body.data.account_id).toBe(before.accountId);
    expect((await call(port, hostOf('acme', 'cell-0'), 'GET', '/__sandbox/health')).status).toBe(404);
    placed.set('acme', { ...before, auth });
  });

  it("a killed cell costs its own partners only: every other partner's call is answered", async () => {
    const initech = partners[2]!;
    cells.get('cell-2')!.proc.kill('SIGKILL');
    const others = partners
      .filter((p) => p.cell !== 'cell-2')
      .map((p) => ({ host: hostOf(p.name, p.name === 'acme' ? 'cell-1' : p.cell), ...placed.get(p.name)! }));
    const statuses = new Map<number, number>();
    let downAnswer: Reply | undefined;
    // At least 40 rounds, and on until the balancer has marked the cell down (at most 200).
    let rounds = 0;
    for (; rounds < 200 && (rounds < 40 || !downAnswer); rounds++) {
      for (const o of others) {
        const res = await call(port, o.host, 'GET', CONTROLS(o.accountId), { headers: o.auth });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
      const lost = await call(port, hostOf(initech.name, 'cell-2'), 'GET', '/__sandbox/health');
      // A call caught by the kill is a 502; then HAProxy's 503 until its health check (1 s,
      // twice) marks the cell down, and from then its 503 envelope with Retry-After.
      expect([502, 503]).toContain(lost.status);
      if (lost.headers['retry-after']) downAnswer = lost;
      await sleep(50);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: rounds * others.length });
    // Once its health check failed, the balancer answers the cell's partners with the API's 503 envelope.
    expect(downAnswer?.body).toMatchObject({
      status: 503,
      error: { code: 'service_unavailable' },
      data: null,
    });
    expect(downAnswer?.headers['retry-after']).toBe('5');
  });
});

describe('the shipped deployment files', () => {
  it('haproxy -c accepts deploy/haproxy/haproxy.cfg as shipped', () => {
    requireHaproxy();
    const r = spawnSync(HAPROXY, ['-c', '-f', CONFIG], {
      env: { ...baseEnv, PARTNERS_MAP: MAP },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(r.stdout + r.stderr).toContain('Configuration file is valid');
  });

  const backends = [...readFileSync(CONFIG, 'utf8').matchAll(/^backend (\S+)$/gm)].map((m) => m[1]);

  it('the config, the map, compose and Kubernetes name the same three cells', () => {
    expect(backends).toEqual([...CELLS]);
    expect(new Set(mapLines().map(([, cell]) => cell))).toEqual(new Set(CELLS));
    for (const [host, cell] of mapLines())
      expect(host.endsWith(`${cell}.sandbox.example.com`), host).toBe(true);
  });

  it('deploy/compose.yaml parses: a cell per backend, each with its SANDBOX_CELL and its own volume', () => {
    const compose = load(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8')) as Yaml;
    for (const cell of CELLS) {
      const service = compose.services[cell];
      expect(service.environment.SANDBOX_CELL).toBe(cell);
      expect(service.environment.SANDBOX_DB).toBe('/data/sandbox.db');
      expect(service.volumes).toEqual([`${cell}-data:/data`]);
      expect(compose.volumes).toHaveProperty(`${cell}-data`);
    }
    expect(compose.services.balancer.volumes).toEqual(['./haproxy:/usr/local/etc/haproxy:ro']);
  });

  it('deploy/k8s parses: a StatefulSet of three cells with a volume each, a headless Service, the balancer', () => {
    const docs = ['cells.yaml', 'balancer.yaml'].flatMap((f) =>
      loadAll(readFileSync(join(DEPLOY, 'k8s', f), 'utf8')),
    ) as Yaml[];
    const kind = (k: string, name: string) => docs.find((d) => d.kind === k && d.metadata.name === name);
    const cellSet = kind('StatefulSet', 'cell');
    expect(cellSet.spec.replicas).toBe(CELLS.length);
    expect(cellSet.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
    const container = cellSet.spec.template.spec.containers[0];
    expect(
      container.env.find((e: { name: string }) => e.name === 'SANDBOX_CELL').valueFrom.fieldRef.fieldPath,
    ).toBe('metadata.name');
    expect(kind('Service', 'cell').spec.clusterIP).toBe('None');
    const haproxy = kind('Deployment', 'balancer').spec.template.spec.containers[0];
    // Pod names of the StatefulSet are the cells: cell-0, cell-1, cell-2, each a backend.
    expect(haproxy.env).toEqual(CELLS.map((cell, i) => ({ name: `CELL_${i}`, value: `${cell}.cell:4010` })));
    expect(kind('Ingress', 'sandbox').spec.rules.length).toBeGreaterThanOrEqual(CELLS.length);
  });
});

describe('SANDBOX_CELL and SANDBOX_RATE_LIMIT: a bad value stops the command line, exit 2', () => {
  const run = (env: Record<string, string>, args: string[] = []) =>
    spawnSync(process.execPath, [MAIN, ...args], {
      env: { ...baseEnv, SANDBOX_LOG: 'silent', ...env },
      encoding: 'utf8',
      timeout: 15_000,
    });

  it('SANDBOX_CELL=Cell_A', () => {
    const r = run({ SANDBOX_CELL: 'Cell_A' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      'partnership-sandbox: invalid configuration: SANDBOX_CELL="Cell_A": must be a DNS label: 1 to 63 of a-z, 0-9 and -\n',
    );
  });

  it('--rate-limit 0', () => {
    const r = run({}, ['--rate-limit', '0']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^partnership-sandbox: invalid configuration: --rate-limit="0": calls per second must be a number above 0/,
    );
  });
});
