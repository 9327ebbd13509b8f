#!/usr/bin/env node
// Memory soak: the production build under a steady rate of mixed traffic, RSS of the
// child sampled every 10 s from /proc/<pid>/status (VmRSS).
//
// Usage: node bench/soak.mjs [--duration=600] [--rate=2000] [--connections=20]
//                            [--warmup=60] [--advance-clock=60] [--new-accounts=0]
//
// Mix, per cycle of 19 requests on every connection: 8 controls GET, 3 status GET,
// 1 vertical-mappings GET, 2 matched registers, 2 controls PUT (fresh key, chained hash),
// 1 status PUT (fresh key), 1 idempotent replay, 1 token grant (+ --new-accounts
// register-new slots per cycle, 0 by default: each new account is permanent state).
//
// --advance-clock=N: every N s the sandbox clock is advanced by 24 h + 1 s through the
// control plane, so the 24 h idempotency window and token expiry roll over as they would
// in a long-running sandbox and the stored state reaches its steady size. Tokens get a
// 2-day TTL for this (SANDBOX_TOKEN_TTL_SECONDS) and the bench swaps in a new one before
// each advance. --advance-clock=0 keeps the clock still (idempotency rows then pile up
// for the whole run, by design of the 24 h window).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  accountPool,
  cannon,
  controlsGetRequest,
  controlsPutRequest,
  getToken,
  makeAccounts,
  mappingsGetRequest,
  numberArg,
  registerBody,
  registerMatchedRequest,
  registerNewRequest,
  replayRequest,
  root,
  rssMiB,
  sleep,
  startSandbox,
  statusGetRequest,
  statusPutRequest,
  tokenRequest,
} from './lib.mjs';

const duration = numberArg('duration', 600);
const rate = numberArg('rate', 2000);
const connections = numberArg('connections', 20);
const warmup = numberArg('warmup', Math.min(60, Math.floor(duration / 5)));
const advanceEvery = numberArg('advance-clock', 60);
const newAccounts = numberArg('new-accounts', 0);

const sb = await startSandbox({
  env: advanceEvery > 0 ? { SANDBOX_TOKEN_TTL_SECONDS: String(2 * 86_400) } : {},
});
const log = (o) => console.log(JSON.stringify({ t: new Date().toISOString(), ...o }));
try {
  await sleep(2000);
  const idleRss = rssMiB(sb.pid);
  log({ event: 'idle', rss_mib: +idleRss.toFixed(1), pid: sb.pid });

  const auth = { token: await getToken(sb.url) };
  const accounts = await makeAccounts(sb.url, auth.token, connections * 2 + 10);
  const putPool = accountPool(accounts.slice(0, connections * 2));
  const statusPool = accountPool(accounts.slice(0, connections * 2).map((a) => ({ ...a })));
  const readAccounts = accounts;
  const replayAccount = accounts.at(-1).id;

  const get = controlsGetRequest(auth, readAccounts);
  const cycle = [
    get,
    get,
    statusGetRequest(auth, readAccounts),
    get,
    registerMatchedRequest(auth, 'bench-soak-matched'),
    controlsPutRequest(auth, putPool),
    get,
    statusGetRequest(auth, readAccounts),
    mappingsGetRequest(auth),
    get,
    tokenRequest(),
    statusPutRequest(auth, statusPool),
    get,
    registerMatchedRequest(auth, 'bench-soak-matched'),
    statusGetRequest(auth, readAccounts),
    get,
    controlsPutRequest(auth, putPool),
    replayRequest(auth, replayAccount, 'bench-soak-replay-key'),
    get,
  ];
  // The matched register needs its account to exist once.
  await fetch(`${sb.url}/v1/accounts/register/partnership`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${auth.token}`,
      'X-Platform-Parent-Account-Id': 'pa_demo_platform',
      'Content-Type': 'application/json',
    },
    body: registerBody('bench-soak-matched'),
  });
  for (let i = 0; i < newAccounts; i++) cycle.push(registerNewRequest(auth));
  log({
    event: 'start',
    duration,
    rate,
    connections,
    warmup,
    advance_clock_every_s: advanceEvery,
    cycle: cycle.length,
  });

  const samples = [];
  const t0 = performance.now();
  const sample = () => {
    const s = { t_s: Math.round((performance.now() - t0) / 1000), rss_mib: +rssMiB(sb.pid).toFixed(1) };
    samples.push(s);
    log({ event: 'sample', ...s });
  };
  const sampler = setInterval(sample, 10_000);

  let advances = 0;
  let advancing = false;
  let stopped = false;
  const advancer =
    advanceEvery > 0
      ? setInterval(async () => {
          if (advancing) return;
          advancing = true;
          try {
            if (stopped) return;
            auth.token = await getToken(sb.url);
            await sleep(250); // let requests built with the old token drain
            const res = await fetch(`${sb.url}/__sandbox/clock/advance`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json' },
              body: JSON.stringify({ seconds: 86_401 }),
            });
            await res.arrayBuffer();
            advances++;
          } catch (e) {
            log({ event: 'advance-failed', error: String(e) });
          } finally {
            advancing = false;
          }
        }, advanceEvery * 1000)
      : null;

  const result = await cannon(sb.url, { requests: cycle, connections, duration, overallRate: rate });
  stopped = true;
  clearInterval(sampler);
  if (advancer) clearInterval(advancer);
  while (advancing) await sleep(50);
  sample();

  const afterWarmup = samples.filter((s) => s.t_s >= warmup);
  const first = afterWarmup[0] ?? samples[0];
  const last = samples.at(-1);
  const drift = (last.rss_mib - first.rss_mib) / first.rss_mib;
  const summary = {
    idle_rss_mib: +idleRss.toFixed(1),
    rate_target: rate,
    achieved_rps: +(result.total / result.durationS).toFixed(0),
    rate2xx: +result.rate2xx.toFixed(4),
    status_codes: result.statusCodes,
    errors: result.errors,
    p50_ms: result.p50,
    p99_ms: result.p99,
    clock_advances: advances,
    first_after_warmup: first,
    last,
    peak_rss_mib: Math.max(...samples.map((s) => s.rss_mib)),
    drift_pct: +(drift * 100).toFixed(1),
    target: 'last within 15% of first after warm-up',
    pass: Math.abs(drift) <= 0.15,
    samples,
  };
  log({ event: 'summary', ...summary, samples: undefined });
  const dir = join(root, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ args: process.argv.slice(2), ...summary }, null, 2)}\n`);
  log({ event: 'written', file });
} finally {
  await sb.stop();
}
