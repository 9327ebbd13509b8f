/**
 * A stored answer's size in a partner's room (store/sizes.ts) is kept in its row (`bytes`), so
 * the partner's count sums a column instead of reading every answer's body. The column must be
 * what the count took from the body before: every column's bytes as text, ROW_BYTES, and the
 * body's quotes and backslashes twice. Checked for rows written through HTTP (a write, a dry
 * run, a reservation in flight, an import) and for the rows of a durable store of the earlier
 * schema (version 5), which the migration sizes at start-up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { hashSecretSync } from '../../src/domain/secrets.js';
import { migrations } from '../../src/store/migrations.js';
import { ANSWER_COLUMNS, ROW_BYTES } from '../../src/store/sizes.js';
import { CONTROLS, createHarness, DEMO, expectOk, pair } from '../helpers/harness.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Db = Database.Database;

/** Each stored answer's `bytes` beside its size counted from its columns, as the count did before. */
function sizes(db: Db) {
  const all = (db.pragma('table_info(idempotency_keys)') as { name: string }[]).map((c) => c.name);
  const columns = all.filter((c) => c !== 'bytes');
  const each = columns.map((c) => `coalesce(length(CAST(${c} AS BLOB)), 4)`).join(' + ');
  const escapes = `coalesce(length(body) - length(replace(replace(body, '"', ''), '\\', '')), 0)`;
  const bytes = all.includes('bytes') ? 'bytes' : 'NULL';
  return db
    .prepare<[], { key: string; state: string; bytes: number | null; counted: number }>(
      `SELECT key, state, ${bytes} AS bytes, ${ROW_BYTES} + ${each} + ${escapes} AS counted FROM idempotency_keys ORDER BY key`,
    )
    .all();
}

describe("a stored answer's size kept in its row", () => {
  it('counts every column of the schema but `bytes`', () => {
    const h = createHarness();
    const columns = (h.sandbox.store.db.pragma('table_info(idempotency_keys)') as { name: string }[]).map(
      (c) => c.name,
    );
    expect([...columns].sort()).toEqual([...ANSWER_COLUMNS, 'bytes'].sort());
  });

  it('is what the count read from the body, for rows written through HTTP, reserved, and imported', async () => {
    const h = createHarness();
    const demo = await h.client(DEMO);
    const account = await demo.account();
    const hash = expectOk(await demo.get(CONTROLS(account))).marketplace_controls_list.content_hash;
    // The stored answer is JSON: its quotes count twice.
    const list = {
      blockedVerticals: [pair(10, 1001)],
      domains: [{ domain: 'quote.example', policy: 'Block' }],
      contentHash: hash,
    };
    expect(
      (await demo.put(`${CONTROLS(account)}?dry_run=true`, list, { 'Idempotency-Key': 'dry' })).status,
    ).toBeLessThan(300);
    expect((await demo.put(CONTROLS(account), list, { 'Idempotency-Key': 'written' })).status).toBe(200);
    // A reservation in flight, as the store holds it while its request runs.
    const now = h.sandbox.clock.now(DEMO.parent);
    h.sandbox.store.idempotency.reserve(
      {
        parent_account_id: DEMO.parent,
        key: 'in flight',
        operation: 'PUT /x',
        fingerprint: 'f',
        dry_run: 0,
        expires_at: now + 1000,
      },
      now,
    );
    let rows = sizes(h.sandbox.store.db);
    expect(rows.map((r) => r.state).sort()).toEqual(['done', 'done', 'in_progress']);
    for (const r of rows) expect(r.bytes, r.key).toBe(r.counted);
    const before = h.sandbox.store.sizes.exact(DEMO.parent);

    // Exported and imported back: the imported rows are sized as they are written.
    h.sandbox.store.idempotency.release(DEMO.parent, 'in flight');
    const bundle = await h.app.request(`/__sandbox/partners/${DEMO.parent}/bundle`);
    const imported = await h.app.request('/__sandbox/bundles', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: await bundle.text(),
    });
    expect(imported.status).toBe(200);
    rows = sizes(h.sandbox.store.db);
    expect(rows.length).toBe(2);
    for (const r of rows) expect(r.bytes, r.key).toBe(r.counted);
    expect(h.sandbox.store.sizes.exact(DEMO.parent)).toBeGreaterThan(0);
    expect(h.sandbox.store.sizes.exact(DEMO.parent)).toBeLessThan(before);
  });

  it('an answer stored with its body counted in JS is sized as the SQL counts it: quotes, backslashes, 2-, 3- and 4-byte characters, a lone surrogate', () => {
    const h = createHarness();
    const store = h.sandbox.store.idempotency;
    const now = h.sandbox.clock.now(DEMO.parent);
    const bodies = [
      '{"data":{"name":"a \\"quoted\\" \\\\ name"}}',
      `{"name":"${'é'.repeat(50)}"}`,
      '{"name":"中文 and 😀 twice 😀"}',
      '{"name":"a lone \ud800 and \udc00 surrogate"}',
      '',
    ];
    for (const [i, body] of bodies.entries()) {
      const key = `js-${i}`;
      const row = { parent_account_id: DEMO.parent, key, operation: 'PUT /x', fingerprint: 'f', dry_run: 0 };
      expect(store.reserve({ ...row, expires_at: now + 1000 }, now)).toBe(true);
      store.complete(DEMO.parent, key, 200, body);
    }
    const rows = sizes(h.sandbox.store.db).filter((r) => r.key.startsWith('js-'));
    expect(rows).toHaveLength(bodies.length);
    for (const r of rows) expect(r.bytes, r.key).toBe(r.counted);
  });

  it("a durable store of the earlier schema: the migration sizes its stored answers, and the partner's count is what it was", () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-answer-bytes-'));
    dirs.push(dir);
    const path = join(dir, 'sandbox.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    for (const step of migrations.slice(0, 5)) {
      if (typeof step === 'string') db.exec(step);
      else step(db, { hashSecret: hashSecretSync });
    }
    db.pragma('user_version = 5');
    const insert = db.prepare(
      `INSERT INTO idempotency_keys (parent_account_id, key, operation, fingerprint, dry_run, state, status, body, expires_at, reserved_at)
       VALUES (?, ?, 'PUT /x', 'f', 0, ?, ?, ?, 4102444800000, ?)`,
    );
    insert.run(DEMO.parent, 'a', 'done', 200, '{"data":{"name":"a \\"quoted\\" \\\\ name"}}', 0);
    insert.run(DEMO.parent, 'b', 'done', 200, 'é'.repeat(100), 1_700_000_000_000);
    insert.run('pa_other', 'c', 'done', 201, '{}', 1_700_000_000_000);
    const before = sizes(db);
    db.close();
    expect(before.map((r) => r.bytes)).toEqual([null, null, null]); // no column yet

    const h = createHarness({ db: path });
    try {
      expect(h.sandbox.store.db.pragma('user_version', { simple: true })).toBe(migrations.length);
      const after = sizes(h.sandbox.store.db);
      expect(after.map((r) => r.key)).toEqual(['a', 'b', 'c']);
      for (const [i, r] of after.entries()) {
        expect(r.counted, r.key).toBe(before[i]!.counted);
        expect(r.bytes, r.key).toBe(r.counted);
      }
    } finally {
      h.sandbox.close();
    }
  });
});
