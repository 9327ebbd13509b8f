#!/usr/bin/env node
// Scale: controls GET and register (new account each) against a file database with no
// accounts and one with 1M accounts (bench/seed-accounts.mjs), same run, same settings;
// plus start-up to healthy on both files. Target: 1M / empty >= 0.8 for both workloads.
//
// Usage: node bench/seed-accounts.mjs --db=/tmp/sandbox-1m.db     (once, ~1-2 min)
//        node bench/scale.mjs [--db=/tmp/sandbox-1m.db] [--connections=50]
//        (BENCH_SECONDS, default 10; BENCH_WARMUP, default 2)
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  arg,
  authHeaders,
  benchSeconds,
  CONTROLS,
  cannon,
  getToken,
  makeAccounts,
  registerNewRequest,
  root,
  rssMiB,
  startSandbox,
} from './lib.mjs';
import { startupMedian } from './startup.mjs';

const bigDb = arg('db', '/tmp/sandbox-1m.db');
const emptyDb = arg('empty-db', '/tmp/sandbox-empty.db');
const c = Number(arg('connections', 50));
const seconds = benchSeconds(10);
const warmup = Number(process.env.BENCH_WARMUP ?? 2);
const TARGET = 0.8;

if (!existsSync(bigDb)) {
  console.error(`${bigDb} does not exist: run node bench/seed-accounts.mjs --db=${bigDb} first`);
  process.exit(2);
}
for (const s of ['', '-wal', '-shm']) rmSync(emptyDb + s, { force: true });

/** Up to n accounts picked at random rowids of a seeded file (read before the sandbox opens it). */
function sampleAccounts(path, n) {
  const db = new Database(path, { readonly: true });
  try {
    const max = db.prepare('SELECT max(rowid) AS m FROM accounts').get().m ?? 0;
    const byRowid = db.prepare('SELECT account_id FROM accounts WHERE rowid = ?');
    const out = new Set();
    for (let tries = 0; out.size < n && tries < n * 20 && max > 0; tries++) {
      const row = byRowid.get(1 + Math.floor(Math.random() * max));
      if (row) out.add(row.account_id);
    }
    const total = db.prepare('SELECT count(*) AS n FROM accounts').get().n;
    return { ids: [...out], total };
  } finally {
    db.close();
  }
}

async function measureOn(path, label) {
  const sampled = existsSync(path) ? sampleAccounts(path, Math.max(c, 10)) : { ids: [], total: 0 };
  const sb = await startSandbox({ env: { SANDBOX_DB: path } });
  try {
    const token = await getToken(sb.url);
    // Reads hit stored accounts spread over the file; an empty store gets fresh ones.
    const ids = sampled.ids.length
      ? sampled.ids
      : (await makeAccounts(sb.url, token, Math.max(c, 10), 'scale')).map((a) => a.id);
    const gets = ids.map((id) => ({ method: 'GET', path: CONTROLS(id), headers: authHeaders(token) }));
    const out = { label, path, stored_accounts: sampled.total };
    await cannon(sb.url, { requests: gets, connections: c, duration: warmup });
    out.controlsGet = await cannon(sb.url, { requests: gets, connections: c, duration: seconds });
    const auth = { token };
    await cannon(sb.url, { requests: [registerNewRequest(auth)], connections: c, duration: warmup });
    out.register = await cannon(sb.url, {
      requests: [registerNewRequest(auth)],
      connections: c,
      duration: seconds,
    });
    out.rss_mib = +rssMiB(sb.pid).toFixed(1);
    return out;
  } finally {
    await sb.stop();
  }
}

// The empty file: created (migrations + fixtures) by starting the sandbox on it.
const empty = await measureOn(emptyDb, 'empty');
const big = await measureOn(bigDb, '1M');
const startupEmpty = await startupMedian(10, { SANDBOX_DB: emptyDb });
const startupBig = await startupMedian(10, { SANDBOX_DB: bigDb });

const ratio = (k) => big[k].rps / empty[k].rps;
const rows = ['controlsGet', 'register'].map((k) => ({
  workload: k === 'controlsGet' ? 'controls GET' : 'register (new account each)',
  empty_rps: empty[k].rps,
  big_rps: big[k].rps,
  empty_p99: empty[k].p99,
  big_p99: big[k].p99,
  empty_2xx: empty[k].rate2xx,
  big_2xx: big[k].rate2xx,
  ratio: ratio(k),
  pass: ratio(k) >= TARGET,
}));

console.log(`\nscale, c=${c}, ${seconds} s per run after ${warmup} s warm-up; file databases (WAL)`);
console.log(`empty: ${empty.stored_accounts} accounts before the run; 1M: ${big.stored_accounts} accounts\n`);
console.log(
  '| workload | empty req/s | 1M req/s | empty p99 ms | 1M p99 ms | 2xx (empty / 1M) | 1M / empty | target >= 0.8 |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.workload} | ${r.empty_rps.toFixed(0)} | ${r.big_rps.toFixed(0)} | ${r.empty_p99.toFixed(1)} | ${r.big_p99.toFixed(1)} | ${(r.empty_2xx * 100).toFixed(1)}% / ${(r.big_2xx * 100).toFixed(1)}% | ${r.ratio.toFixed(2)} | ${r.pass ? 'PASS' : 'FAIL'} |`,
  );
const fmtS = (s) =>
  `median ${s.median.toFixed(0)} ms (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)}, ${s.runs} runs)`;
console.log(`\nstart-up to healthy, empty file DB: ${fmtS(startupEmpty)}`);
console.log(`start-up to healthy, ${big.stored_accounts}-account file DB: ${fmtS(startupBig)}`);
console.log(`RSS at the end of the runs: empty ${empty.rss_mib} MiB, 1M ${big.rss_mib} MiB`);

const dir = join(root, 'bench/results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `scale-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(
  file,
  `${JSON.stringify({ date: new Date().toISOString(), connections: c, seconds, warmup, rows, empty, big, startupEmpty, startupBig }, null, 2)}\n`,
);
console.log(`\nwritten ${file}`);
