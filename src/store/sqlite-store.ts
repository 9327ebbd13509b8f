/**
 * The store: one connection, its statements prepared once (on first use: lazy-statements.ts),
 * grouped by table. The connection can be replaced (a snapshot restored): `replace` declares
 * every statement again and drops every cache in one call, on the same Store object, so code
 * that reaches the store through `sandbox.store` never holds a statement of a closed connection.
 */

import { mkdirSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { accountStore } from './accounts-table.js';
import { controlsStore } from './controls-table.js';
import { type Db, inMemory, openDb } from './db.js';
import { idempotencyStore } from './idempotency-table.js';
import { lazyPrepare } from './lazy-statements.js';
import type { MigrationHooks } from './migrations.js';
import { partnerStore } from './partners-table.js';
import { sizeStore } from './sizes.js';
import { openStaged, type StagedRows, stagedLeft, stageRows } from './staging.js';

/** Every table, children before parents (the order rows are deleted in). */
const TABLES = [
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
] as const;

/** A saved image of the database: in memory, or (a file store) a file beside it. */
export type StoreImage = { kind: 'memory'; bytes: Buffer } | { kind: 'file'; file: string; bytes: number };

function parts(db: Db) {
  // The tables' statements are prepared on first use (lazy-statements.ts), on this connection.
  const { db: tables, declared } = lazyPrepare(db);
  const getMeta = tables.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  const setMeta = tables.prepare<[string, string]>(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  );
  const deleteMeta = tables.prepare<[string]>('DELETE FROM meta WHERE key = ?');
  const metaPrefixed = tables.prepare<[string, string], { key: string; value: string }>(
    'SELECT key, value FROM meta WHERE key >= ? AND key < ? ORDER BY key',
  );
  return {
    db,
    /** Runs its argument in a transaction (better-sqlite3's, nested as savepoints): made once, not per call. */
    transact: db.transaction(<T>(fn: () => T): T => fn()),
    partners: partnerStore(tables),
    accounts: accountStore(tables),
    controls: controlsStore(tables),
    idempotency: idempotencyStore(tables),
    sizes: sizeStore(tables),
    /** The SQL of every statement the tables declared (prepared or not yet). */
    declared,
    meta: {
      get: (key: string) => getMeta.get(key)?.value,
      set: (key: string, value: string) => void setMeta.run(key, value),
      delete: (key: string) => void deleteMeta.run(key),
      /** Every row whose key starts with `prefix`, by key. */
      prefixed: (prefix: string) => metaPrefixed.all(prefix, `${prefix}\uffff`),
    },
  };
}

/**
 * The store's transactions, on its connection of the moment (`current()`: a restore replaces it):
 * `tx`, and `committed` for what may run only once they commit.
 */
function transactions(current: () => { db: Db; transact: (fn: () => unknown) => unknown }) {
  // What runs once the outermost `tx` commits, and how deep `tx` is nested.
  const onCommit: (() => void)[] = [];
  let depth = 0;
  return {
    /** Runs fn in one synchronous transaction (no await inside: that is what makes check-then-write atomic). */
    tx<T>(fn: () => T): T {
      const mark = onCommit.length;
      depth++;
      let result: T;
      try {
        result = current().transact(fn) as T;
      } catch (err) {
        onCommit.length = mark; // rolled back: what it asked for after a commit goes with it
        throw err;
      } finally {
        depth--;
      }
      if (depth === 0 && onCommit.length > 0) for (const after of onCommit.splice(0)) after();
      return result;
    },
    /**
     * Runs `after` once what was written so far is committed: now outside a transaction, when
     * the outermost `tx` commits inside one (never if it rolls back). Inside a transaction not
     * opened by `tx`, never: no commit of it is seen here.
     */
    committed(after: () => void): void {
      if (!current().db.inTransaction) after();
      else if (depth > 0) onCommit.push(after);
    },
  };
}

export function createStore(path: string, hooks: MigrationHooks) {
  const memory = inMemory(path);
  const snapshotDir = `${path}.snapshots`;
  // Snapshots live as long as their process (close() removes them): files left here are a
  // killed process's, unlisted and unreachable, so they go before anything else is opened.
  if (!memory) rmSync(snapshotDir, { recursive: true, force: true });
  const { tx, committed } = transactions(() => store);
  const store = {
    ...parts(openDb(path, hooks)),
    path,
    /** Whether it lives in memory only (`:memory:`): no file, nothing survives the process. */
    memory,
    tx,
    committed,
    /**
     * Runs fn (a transaction's writes) with the foreign keys not enforced: for rows checked
     * already, such as a large import's swap, where SQLite would otherwise look up each row's
     * parent again (a third of the swap's time). Every delete fn makes must name the children
     * itself: nothing cascades.
     */
    unchecked<T>(fn: () => T): T {
      store.db.pragma('foreign_keys = OFF');
      try {
        return fn();
      } finally {
        store.db.pragma('foreign_keys = ON');
      }
    },
    /** Deletes every row (the control plane's reset); the schema stays. */
    wipe(): void {
      store.tx(() => {
        for (const table of TABLES) store.db.exec(`DELETE FROM ${table}`);
      });
      store.clearCaches();
    },
    /**
     * Deletes one partner's accounts (their pages, layouts, variants and controls lists go
     * with them) and idempotency keys, in one transaction; its row, credentials, mapping
     * and tokens stay. Returns the IDs of the accounts it deleted.
     */
    wipePartner(parent: string): string[] {
      const ids = store.tx(() => {
        const gone = store.accounts.idsOf(parent);
        store.accounts.deleteOf(parent);
        store.idempotency.deleteOf(parent);
        return gone;
      });
      store.clearCaches();
      return ids;
    },
    /** Temporary tables a large import writes ahead into, then moves in at once (staging.ts). */
    stage(): StagedRows {
      return stageRows(store.db, !memory);
    },
    /** A file store's staging tables that a stopped process left (their rows, to finish a swap or drop). */
    stagesLeft(): StagedRows[] {
      return memory ? [] : stagedLeft(store.db).map((prefix) => openStaged(store.db, 'main', prefix));
    },
    /** Forgets every cached row (after rows changed behind the caches' backs). */
    clearCaches(): void {
      store.partners.clearCaches();
      store.controls.clearCache();
      store.accounts.clearCache();
      store.sizes.clearCache();
      store.idempotency.clearCache();
    },
  };
  return Object.assign(store, images(store, memory, snapshotDir));
}

/** What saving and restoring images needs of the store: its connection (replaced by a restore) and caches. */
type ImageHost = ReturnType<typeof parts> & { clearCaches(): void };

/** The store's whole-database images (snapshots), and its closing, which removes a file store's images. */
function images(store: ImageHost, memory: boolean, snapshotDir: string) {
  return {
    /**
     * The whole database as an image: `serialize()` of an in-memory store; a file store
     * writes `VACUUM INTO` a file in `<db>.snapshots/` beside it.
     */
    saveImage(name: string): StoreImage {
      if (memory) return { kind: 'memory', bytes: store.db.serialize() };
      mkdirSync(snapshotDir, { recursive: true });
      const file = `${snapshotDir}/${name}.db`;
      rmSync(file, { force: true });
      store.db.prepare('VACUUM INTO ?').run(file);
      return { kind: 'file', file, bytes: statSync(file).size };
    },
    /**
     * Puts the database back to an image, synchronously (no request runs in between).
     * In memory: a new connection deserialized from the image replaces the old one. A file
     * store keeps its file: the image is attached and every table replaced from it in one
     * transaction. Either way statements are prepared again and caches dropped.
     */
    restoreImage(image: StoreImage): void {
      if (image.kind === 'memory') {
        const next = new Database(image.bytes);
        next.pragma('foreign_keys = ON');
        const old = store.db;
        Object.assign(store, parts(next));
        old.close();
        return;
      }
      const db = store.db;
      db.prepare("ATTACH DATABASE ? AS 'snapshot'").run(image.file);
      try {
        db.transaction(() => {
          db.pragma('defer_foreign_keys = ON');
          for (const table of TABLES) db.exec(`DELETE FROM main.${table}`);
          for (const table of [...TABLES].reverse())
            db.exec(`INSERT INTO main.${table} SELECT * FROM snapshot.${table}`);
        })();
      } finally {
        db.exec('DETACH DATABASE snapshot');
      }
      store.clearCaches();
    },
    dropImage(image: StoreImage): void {
      if (image.kind === 'file') rmSync(image.file, { force: true });
    },
    close(): void {
      if (store.db.open) store.db.close();
      if (!memory) rmSync(snapshotDir, { recursive: true, force: true });
    },
  };
}
export type Store = ReturnType<typeof createStore>;
export type { Db };
