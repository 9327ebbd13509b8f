#!/usr/bin/env node
// Armed scenarios at volume (issue 30, item 2): a bystander partner's mappings GET, one call
// after another, with no scenario armed and then with 20,000 armed for 20 other partners
// (1,000 each, the most one partner may hold), in the same run against the production build.
// Reports the median and p99 of each, in ms.
//
// Usage: npm run build && node bench/armed-many.mjs [--calls=2000] [--partners=20]
import { numberArg, partnerWithToken, sandboxDist, startServer } from './lib.mjs';

const calls = numberArg('calls', 2000);
const partners = numberArg('partners', 20);

const sb = await startServer(sandboxDist().main);
const post = async (path, body, method = 'POST') => {
  const res = await fetch(`${sb.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};
async function latencies(headers) {
  const out = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const res = await fetch(`${sb.url}/v1/partnership/vertical-mappings`, { headers });
    await res.arrayBuffer();
    out.push(performance.now() - t0);
  }
  out.sort((a, b) => a - b);
  return {
    median_ms: +out[Math.floor(out.length / 2)].toFixed(2),
    p99_ms: +out[Math.floor(out.length * 0.99)].toFixed(2),
  };
}
try {
  const { headers } = await partnerWithToken(sb.url, 'pa_bystander');
  await latencies(headers); // warm-up
  const none = await latencies(headers);
  for (let p = 0; p < partners; p++) {
    const { parent_account_id } = await post('/__sandbox/partners', { parent_account_id: `pa_armed_${p}` });
    for (let i = 0; i < 1000; i++)
      await post('/__sandbox/scenarios', { scenario: 'latency', value: 0, parent_account_id }, 'PUT');
  }
  const many = await latencies(headers);
  console.log(JSON.stringify({ calls, armed_none: none, [`armed_${partners * 1000}`]: many }, null, 2));
} finally {
  await sb.stop();
}
