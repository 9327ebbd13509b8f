#!/usr/bin/env node
// Loads N accounts (default 1,000,000) for parent pa_demo_platform straight into a
// sandbox SQLite file, with what a registration creates: per account 2 pages
// (fixtures/pages.json), 2 layouts, 2 variants and its controls list (the preset).
//
// Usage: node bench/seed-accounts.mjs [--db=/tmp/sandbox-1m.db] [--count=1000000] [--fresh]
//
// The sandbox is started once on the file (so migrations and fixtures exist) and stopped;
// then rows go in with better-sqlite3, prepared statements, 50k accounts per transaction.
// Column lists follow src/store/migrations.ts; ids follow src/domain/ids.ts.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { arg, root, startSandbox } from './lib.mjs';

const dbPath = arg('db', '/tmp/sandbox-1m.db');
const count = Number(arg('count', 1_000_000));
const parent = 'pa_demo_platform';
const BATCH = 50_000;

if (process.argv.includes('--fresh'))
  for (const s of ['', '-wal', '-shm']) rmSync(dbPath + s, { force: true });

if (!existsSync(dbPath)) {
  const sb = await startSandbox({ env: { SANDBOX_DB: dbPath } });
  await sb.stop();
}

const preset = JSON.parse(readFileSync(join(root, 'fixtures/preset.json'), 'utf8'));
const pages = JSON.parse(readFileSync(join(root, 'fixtures/pages.json'), 'utf8')).default_pages;
const blocked = preset.blocked_verticals;
const blockedJson = JSON.stringify(blocked);

const ALPHA = '0123456789abcdefghijklmnopqrstuvwxyz';
const lowerAlnum = (n) => {
  const bytes = randomBytes(n);
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHA[bytes[i] % 36];
  return s;
};
// The sandbox's content hash of a fresh list (src/domain/controls-list.ts contentHash).
const contentHash = (listId) =>
  createHash('sha256')
    .update(JSON.stringify([listId, 0, blocked, []]))
    .digest('hex')
    .slice(0, 40);

const db = new Database(dbPath);
if (db.prepare('SELECT value FROM meta WHERE key = ?').get('seeded')?.value !== '1')
  throw new Error(`${dbPath} has no fixtures; start the sandbox on it once first`);
const existing = db.prepare('SELECT count(*) AS n FROM accounts WHERE parent_account_id = ?').get(parent).n;
db.pragma('journal_mode = DELETE');
db.pragma('synchronous = OFF');
db.pragma('cache_size = -2000000');
db.pragma('temp_store = MEMORY');

const ins = {
  account: db.prepare(
    `INSERT INTO accounts (account_id, parent_account_id, external_account_id, brand, vertical_id,
       sub_vertical_id, country_code, store_identifier, auth_ready_at, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  page: db.prepare(
    'INSERT INTO pages (page_id, account_id, surface, page_identifier, created_at) VALUES (?, ?, ?, ?, ?)',
  ),
  layout: db.prepare(
    'INSERT INTO layouts (layout_id, page_id, account_id, layout_type, name, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  ),
  variant: db.prepare(
    `INSERT INTO variants (variant_id, page_id, account_id, name, enabled, archived, created_at)
     VALUES (?, ?, ?, ?, 1, 0, ?)`,
  ),
  controls: db.prepare(
    `INSERT INTO controls_lists (account_id, list_id, name, version, content_hash, blocked, domains, updated_at)
     VALUES (?, ?, ?, 0, ?, ?, '[]', ?)`,
  ),
};

const verticals = [
  [10, 1001],
  [20, 2002],
  [30, 3001],
  [40, 4004],
  [50, 5002],
];
const batch = db.transaction((from, to, at) => {
  for (let i = from; i < to; i++) {
    const accountId = `acct_${lowerAlnum(20)}`;
    const [v, sv] = verticals[i % verticals.length];
    ins.account.run(
      accountId,
      parent,
      `seed-${i}`,
      `Brand ${i}`,
      v,
      sv,
      'US',
      `https://store-${i}.example.com`,
      0,
      at,
    );
    for (const p of pages) {
      const pageId = randomUUID();
      ins.page.run(pageId, accountId, p.surface, `${p.surface}_${lowerAlnum(12)}`, at);
      ins.layout.run(randomUUID(), pageId, accountId, p.layout_type, `${p.surface} layout`, at);
      ins.variant.run(randomUUID(), pageId, accountId, `${p.surface} default`, at);
    }
    const listId = randomUUID();
    ins.controls.run(accountId, listId, preset.name, contentHash(listId), blockedJson, at);
  }
});

const t0 = performance.now();
for (let from = existing; from < count; from += BATCH) {
  batch(from, Math.min(count, from + BATCH), new Date().toISOString());
  process.stderr.write(`\r  ${Math.min(count, from + BATCH)} / ${count} accounts`);
}
process.stderr.write('\n');
db.pragma('journal_mode = WAL');
const n = db.prepare('SELECT count(*) AS n FROM accounts').get().n;
db.close();
console.log(
  `${dbPath}: ${n} accounts (${count - Math.min(existing, count)} added in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
);
