/** The store: one connection, its statements prepared once, grouped by table. */
import { accountStore } from './accounts.js';
import { controlsStore } from './controls.js';
import { type Db, openDb } from './db.js';
import { idempotencyStore } from './idempotency.js';
import { partnerStore } from './partners.js';

export function createStore(path: string) {
  const db = openDb(path);
  const getMeta = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  const setMeta = db.prepare<[string, string]>(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  const partners = partnerStore(db);
  const controls = controlsStore(db);
  const accounts = accountStore(db);
  return {
    db,
    path,
    partners,
    accounts,
    controls,
    idempotency: idempotencyStore(db),
    meta: {
      get: (key: string) => getMeta.get(key)?.value,
      set: (key: string, value: string) => void setMeta.run(key, value),
    },
    /** Runs fn in one synchronous transaction (no await inside: that is what makes check-then-write atomic). */
    tx<T>(fn: () => T): T {
      return db.transaction(fn)();
    },
    /** Deletes every row (the control plane's reset); the schema stays. */
    wipe(): void {
      db.transaction(() => {
        for (const table of [
          'idempotency_keys',
          'controls_lists',
          'variants',
          'layouts',
          'pages',
          'accounts',
          'tokens',
          'vertical_mappings',
          'partners',
          'meta',
        ]) {
          db.exec(`DELETE FROM ${table}`);
        }
      })();
      partners.clearCaches();
      controls.clearCache();
      accounts.clearCache();
    },
    close(): void {
      if (db.open) db.close();
    },
  };
}
export type Store = ReturnType<typeof createStore>;
export type { Db };
