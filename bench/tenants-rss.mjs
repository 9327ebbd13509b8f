#!/usr/bin/env node
// The journal's memory budget across partners (issue 30, item 1): RSS of the production build
// while 200 partners are busy at once, each sending partnership calls (a mappings GET, the
// largest answer: about 6 KB journaled), with SANDBOX_JOURNAL_BUDGET_MB set. Readings are
// taken 1 s after a memory-reducing full garbage collection in the server (SIGUSR2,
// gc-on-signal.mjs: what V8 keeps is then what is retained, the journal included); the peak is
// sampled every 50 ms during the load, garbage included, and `left_alone_10s` is the RSS 10 s
// after the load with no collection asked for (V8 keeps the heap the load grew). The budget
// holds when the settled RSS after the load stays within the idle RSS plus the budget.
// BENCH_V8="--optimize-for-size" passes V8 flags to the server.
//
// Usage: npm run build && node bench/tenants-rss.mjs [--partners=200] [--calls=150] [--budget-mb=64]
import {
  authHeaders,
  getToken,
  numberArg,
  partnerWithToken,
  rssMiB,
  sandboxDist,
  settledRssMiB,
  startServer,
} from './lib.mjs';

const partners = numberArg('partners', 200);
const calls = numberArg('calls', 150);
const budgetMb = numberArg('budget-mb', 64);

const sb = await startServer(new URL('./gc-on-signal.mjs', import.meta.url).pathname, {
  env: { SANDBOX_JOURNAL_BUDGET_MB: String(budgetMb), BENCH_GC: 'last-resort' },
  args: [sandboxDist().main],
  nodeArgs: ['--expose-gc'],
});
const settledRss = () => settledRssMiB(sb);
const post = async (path, body) => {
  const res = await fetch(`${sb.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};
try {
  const idle = await settledRss();
  // Each partner gets the demo partner's taxonomy: its mappings GET is the largest answer.
  const demoToken = await getToken(sb.url);
  const mappings = (
    await (
      await fetch(`${sb.url}/v1/partnership/vertical-mappings`, { headers: authHeaders(demoToken) })
    ).json()
  ).data.vertical_mappings.map(({ created_at: _, ...m }) => m);
  const tenants = [];
  for (let i = 0; i < partners; i++) {
    // Created and given a token before its mapping: the token call sees no mapping either way.
    const t = await partnerWithToken(sb.url, `pa_rss_${i}`);
    const seeded = await fetch(`${sb.url}/__sandbox/partners/${t.parent}/vertical-mappings`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ vertical_mappings: mappings }),
    });
    if (seeded.status !== 200) throw new Error(`seed: ${seeded.status} ${await seeded.text()}`);
    tenants.push(t);
  }
  let peak = rssMiB(sb.pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(sb.pid));
  }, 50);
  const t0 = performance.now();
  await Promise.all(
    tenants.map(async (t) => {
      for (let i = 0; i < calls; i++) {
        const res = await fetch(`${sb.url}/v1/partnership/vertical-mappings`, { headers: t.headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`mappings: ${res.status}`);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  // Left alone 10 s: what V8 keeps of the heap the load grew (garbage included) when nothing
  // asks it to give memory back.
  await new Promise((r) => setTimeout(r, 10_000));
  const leftAlone = rssMiB(sb.pid);
  const after = await settledRss();
  const entries = (await post('/__sandbox/requests/count', {})).count;
  const quiet = (await post('/__sandbox/requests/count', { parent_account_id: tenants[0].parent })).count;
  console.log(
    JSON.stringify(
      {
        partners,
        calls_per_partner: calls,
        seconds: +seconds.toFixed(1),
        budget_mib: budgetMb,
        journal_entries_kept: entries,
        first_partner_entries: quiet,
        rss_mib: {
          idle: +idle.toFixed(1),
          peak: +peak.toFixed(1),
          left_alone_10s: +leftAlone.toFixed(1),
          settled_after: +after.toFixed(1),
        },
        within_budget: after <= idle + budgetMb,
      },
      null,
      2,
    ),
  );
} finally {
  await sb.stop();
}
