/**
 * A new database is given the migrations' result in one script (store/migrations.ts SCHEMA),
 * not each migration in turn: it must be the database the migrations build, row for row of
 * `sqlite_master` (each table's and index's text, in order) and the same user_version. When a
 * new migration makes them differ, the failure prints the script to paste as SCHEMA.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hashSecretSync } from '../../src/domain/secrets.js';
import { openDb } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations.js';
import { createHarness, DEMO } from '../helpers/harness.js';

type Db = InstanceType<typeof Database>;

const master = (db: Db) =>
  db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid').all() as {
    sql: string | null;
  }[];

/** An empty database taken through every migration, one after another (as an old store is). */
function migratedOneByOne(): Db {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  for (const [i, step] of migrations.entries()) {
    db.transaction(() => {
      if (typeof step === 'string') db.exec(step);
      else step(db, { hashSecret: hashSecretSync });
      db.pragma(`user_version = ${i + 1}`);
    })();
  }
  return db;
}

describe('a new store is given the schema the migrations build', () => {
  it('same sqlite_master, row for row, and the same user_version', () => {
    const migrated = migratedOneByOne();
    const fresh = openDb(':memory:', { hashSecret: hashSecretSync });
    const script = master(migrated)
      .filter((row) => row.sql !== null)
      .map((row) => `  ${row.sql};`)
      .join('\n');
    expect(master(fresh), `SCHEMA in src/store/migrations.ts should read:\n${script}`).toEqual(
      master(migrated),
    );
    expect(fresh.pragma('user_version', { simple: true })).toBe(migrations.length);
    migrated.close();
    fresh.close();
  });

  it('a sandbox on a new store grants a fixture partner a token and lists its partners', async () => {
    const h = createHarness();
    // The token grant reads the secret's columns (added by migration 4) of the seeded partner.
    expect(await h.token()).toMatch(/\S{16,}/);
    const res = await h.request('GET', '/__sandbox/partners');
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain(DEMO.parent);
    h.sandbox.close();
  });
});
