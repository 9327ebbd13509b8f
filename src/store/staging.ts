/**
 * A large import's rows written ahead, a slice at a time, into temporary tables no reader sees
 * (each import its own), then moved into the real tables with one INSERT … SELECT each inside
 * the import's transaction: the partner is swapped at once, while the slow part (binding tens of
 * thousands of rows from JavaScript) ran between other requests.
 */
import type { NewAccount } from './accounts.js';
import type { StoredControlsRow } from './controls.js';
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

export interface StagedRows {
  /** Writes these accounts' rows (one short transaction). */
  add(accounts: readonly StagedAccount[]): void;
  /**
   * Moves every staged row into the real tables (call inside the import's transaction); false,
   * and nothing moved, when the store is no longer the one staged into (a snapshot restored since).
   */
  moveInto(db: Db): boolean;
  /** Drops the staging tables. */
  drop(): void;
}

export function stageRows(db: Db): StagedRows {
  const prefix = `import_stage_${++opened}`;
  const name = (t: Table) => `temp.${prefix}_${t}`;
  for (const t of TABLES) db.exec(`CREATE TEMP TABLE ${prefix}_${t} AS SELECT * FROM main.${t} WHERE 0`);
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
  const add = db.transaction((accounts: readonly StagedAccount[]) => {
    for (const a of accounts) {
      insert.accounts.run(a.account);
      for (const p of a.pages) insert.pages.run(p);
      for (const l of a.layouts) insert.layouts.run(l);
      for (const v of a.variants) insert.variants.run(v);
      insert.controls_lists.run(a.controls);
      for (const m of a.meta) insert.meta.run(m);
    }
  });
  let dropped = false;
  return {
    // An in-memory store restored from a snapshot is a new connection (this one closed): what
    // was staged went with it, and moveInto then declines, so the import writes its rows itself.
    add: (accounts) => void (db.open && !dropped && add(accounts)),
    moveInto(target) {
      if (target !== db || !db.open || dropped) return false;
      for (const t of TABLES)
        db.prepare(
          `INSERT ${t === 'meta' ? 'OR REPLACE ' : ''}INTO main.${t} SELECT * FROM ${name(t)} ORDER BY rowid`,
        ).run();
      return true;
    },
    drop() {
      if (dropped) return;
      dropped = true;
      if (db.open) for (const t of TABLES) db.exec(`DROP TABLE IF EXISTS ${name(t)}`);
    },
  };
}
