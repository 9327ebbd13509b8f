#!/usr/bin/env -S npx tsx
// What a partner near its room pays on each write: the exact count of what it holds
// (store/sizes.ts `exact`), split into its stored answers' part, by the rows' `bytes` column and
// by the formula over each body that the column replaced (and with a covering index, for
// comparison). The demo partner gets --accounts accounts of the fixtures' shape and --answers
// stored answers of one controls PUT's answer, cloned in the store; each count is timed by
// process.cpuUsage() (CPU time: less sensitive to other load than wall time).
//   npx tsx bench/room-count.ts [--accounts=4000] [--answers=12000]
import { answerBytesSql } from '../src/store/sizes.js';
import { CONTROLS, createHarness, DEMO, expectOk, pair } from '../test/helpers/harness.js';

const num = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const ACCOUNTS = num('accounts', 4000);
const ANSWERS = num('answers', 12000);

const h = createHarness();
const demo = await h.client(DEMO);
const account = await demo.account();
const hash = expectOk(await demo.get(CONTROLS(account))).marketplace_controls_list.content_hash;
const list = { blockedVerticals: [pair(10, 1001)], domains: [], contentHash: hash };
await demo.put(CONTROLS(account), list, { 'Idempotency-Key': 'k0' });
const db = h.sandbox.store.db;
const q = (sql: string) => db.prepare(sql);
const clone = [
  q(`INSERT INTO accounts SELECT @id, parent_account_id, external_account_id || @n, brand, vertical_id,
     sub_vertical_id, country_code, store_identifier, auth_ready_at, created_at FROM accounts WHERE account_id = @from`),
  q(
    'INSERT INTO pages SELECT page_id || @n, @id, surface, page_identifier, created_at FROM pages WHERE account_id = @from',
  ),
  q(`INSERT INTO layouts SELECT layout_id || @n, page_id || @n, @id, layout_type, name, updated_at
     FROM layouts WHERE account_id = @from`),
  q(`INSERT INTO variants SELECT variant_id || @n, page_id || @n, @id, name, enabled, archived, created_at
     FROM variants WHERE account_id = @from`),
  q(`INSERT INTO controls_lists SELECT @id, list_id || @n, name, version, content_hash, blocked, domains, updated_at
     FROM controls_lists WHERE account_id = @from`),
];
const answer =
  q(`INSERT INTO idempotency_keys SELECT parent_account_id, key || @n, fingerprint, dry_run, state, status,
   body, expires_at, operation, reserved_at, bytes + length(@n) FROM idempotency_keys WHERE key = 'k0'`);
db.transaction(() => {
  for (let i = 1; i < ACCOUNTS; i++)
    for (const c of clone) c.run({ id: `acct_x${i}`, n: String(i), from: account });
  for (let i = 1; i < ANSWERS; i++) answer.run({ n: String(i) });
})();

const byFormula = q(
  `SELECT coalesce(sum(${answerBytesSql()}), 0) FROM idempotency_keys WHERE parent_account_id = ?`,
).pluck();
const byColumn = q(
  'SELECT coalesce(sum(bytes), 0) FROM idempotency_keys WHERE parent_account_id = ?',
).pluck();
const cpuMs = (f: () => unknown, n = 10) => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < n; i++) f();
  const d = process.cpuUsage(t0);
  return ((d.user + d.system) / n / 1000).toFixed(2);
};
const sizes = h.sandbox.store.sizes;
console.log(`${ACCOUNTS} accounts, ${ANSWERS} stored answers, node ${process.version}`);
for (let round = 1; round <= 3; round++) {
  console.log(
    `round ${round}: the whole count ${cpuMs(() => sizes.exact(DEMO.parent))} ms CPU; stored answers by the formula ` +
      `${cpuMs(() => byFormula.get(DEMO.parent), 5)} ms, by the column ${cpuMs(() => byColumn.get(DEMO.parent))} ms`,
  );
}
console.log(
  `bytes: ${sizes.exact(DEMO.parent)} in all; answers ${byFormula.get(DEMO.parent)} = ${byColumn.get(DEMO.parent)}`,
);
db.exec('CREATE INDEX bench_answer_bytes ON idempotency_keys (parent_account_id, bytes)');
const covered = q('SELECT coalesce(sum(bytes), 0) FROM idempotency_keys WHERE parent_account_id = ?').pluck();
console.log(`with a covering index (parent_account_id, bytes): ${cpuMs(() => covered.get(DEMO.parent))} ms`);
h.sandbox.close();
