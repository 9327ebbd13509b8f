#!/usr/bin/env node
// Snapshot restore time (issue 15 item 3: under 20 ms for the default fixtures plus 1,000
// accounts). Starts the production build (npm run build first), registers N accounts
// through the API (each with its pages, layouts, variants and controls list), saves a
// snapshot, then R times: one write (so there is something to undo) and
// POST /__sandbox/snapshots/{name}/restore, timed from the client (HTTP round trip
// included) and checked (the write is gone).
//
// Usage: npm run build && node bench/restore.mjs [--accounts=1000] [--rounds=50] [--db=PATH]
import { arg, authHeaders, getToken, REGISTER, registerBody, startSandbox } from './lib.mjs';

const accounts = Number(arg('accounts', 1000));
const rounds = Number(arg('rounds', 50));
const db = arg('db', undefined);

const sb = await startSandbox({ env: db ? { SANDBOX_DB: db } : {} });
try {
  const token = await getToken(sb.url);
  const headers = authHeaders(token);
  const register = async (external) => {
    const res = await fetch(sb.url + REGISTER, { method: 'POST', headers, body: registerBody(external) });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`register: ${res.status} ${JSON.stringify(body)}`);
    return body.data.account_id;
  };
  for (let i = 0; i < accounts; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, accounts - i) }, (_, j) => register(`bench-restore-${i + j}`)),
    );
  }
  const control = (method, path, body) =>
    fetch(sb.url + path, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: body && JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: await res.json() }));

  const saved = await control('POST', '/__sandbox/snapshots', { name: 'seeded' });
  if (saved.status !== 201) throw new Error(`save: ${saved.status} ${JSON.stringify(saved.body)}`);

  const times = [];
  for (let r = 0; r < rounds + 5; r++) {
    const extra = await register(`bench-restore-extra-${r}`);
    const t0 = performance.now();
    const res = await control('POST', '/__sandbox/snapshots/seeded/restore');
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`restore: ${res.status} ${JSON.stringify(res.body)}`);
    const gone = await control('GET', `/__sandbox/accounts/${extra}`);
    if (gone.status !== 404) throw new Error(`restore left account ${extra} (${gone.status})`);
    if (r >= 5) times.push(ms); // the first rounds warm up the JIT
  }
  times.sort((a, b) => a - b);
  const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  console.log(
    JSON.stringify({
      store: db ?? ':memory:',
      accounts,
      snapshot_bytes: saved.body.snapshot.size_bytes,
      rounds,
      restore_ms: {
        median: +q(0.5).toFixed(2),
        p95: +q(0.95).toFixed(2),
        max: +times[times.length - 1].toFixed(2),
      },
      target_ms: 20,
      ok: q(0.95) < 20,
    }),
  );
} finally {
  await sb.stop();
}
