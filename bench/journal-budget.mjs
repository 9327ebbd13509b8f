#!/usr/bin/env node
// What keeping the journal's budget costs a call, by the number of partners (SANDBOX.md
// section 13: the same whatever the number; issue 39 item 3). In process, on the journal
// itself (src/core/journal.ts, through tsx): the budget is filled with `--entries` entries
// spread over P partners (each partner a ring; with one partner its ring may hold them all),
// then `--calls` more are filed round-robin, each past the budget, so each evicts. Reports CPU
// microseconds per filed call (process.cpuUsage: what other processes on a shared machine take
// is not counted), for each P in `--partners`, each twice in alternation.
//
// Usage: npx tsx bench/journal-budget.mjs [--partners=1,10000] [--entries=50000] [--calls=200000]
//          [--module=PATH]  (another journal.ts to compare, e.g. an older one: `git show REV:src/core/journal.ts`
//          saved beside the current one under src/core/)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { arg, numberArg } from './lib.mjs';

const { Journal } = await import(
  pathToFileURL(resolve(arg('module', new URL('../src/core/journal.ts', import.meta.url).pathname))).href
);

const counts = arg('partners', '1,10000').split(',').map(Number);
const entries = numberArg('entries', 50_000);
const calls = numberArg('calls', 200_000);

/** A call as the request path files it: a status GET of a partner, its 404 answer. */
const record = (parent, n) => ({
  at: Date.now(),
  partnerAt: null,
  method: 'GET',
  url: 'http://127.0.0.1:4010/v1/partnership/accounts/acct_none/status',
  headers: ['accept', '*/*', 'authorization', 'Bearer abcdefabcdef', 'x-platform-parent-account-id', parent],
  requestBody: null,
  status: 404,
  responseBody: { error: { code: 'not_found', message: 'Account acct_none not found', details: [] } },
  responseHeaders: { 'content-type': 'application/json' },
  request_id: `req_${n}`,
  trace: null,
  parent_account_id: parent,
  account_id: 'acct_none',
  scenarios_applied: [],
  chaos: null,
  warnings: [],
  duration_ms: 1,
});

function run(partners) {
  const parents = Array.from({ length: partners }, (_, i) => `pa_${i}`);
  // The budget just holds `entries` of them; a partner may hold them all (no per-partner bound to meet first).
  const probe = new Journal(entries, 16 * 1024);
  probe.add(record(parents[0], 0));
  const journal = new Journal(entries, 16 * 1024, probe.bytes * entries);
  for (let n = 0; n < entries; n++) journal.add(record(parents[n % partners], n));
  const before = process.cpuUsage();
  for (let n = 0; n < calls; n++) journal.add(record(parents[n % partners], n));
  const used = process.cpuUsage(before);
  return {
    partners,
    entries_held: journal.size,
    cpu_us_per_call: Math.round(((used.user + used.system) / calls) * 100) / 100,
  };
}

const rows = [];
for (let round = 0; round < 2; round++) for (const p of counts) rows.push(run(p));
console.log(
  JSON.stringify({ node: process.version, date: new Date().toISOString(), entries, calls, rows }, null, 2),
);
