/**
 * A new database is given the migrations' result in one script (src/store/fresh-schema.ts,
 * generated from the migrations by `npm run generate`), not each migration in turn: it must be
 * the database the migrations build, row for row of `sqlite_master` (each table's and index's
 * text, in order) and the same user_version, and the file must be what the migrations render
 * now (a new migration without `npm run generate` fails here).
 */
import { readFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  FRESH_SCHEMA_FILE,
  migratedOneByOne,
  renderFreshSchema,
} from '../../scripts/generate-control-operations.js';
import { hashSecretSync } from '../../src/domain/secrets.js';
import { openDb } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations.js';
import { createHarness, DEMO } from '../helpers/harness.js';

type Db = InstanceType<typeof Database>;

const master = (db: Db) =>
  db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid').all() as {
    sql: string | null;
  }[];

describe('a new store is given the schema the migrations build', () => {
  it('same sqlite_master, row for row, and the same user_version', () => {
    const migrated = migratedOneByOne();
    const fresh = openDb(':memory:', { hashSecret: hashSecretSync });
    expect(master(fresh), 'run `npm run generate`').toEqual(master(migrated));
    expect(fresh.pragma('user_version', { simple: true })).toBe(migrations.length);
    migrated.close();
    fresh.close();
  });

  it('src/store/fresh-schema.ts is what the migrations render now (`npm run generate`)', () => {
    expect(readFileSync(FRESH_SCHEMA_FILE, 'utf8')).toBe(renderFreshSchema());
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
