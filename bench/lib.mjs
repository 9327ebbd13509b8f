// Shared helpers for the benchmarks: spawn a server process, wait for it, read its RSS,
// talk to the sandbox, and run autocannon with a compact summary.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const root = fileURLToPath(new URL('..', import.meta.url));

export const DEMO = {
  parent: 'pa_demo_platform',
  clientId: 'sandbox-demo-client',
  clientSecret: 'sandbox-demo-secret',
};
export const REGISTER = '/v1/accounts/register/partnership';
export const CONTROLS = (id) => `/v1/partnership/accounts/${id}/marketplacecontrolslists`;
export const STATUS = (id) => `/v1/partnership/accounts/${id}/status`;
export const MAPPINGS = '/v1/partnership/vertical-mappings';
export const TOKEN_FORM = new URLSearchParams({
  grant_type: 'client_credentials',
  client_id: DEMO.clientId,
  client_secret: DEMO.clientSecret,
}).toString();

/**
 * A private copy of the production build for this bench process: dist/ is rebuilt (deleted
 * and written again) by other work in the same checkout, which would kill a server starting
 * mid-run. The copy sits in a temp dir laid out like the package (fixtures, scenarios,
 * node_modules and package.json linked), so the bundle's relative paths resolve the same.
 */
let snapshot;
export function sandboxDist() {
  if (snapshot) return snapshot;
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-bench-'));
  mkdirSync(join(dir, 'dist'));
  for (const f of [
    'main.js',
    'main.js.map',
    'cli.js',
    'cli.js.map',
    'index.js',
    'index.js.map',
    'openapi-validator.js',
    'guides.json',
  ]) {
    if (existsSync(join(root, 'dist', f))) copyFileSync(join(root, 'dist', f), join(dir, 'dist', f));
  }
  for (const name of ['fixtures', 'scenarios', 'node_modules', 'package.json']) {
    if (existsSync(join(root, name))) symlinkSync(join(root, name), join(dir, name));
  }
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  snapshot = { dir, main: join(dir, 'dist', 'main.js'), index: join(dir, 'dist', 'index.js') };
  return snapshot;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The value of a `--name=value` flag on the command line, or `fallback`. */
export const arg = (name, fallback) => {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : fallback;
};
/** The same, as a number. */
export const numberArg = (name, fallback) => Number(arg(name, fallback));

/** Seconds per measured run: BENCH_SECONDS env or --seconds=N flag; default 10. */
export function benchSeconds(fallback = 10) {
  const flag = process.argv.find((a) => a.startsWith('--seconds='));
  return Number(flag?.split('=')[1] ?? process.env.BENCH_SECONDS ?? fallback);
}

export const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** CPU time (user + system) a pid has used so far, in ms, from /proc/<pid>/stat. */
export function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, USER_HZ = 100
}

/**
 * The machine's CPU counters from /proc/stat (all cores, USER_HZ ticks): `steal` is time
 * the hypervisor gave to other guests. stealShare(a, b) is the share of CPU time stolen
 * between two readings: on a shared VM it says how much a run was disturbed.
 */
export function cpuCounters() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  const t = line.trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: t.reduce((a, b) => a + b, 0), steal: t[7] ?? 0 };
}
export const stealShare = (a, b) => (b.total > a.total ? (b.steal - a.steal) / (b.total - a.total) : 0);

/** VmRSS of a pid in MiB, from /proc/<pid>/status. */
export function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/**
 * Spawns `node <script> ...args` with PORT set, waits for a 200 on readyPath.
 * Returns { url, port, pid, child, stop() }. BENCH_NODE_ARGS: more flags for the server process
 * in any bench (`--trace-gc`, a preload), which NODE_OPTIONS refuses or would give the bench too.
 */
export async function startServer(
  script,
  { env = {}, args = [], readyPath = '/__sandbox/health', nodeArgs = [] } = {},
) {
  const port = await freePort();
  const extra = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, ...extra, script, ...args], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', SANDBOX_LOG: 'silent', ...env },
    // BENCH_SERVER_STDOUT: a file for the server's stdout (what --trace-gc prints).
    stdio: [
      'ignore',
      process.env.BENCH_SERVER_STDOUT ? openSync(process.env.BENCH_SERVER_STDOUT, 'a') : 'ignore',
      'inherit',
    ],
  });
  let exited = null;
  child.once('exit', (code, signal) => {
    exited = { code, signal };
  });
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  for (;;) {
    if (exited) throw new Error(`${script} exited during start-up: ${JSON.stringify(exited)}`);
    try {
      const res = await fetch(url + readyPath);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > 60_000) {
      child.kill('SIGKILL');
      throw new Error(`${script}: no 200 on ${readyPath} within 60 s`);
    }
    await sleep(5);
  }
  return {
    url,
    port,
    pid: child.pid,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (exited) return resolve(exited);
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', (code, signal) => {
          clearTimeout(killer);
          resolve({ code, signal });
        });
        child.kill('SIGTERM');
      }),
  };
}

export const startSandbox = (opts = {}) => startServer(sandboxDist().main, opts);

/**
 * `record` (the bin `main`: sandboxDist().main, or another build's dist/main.js) as a process in
 * front of `upstream`, writing `out`; resolves once it answers through to the upstream.
 */
export async function startRecord(main, upstream, out) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [main, 'record', '--upstream', upstream, '--port', String(port), '--out', out],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(`${url}/__sandbox/health`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not yet
    }
    if (i > 2000) throw new Error('record did not start');
    await sleep(5);
  }
  return {
    url,
    pid: child.pid,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** RSS in MiB of a server run by gc-on-signal.mjs, read 1 s after a full GC in it (SIGUSR2). */
export async function settledRssMiB(sb) {
  sb.child.kill('SIGUSR2');
  await sleep(1000);
  return rssMiB(sb.pid);
}

/**
 * A partner created on the control plane (`POST /__sandbox/partners`) with a token of its own:
 * `{ parent, token, headers }`, headers carrying the token and the parent header.
 */
export async function partnerWithToken(url, parentAccountId) {
  const created = await fetch(`${url}/__sandbox/partners`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ parent_account_id: parentAccountId }),
  });
  const partner = await created.json();
  if (created.status !== 201) throw new Error(`partner: ${created.status} ${JSON.stringify(partner)}`);
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: partner.client_id,
      client_secret: partner.client_secret,
    }).toString(),
  });
  const token = (await res.json()).access_token;
  const parent = partner.parent_account_id;
  return {
    parent,
    token,
    headers: { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': parent },
  };
}

// ---- talking to the sandbox -----------------------------------------------------------

export async function getToken(url) {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: TOKEN_FORM,
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

export const authHeaders = (token) => ({
  Authorization: `Bearer ${token}`,
  'X-Platform-Parent-Account-Id': DEMO.parent,
  'Content-Type': 'application/json',
});

export const registerBody = (externalId) =>
  JSON.stringify({
    brand: 'Acme',
    vertical_id: 10,
    sub_vertical_id: 1001,
    country_code: 'US',
    platform_parent_account_id: DEMO.parent,
    store_identifier: 'https://acme.example.com',
    external_account_id: externalId,
  });

export const controlsBody = (hash) =>
  JSON.stringify({
    blockedVerticals: [{ partnerVerticalId: 10, partnerSubVerticalId: 1001 }],
    domains: [],
    contentHash: hash,
  });

export async function registerAccount(url, token, externalId) {
  const res = await fetch(url + REGISTER, {
    method: 'POST',
    headers: authHeaders(token),
    body: registerBody(externalId),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`register: ${res.status} ${JSON.stringify(body)}`);
  return body.data.account_id;
}

export async function controlsHash(url, token, accountId) {
  const res = await fetch(url + CONTROLS(accountId), { headers: authHeaders(token) });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`controls GET: ${res.status} ${JSON.stringify(body)}`);
  return body.data.marketplace_controls_list.content_hash;
}

/** Registers n accounts and returns [{ id, hash }] with their current content hash. */
export async function makeAccounts(url, token, n, tag = randomUUID().slice(0, 8)) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const id = await registerAccount(url, token, `bench-${tag}-${i}`);
    out.push({ id, hash: await controlsHash(url, token, id) });
  }
  return out;
}

// ---- request factories for autocannon ------------------------------------------------
// `auth` is a mutable { token } so that a long run (the soak) can swap in a new token.
// autocannon resets a connection's `context` each time it loops over its request list,
// so per-connection state lives in a checkout pool: setupRequest takes an account,
// onResponse gives it back (pipelining 1: one request in flight per connection).

let keySeq = 0;
const keyPrefix = randomUUID().slice(0, 8);
export const freshKey = () => `bench-${keyPrefix}-${++keySeq}`;

/**
 * A checkout pool of accounts. `inTurn`: the one given back goes last, so each account (and so
 * each partner) takes its share of the calls at any number of connections; otherwise the one
 * given back is taken first (at c=1 every call goes to one account).
 */
export function accountPool(accounts, inTurn = false) {
  const free = [...accounts];
  return {
    take() {
      const a = inTurn ? free.shift() : free.pop();
      if (!a) throw new Error('account pool empty: more requests in flight than accounts');
      return a;
    },
    give(a) {
      free.push(a);
    },
  };
}

/** Controls PUT with a fresh Idempotency-Key, chaining each account's content_hash. */
export function controlsPutRequest(auth, pool) {
  return {
    method: 'PUT',
    setupRequest(req, ctx) {
      const a = pool.take();
      ctx.account = a;
      return {
        ...req,
        path: CONTROLS(a.id),
        // an account of another partner carries that partner's headers (bench/workloads.mjs)
        headers: {
          ...(a.headers ? { ...a.headers, 'Content-Type': 'application/json' } : authHeaders(auth.token)),
          'Idempotency-Key': freshKey(),
        },
        body: controlsBody(a.hash),
      };
    },
    onResponse(status, body, ctx) {
      const a = ctx.account;
      if (!a) return;
      if (status === 200) {
        try {
          a.hash = JSON.parse(body).data.marketplace_controls_list.content_hash;
        } catch {
          // keep the old hash; the next PUT will tell
        }
      }
      ctx.account = undefined;
      pool.give(a);
    },
  };
}

/** Status PUT with a fresh key, alternating paused/active per account. */
export function statusPutRequest(auth, pool) {
  return {
    method: 'PUT',
    setupRequest(req, ctx) {
      const a = pool.take();
      ctx.account = a;
      a.paused = !a.paused;
      return {
        ...req,
        path: STATUS(a.id),
        headers: { ...authHeaders(auth.token), 'Idempotency-Key': freshKey() },
        body: JSON.stringify({ status: a.paused ? 'paused' : 'active' }),
      };
    },
    onResponse(_status, _body, ctx) {
      if (ctx.account) pool.give(ctx.account);
      ctx.account = undefined;
    },
  };
}

/** Round-robin over accounts for reads. */
export function controlsGetRequest(auth, accounts, extraHeaders = {}) {
  let i = 0;
  return {
    method: 'GET',
    setupRequest(req) {
      const a = accounts[i++ % accounts.length];
      return { ...req, path: CONTROLS(a.id), headers: { ...authHeaders(auth.token), ...extraHeaders } };
    },
  };
}

export function statusGetRequest(auth, accounts) {
  let i = 0;
  return {
    method: 'GET',
    setupRequest(req) {
      const a = accounts[i++ % accounts.length];
      return { ...req, path: STATUS(a.id), headers: authHeaders(auth.token) };
    },
  };
}

export function registerNewRequest(auth) {
  const tag = randomUUID().slice(0, 8);
  let n = 0;
  return {
    method: 'POST',
    path: REGISTER,
    setupRequest(req) {
      return { ...req, headers: authHeaders(auth.token), body: registerBody(`new-${tag}-${n++}`) };
    },
  };
}

export const registerMatchedRequest = (auth, externalId) => ({
  method: 'POST',
  path: REGISTER,
  setupRequest: (req) => ({ ...req, headers: authHeaders(auth.token), body: registerBody(externalId) }),
});

export const mappingsGetRequest = (auth) => ({
  method: 'GET',
  path: MAPPINGS,
  setupRequest: (req) => ({ ...req, headers: authHeaders(auth.token) }),
});

export const tokenRequest = () => ({
  method: 'POST',
  path: '/oauth/token',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: TOKEN_FORM,
});

/** The same Idempotency-Key and body every time: after the first, every answer is a replay. */
export const replayRequest = (auth, accountId, key) => ({
  method: 'PUT',
  path: STATUS(accountId),
  setupRequest: (req) => ({
    ...req,
    headers: { ...authHeaders(auth.token), 'Idempotency-Key': key },
    body: JSON.stringify({ status: 'paused' }),
  }),
});

// ---- autocannon ------------------------------------------------------------------------

/** Percentile of a sorted array (nearest rank). */
const pct = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : Number.NaN;

/**
 * Runs autocannon and returns a compact summary. Latencies (ms, all responses) come from
 * the instance's per-response times, not its integer-millisecond histogram.
 */
export async function cannon(url, { requests, connections, duration, overallRate, amount }) {
  const times = [];
  const r = await new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url,
        connections,
        ...(amount === undefined ? { duration } : { amount }),
        overallRate,
        pipelining: 1,
        timeout: 30,
        requests,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    inst.on('response', (_client, _status, _bytes, ms) => times.push(ms));
  });
  times.sort((a, b) => a - b);
  const total = r['1xx'] + r['2xx'] + r['3xx'] + r['4xx'] + r['5xx'] + r.errors + r.timeouts;
  return {
    rps: r.requests.average,
    total,
    p50: pct(times, 50),
    p99: pct(times, 99),
    max: times.at(-1),
    ok: r['2xx'],
    rate2xx: total ? r['2xx'] / total : 0,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: r.statusCodeStats,
    durationS: r.duration,
  };
}
