#!/usr/bin/env node
// Large imports (issue 30, item 6): POST /__sandbox/bundles of a partner with N accounts into a
// running production build, while another partner keeps calling (a mappings GET after another)
// and health is polled every 20 ms. Reports, per bundle size: its bytes, the import's time, the
// longest any other partner's call or health waited during it, and the server's peak RSS
// (sampled every 20 ms) against its RSS before.
//
// Then, unless --no-round-trip: the partner (as the last size left it) exported and imported
// back, every ID its own already (the swap deletes and writes every row); that row also gives
// the longest wait of another partner's call during the export.
//
// Usage: npm run build && node bench/import-large.mjs [--accounts=1000,10000,50000] [--shape=bare|fat] [--db=FILE]
//   --shape=bare: accounts without pages, layouts or variants (about 0.8 KB each, so the
//   largest bundle accepted holds far more of them)
//   --shape=fat: accounts whose controls list holds 10,000 long domains (about 1 MB each: the
//   largest bundle holds about 32)
import {
  authHeaders,
  getToken,
  partnerWithToken,
  REGISTER,
  registerBody,
  rssMiB,
  sandboxDist,
  sleep,
  startServer,
} from './lib.mjs';

const sizes = (process.argv.find((a) => a.startsWith('--accounts='))?.split('=')[1] ?? '1000,10000,50000')
  .split(',')
  .map(Number);
const bare = process.argv.includes('--shape=bare');
const fat = process.argv.includes('--shape=fat');
const roundTrip = !process.argv.includes('--no-round-trip');

/** A bundle of the demo partner with `n` copies of its one account, each with its own IDs. */
function bigBundle(base, n) {
  const [one] = base.accounts;
  const suffix = (id, i) => `${id.slice(0, 24)}-${i}`;
  const accounts = Array.from({ length: n }, (_, i) => ({
    ...one,
    account_id: `acct_big_${i}`,
    external_account_id: `ext-big-${i}`,
    pages: bare ? [] : one.pages.map((p) => ({ ...p, page_id: suffix(p.page_id, i) })),
    layouts: bare
      ? []
      : one.layouts.map((l) => ({
          ...l,
          layout_id: suffix(l.layout_id, i),
          page_id: suffix(l.page_id, i),
        })),
    variants: bare
      ? []
      : one.variants.map((v) => ({
          ...v,
          variant_id: suffix(v.variant_id, i),
          page_id: suffix(v.page_id, i),
        })),
    last_status_write: bare ? null : one.last_status_write,
    controls: {
      ...one.controls,
      list_id: suffix(one.controls.list_id, i),
      domains: fat
        ? Array.from({ length: 10_000 }, (_, j) => ({
            domain: `shop-${i}-${j}.a-rather-long-merchant-domain-name-for-the-bench.example.com`,
            policy: 'Block',
          }))
        : one.controls.domains,
    },
  }));
  return { ...base, accounts, journal: [], idempotency_keys: [] };
}

// --db=FILE: a file store (the swap is then one transaction: a process killed meanwhile leaves the old partner or the new one).
const db = process.argv.find((a) => a.startsWith('--db='))?.split('=')[1];
const sb = await startServer(sandboxDist().main, { env: db ? { SANDBOX_DB: db } : {} });
try {
  const token = await getToken(sb.url);
  const reg = await fetch(`${sb.url}${REGISTER}`, {
    method: 'POST',
    headers: authHeaders(token),
    body: registerBody('import-base'),
  });
  if (reg.status !== 200) throw new Error(`register ${reg.status}`);
  const base = await (await fetch(`${sb.url}/__sandbox/partners/pa_demo_platform/bundle`)).json();
  // The other partner: its own credentials and calls.
  const other = await partnerWithToken(sb.url, 'pa_bystander');
  const rows = [];
  const runs = sizes.map((n) => ({ label: n, text: () => JSON.stringify(bigBundle(base, n)) }));
  if (roundTrip && sizes.length > 0)
    runs.push({
      label: `${sizes.at(-1)} (round trip)`,
      text: async () => (await fetch(`${sb.url}/__sandbox/partners/pa_demo_platform/bundle`)).text(),
    });
  let exportWorst;
  for (const { label: n, text: bundleText } of runs) {
    // The round trip's export is measured as the import is: another partner's longest wait.
    let exporting = true;
    let worstDuringExport = 0;
    const exportBystander = (async () => {
      while (exporting && typeof n === 'string') {
        const t0 = performance.now();
        const res = await fetch(`${sb.url}/v1/partnership/vertical-mappings`, { headers: other.headers });
        await res.arrayBuffer();
        worstDuringExport = Math.max(worstDuringExport, performance.now() - t0);
      }
    })();
    const text = await bundleText();
    exporting = false;
    await exportBystander;
    if (typeof n === 'string') exportWorst = Math.round(worstDuringExport);
    await sleep(500);
    const rssBefore = rssMiB(sb.pid);
    let peak = rssBefore;
    let running = true;
    let worstCall = 0;
    let worstHealth = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(sb.pid));
    }, 20);
    const bystander = (async () => {
      while (running) {
        const t0 = performance.now();
        const res = await fetch(`${sb.url}/v1/partnership/vertical-mappings`, { headers: other.headers });
        await res.arrayBuffer();
        worstCall = Math.max(worstCall, performance.now() - t0);
      }
    })();
    const health = (async () => {
      while (running) {
        const t0 = performance.now();
        const res = await fetch(`${sb.url}/__sandbox/health`);
        await res.arrayBuffer();
        worstHealth = Math.max(worstHealth, performance.now() - t0);
        await sleep(20);
      }
    })();
    await sleep(200);
    const t0 = performance.now();
    const res = await fetch(`${sb.url}/__sandbox/bundles`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: text,
    });
    const answer = await res.text();
    const ms = performance.now() - t0;
    await sleep(100);
    running = false;
    clearInterval(sampler);
    await Promise.all([bystander, health]);
    if (res.status !== 200) throw new Error(`import of ${n}: ${res.status} ${answer.slice(0, 300)}`);
    rows.push({
      accounts: n,
      shape: fat ? 'fat' : bare ? 'bare' : 'demo',
      store: db ? 'file' : 'memory',
      bundle_mib: +(Buffer.byteLength(text) / 1024 / 1024).toFixed(1),
      import_ms: Math.round(ms),
      worst_other_call_ms: Math.round(worstCall),
      worst_health_ms: Math.round(worstHealth),
      rss_before_mib: +rssBefore.toFixed(1),
      rss_peak_mib: +peak.toFixed(1),
      ...(typeof n === 'string' ? { export_worst_other_call_ms: exportWorst } : {}),
    });
    console.error(JSON.stringify(rows.at(-1)));
  }
  console.log(JSON.stringify(rows, null, 2));
} finally {
  await sb.stop();
}
