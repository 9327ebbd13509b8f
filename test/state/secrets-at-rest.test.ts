/**
 * Client secrets at rest (docs/parallel-tests.md, issue 25 item 1): a durable store made by an
 * earlier version (user_version 3, the secret in clear) is migrated on start-up. Its
 * partners, the fixtures' documented ones included, keep their credentials through HTTP,
 * and the store file holds no secret in clear afterwards.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/migrations.js';
import { createHarness, DEMO, type Harness, MAPPINGS } from '../helpers/harness.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const CHOSEN = { parent: 'pa_earlier', clientId: 'earlier-client', clientSecret: 'earlier secret: p@ss+1' };
/** A secret an earlier version generated (`secret_` and 40 random characters). */
const GENERATED = {
  parent: 'pa_generated',
  clientId: 'client_generated',
  clientSecret: 'secret_Qx3-k9ZbT_7mWc2LpV8nHf4RdYs6JgE1aNuK0oBi',
};

/** A store as version 3 of the schema left it: the fixtures seeded, one more partner, secrets in clear. */
function earlierStore(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-secrets-'));
  dirs.push(dir);
  const path = join(dir, 'sandbox.db');
  const db = new Database(path);
  for (const [i, step] of migrations.slice(0, 3).entries()) {
    if (typeof step !== 'string') throw new Error(`migration ${i + 1} is not SQL`);
    db.exec(step);
  }
  db.pragma('user_version = 3');
  const insert = db.prepare(
    'INSERT INTO partners (parent_account_id, client_id, client_secret, name, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const at = new Date().toISOString();
  insert.run(DEMO.parent, DEMO.clientId, DEMO.clientSecret, 'Demo Commerce Platform', at);
  insert.run(CHOSEN.parent, CHOSEN.clientId, CHOSEN.clientSecret, 'Earlier partner', at);
  insert.run(GENERATED.parent, GENERATED.clientId, GENERATED.clientSecret, 'Generated', at);
  db.prepare("INSERT INTO meta (key, value) VALUES ('seeded', '1')").run();
  db.close();
  expect(readFileSync(path).includes(CHOSEN.clientSecret)).toBe(true); // the test's premise
  return path;
}

const tokenStatus = async (h: Harness, id: string, secret: string) =>
  (
    await h.request('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: id, client_secret: secret },
    })
  ).status;

describe('a durable store of an earlier version (secrets in clear) is migrated at start-up', () => {
  it('its partners keep their credentials; a wrong secret is 401; the file holds no secret in clear', async () => {
    const path = earlierStore();
    const h = createHarness({ db: path });
    expect(h.sandbox.store.db.pragma('user_version', { simple: true })).toBe(migrations.length);
    for (const p of [DEMO, CHOSEN, GENERATED]) {
      expect(await tokenStatus(h, p.clientId, p.clientSecret)).toBe(200);
      expect(await tokenStatus(h, p.clientId, `${p.clientSecret}!`)).toBe(401);
    }
    // A person's secret gets the slow hash; a generated one (238 bits) salted SHA-256.
    const algorithms = h.sandbox.store.partners.all().map((p) => [p.client_id, p.secret_algorithm]);
    expect(Object.fromEntries(algorithms)).toEqual({
      [DEMO.clientId]: 'scrypt-n16384-r8-p1',
      [CHOSEN.clientId]: 'scrypt-n16384-r8-p1',
      [GENERATED.clientId]: 'sha256-salted',
    });
    const bearer = await h.token(CHOSEN.clientId, CHOSEN.clientSecret);
    const res = await h.request('GET', MAPPINGS, { headers: { Authorization: `Bearer ${bearer}` } });
    expect(res.status).toBe(200); // this partner has no mapping: an empty list, its own
    expect(res.body.data).toEqual({ vertical_mappings: [] });
    // Already while it runs: neither the file nor its write-ahead log holds a secret in clear.
    for (const file of [path, `${path}-wal`]) {
      const bytes = readFileSync(file);
      for (const p of [DEMO, CHOSEN, GENERATED])
        expect([file, bytes.includes(p.clientSecret)]).toEqual([file, false]);
    }
    const bundle = await h.request('GET', `/__sandbox/partners/${CHOSEN.parent}/bundle`);
    expect(bundle.status).toBe(200);
    expect(bundle.text).not.toContain(CHOSEN.clientSecret);
    h.sandbox.close();

    const file = readFileSync(path);
    expect(file.includes(CHOSEN.clientSecret)).toBe(false);
    expect(file.includes(DEMO.clientSecret)).toBe(false);
    expect(file.includes(GENERATED.clientSecret)).toBe(false);
    // Started again on the migrated file: nothing more to migrate, the credentials still work.
    const again = createHarness({ db: path });
    expect(await tokenStatus(again, CHOSEN.clientId, CHOSEN.clientSecret)).toBe(200);
    again.sandbox.close();
  });
});
