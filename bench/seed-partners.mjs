#!/usr/bin/env node
// Seeds a file store with many partners, as a hosted sandbox holds them: each partner created
// on the control plane, a token, one registered account and one controls PUT with an
// Idempotency-Key (a stored key per partner). The file is left for bench/startup.mjs and
// bench/hosted-*.mjs to open.
//
// Usage: npm run build && node bench/seed-partners.mjs [--db=/tmp/sandbox-10k.db] [--partners=10000]
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  arg,
  CONTROLS,
  controlsBody,
  freshKey,
  numberArg,
  partnerWithToken,
  REGISTER,
  registerBody,
  root,
  startSandbox,
} from './lib.mjs';

// The default fixtures' taxonomy, as the control plane's seeding body.
const taxonomy = JSON.parse(readFileSync(join(root, 'fixtures', 'taxonomy.json'), 'utf8'));
const mappings = JSON.stringify({
  vertical_mappings: taxonomy.verticals.flatMap((v) =>
    v.sub_verticals.map((s) => ({
      partner_vertical_id: v.partner_vertical_id,
      partner_vertical_name: v.partner_vertical_name,
      ...s,
    })),
  ),
});

const db = arg('db', '/tmp/sandbox-10k.db');
const partners = numberArg('partners', 10_000);
const parallel = numberArg('parallel', 16);
// --from=N adds partners N and up to a file seeded before.
const from = numberArg('from', 0);

if (from === 0) for (const s of ['', '-wal', '-shm']) rmSync(db + s, { force: true });
const sb = await startSandbox({ env: { SANDBOX_DB: db } });
const t0 = performance.now();
try {
  let next = from;
  const worker = async () => {
    for (let i = next++; i < partners; i = next++) {
      const p = await partnerWithToken(sb.url, `pa_seed_${String(i).padStart(6, '0')}`);
      const seeded = await fetch(`${sb.url}/__sandbox/partners/${p.parent}/vertical-mappings`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: mappings,
      });
      if (seeded.status !== 200) throw new Error(`seed mappings: ${seeded.status} ${await seeded.text()}`);
      const json = { ...p.headers, 'Content-Type': 'application/json' };
      const body = { ...JSON.parse(registerBody(`seed-${i}`)), platform_parent_account_id: p.parent };
      const reg = await fetch(sb.url + REGISTER, {
        method: 'POST',
        headers: json,
        body: JSON.stringify(body),
      });
      const registered = await reg.json();
      const account = registered.data?.account_id;
      if (!account) throw new Error(`register: ${reg.status} ${JSON.stringify(registered)}`);
      const got = await fetch(sb.url + CONTROLS(account), { headers: p.headers });
      const hash = (await got.json()).data.marketplace_controls_list.content_hash;
      const res = await fetch(sb.url + CONTROLS(account), {
        method: 'PUT',
        headers: { ...json, 'Idempotency-Key': freshKey() },
        body: controlsBody(hash),
      });
      if (res.status !== 200) throw new Error(`controls PUT: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
} finally {
  await sb.stop();
}
console.log(`${db}: ${partners} partners in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
