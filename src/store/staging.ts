/**
 * A large import's rows written ahead, a slice at a time, into tables no reader sees (each
 * import its own), then moved into the real tables a slice at a time too (INSERT … SELECT by
 * rowid), while the partner's calls wait (state/bundles/swap-gate.ts): the slow part (binding tens of
 * thousands of rows from JavaScript, then moving them) runs between other requests.
 *
 * In memory the tables are temporary. A file store keeps them in the database itself, with a
 * marker row naming the partner once the swap has begun, so that a process killed during the
 * swap finishes it at the next start-up (`finishSwap`): the partner is then the new one, never
 * a mix.
 */

import type { Statement } from 'better-sqlite3';
import type { NewAccount } from './accounts-table.js';
import type { StoredControlsRow } from './controls-table.js';
import type { Db } from './db.js';

/** One account's rows as staged: what registration writes, its controls list (as stored) and meta rows. */
export interface StagedAccount extends NewAccount {
  controls: StoredControlsRow;
  meta: { key: string; value: string }[];
}

/** In the order they are moved in (a row's parent before it: the foreign keys hold). */
const TABLES = ['accounts', 'pages', 'layouts', 'variants', 'controls_lists', 'meta'] as const;
type Table = (typeof TABLES)[number];

let opened = 0;

/** The meta key of a swap under way in a file store: `{parent, prefix}` as JSON. */
export const SWAP_MARKER = 'import_swap';
/** How the staging tables of one import are named: `<prefix>_<table>`. */
const PREFIX = 'import_stage_';

export interface StagedRows {
  /** What names its tables (a file store's marker keeps it). */
  readonly prefix: string;
  /** Writes these accounts' rows (one short transaction). */
  add(accounts: readonly StagedAccount[]): void;
  /** Whether this store is still the one staged into (an in-memory store restored from a snapshot is another). */
  isIn(db: Db): boolean;
  /**
   * Whether another partner than `parent` holds one of the staged IDs now (taken since they
   * were checked): one query per kind of ID, each a step.
   */
  taken(parent: string): (() => boolean)[];
  /** Moves up to `limit` staged rows into the real tables (call inside a transaction); false once all are in. */
  moveSome(limit: number): boolean;
  /**
   * Moves every staged row into the real tables, from the first (call inside a transaction,
   * once the partner's accounts are deleted: those moved by slices already go in again); false,
   * and nothing moved, when the store is no longer the one staged into.
   */
  moveInto(db: Db): boolean;
  /** Drops the staging tables. */
  drop(): void;
}

/** New staging tables: temporary ones in memory, in the database itself for a file store (`durable`). */
export function stageRows(db: Db, durable: boolean): StagedRows {
  const schema = durable ? 'main' : 'temp';
  let prefix: string;
  do prefix = `${PREFIX}${++opened}`;
  while (db.prepare(`SELECT 1 FROM ${schema}.sqlite_master WHERE name = ?`).get(`${prefix}_accounts`));
  for (const t of TABLES) db.exec(`CREATE TABLE ${schema}.${prefix}_${t} AS SELECT * FROM main.${t} WHERE 0`);
  return openStaged(db, schema, prefix);
}

/** A file store's staging tables left by a process that stopped: their prefixes. */
export function stagedLeft(db: Db): string[] {
  const names = db
    .prepare<[], string>(
      `SELECT name FROM main.sqlite_master WHERE type = 'table' AND name LIKE '${PREFIX}%_accounts'`,
    )
    .pluck()
    .all();
  return names.map((n) => n.slice(0, -'_accounts'.length));
}

/** Staging tables that exist, by schema and prefix. */
export function openStaged(db: Db, schema: 'main' | 'temp', prefix: string): StagedRows {
  const name = (t: Table) => `${schema}.${prefix}_${t}`;
  const add = addStatements(db, name);
  // Staged rows only ever get appended: table t's rowids are 1 to its count, moved up to moved[t].
  const moved = Object.fromEntries(TABLES.map((t) => [t, 0])) as Record<Table, number>;
  const move = Object.fromEntries(
    TABLES.map((t) => [
      t,
      db.prepare<[number, number]>(
        `INSERT ${t === 'meta' ? 'OR REPLACE ' : ''}INTO main.${t} SELECT * FROM ${name(t)} WHERE rowid > ? AND rowid <= ? ORDER BY rowid`,
      ),
    ]),
  ) as Record<Table, Statement<[number, number]>>;
  const moveSome = (limit: number): boolean => {
    let left = limit;
    for (const t of TABLES) {
      while (left > 0) {
        const n = move[t].run(moved[t], moved[t] + left).changes;
        moved[t] += n;
        left -= n;
        if (n === 0) break;
      }
      if (left <= 0) return true;
    }
    return false;
  };
  const held = heldStatements(db, name);
  let dropped = false;
  return {
    prefix,
    // An in-memory store restored from a snapshot is a new connection (this one closed): what
    // was staged went with it, and moveInto then declines, so the import writes its rows itself.
    add: (accounts) => void (db.open && !dropped && add(accounts)),
    isIn: (target) => target === db && db.open && !dropped,
    taken: (parent) => held.map((statement) => () => statement.get(parent) !== undefined),
    moveSome,
    moveInto(target) {
      if (target !== db || !db.open || dropped) return false;
      // From the first row: a slice refused mid-way counted rows its transaction took back.
      for (const t of TABLES) moved[t] = 0;
      while (moveSome(Number.MAX_SAFE_INTEGER));
      return true;
    },
    drop() {
      if (dropped) return;
      dropped = true;
      if (db.open) for (const t of TABLES) db.exec(`DROP TABLE IF EXISTS ${name(t)}`);
    },
  };
}

/** Writes accounts' rows into the staging tables `name` names, in one transaction. */
function addStatements(db: Db, name: (t: Table) => string): (accounts: readonly StagedAccount[]) => void {
  const insert = Object.fromEntries(
    TABLES.map((t) => {
      const columns = (db.pragma(`main.table_info(${t})`) as { name: string }[]).map((c) => c.name);
      return [
        t,
        db.prepare(
          `INSERT INTO ${name(t)} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
        ),
      ];
    }),
  ) as Record<Table, ReturnType<Db['prepare']>>;
  return db.transaction((accounts: readonly StagedAccount[]) => {
    for (const a of accounts) {
      insert.accounts.run(a.account);
      for (const p of a.pages) insert.pages.run(p);
      for (const l of a.layouts) insert.layouts.run(l);
      for (const v of a.variants) insert.variants.run(v);
      insert.controls_lists.run(a.controls);
      for (const m of a.meta) insert.meta.run(m);
    }
  });
}

/** For each kind of staged ID, whether another partner holds one here now: its row, joined to its account's partner. */
function heldStatements(db: Db, name: (t: Table) => string): Statement<[string]>[] {
  const held = ['page', 'layout', 'variant'].map((kind) =>
    db.prepare<[string]>(
      `SELECT 1 FROM ${name(`${kind}s` as Table)} s JOIN main.${kind}s t ON t.${kind}_id = s.${kind}_id
       JOIN main.accounts a ON a.account_id = t.account_id WHERE a.parent_account_id <> ? LIMIT 1`,
    ),
  );
  held.push(
    db.prepare<[string]>(
      `SELECT 1 FROM ${name('accounts')} s JOIN main.accounts a ON a.account_id = s.account_id
       WHERE a.parent_account_id <> ? LIMIT 1`,
    ),
    db.prepare<[string]>(
      `SELECT 1 FROM ${name('controls_lists')} s JOIN main.controls_lists c ON c.list_id = s.list_id
       JOIN main.accounts a ON a.account_id = c.account_id WHERE a.parent_account_id <> ? LIMIT 1`,
    ),
  );
  return held;
}
