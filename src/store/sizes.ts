/**
 * How many bytes of a bundle each partner's stored rows take (docs/guarantees-and-limits.md):
 * its accounts with their pages, layouts, variants and controls lists, its vertical mapping and
 * its stored idempotency answers, the parts of its export that grow with what it or the control
 * plane sends (a variant added, a mapping seeded: docs/hosting.md). A write that would
 * take a partner past its room is refused before it runs (http/room.ts), so every export is a
 * bundle the import takes back (docs/parallel-tests.md).
 *
 * The count is an upper bound of those parts' JSON in the bundle: each column's bytes as text
 * plus ROW_BYTES a row for its field names and punctuation. It is read from the store once
 * for a partner (one indexed query), then grown after each write by what the written account's
 * rows and the stored answer take (an upper bound of what the write added), and read
 * exactly again only when the estimate comes near the room (then on every write). A stored
 * answer's size is kept in its row (`bytes`, set by each statement that writes the row), so
 * neither count reads an answer's body. Every bulk change (a reset, a partner reset, an
 * import, a restore) drops the count with the store's other caches.
 */
import { bodyBytes, ROW_BYTES } from './answer-bytes.js';
import type { Db } from './db.js';

export { ANSWER_COLUMNS, answerBytesSql, ROW_BYTES } from './answer-bytes.js';

/** The tables whose rows are a partner's accounts, and how a row of each is found by the partner's accounts. */
const BY_ACCOUNT = ['pages', 'layouts', 'variants', 'controls_lists'] as const;

/**
 * `sum(ROW_BYTES + the bytes of each column as text)` over the rows a query selects (columns
 * read from the schema). A stored answer counts its body's quotes and backslashes twice too
 * (the escapes the bundle's JSON string adds): `answerBytesSql`.
 */
function rowBytes(db: Db, table: string): string {
  const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  const bytes = (c: string) => `coalesce(length(CAST(${c} AS BLOB)), 4)`;
  return `coalesce(sum(${ROW_BYTES} + ${columns.map(bytes).join(' + ')}), 0)`;
}

/** The stored answers' bytes of the rows a query selects: their `bytes` column. */
const ANSWER_BYTES = 'coalesce(sum(bytes), 0)';

/**
 * The mapping's rows as the bundle writes them: each row's JSON (SQLite's, whose escapes are
 * at least as long as JSON.stringify's) and a comma.
 */
const MAPPING_BYTES = `coalesce(sum(1 + length(CAST(json_object(
  'partner_vertical_id', partner_vertical_id, 'partner_vertical_name', partner_vertical_name,
  'partner_sub_vertical_id', partner_sub_vertical_id, 'partner_sub_vertical_name', partner_sub_vertical_name,
  'vertical_name', vertical_name, 'created_at', created_at) AS BLOB))), 0)`;

/** One value as `rowBytes` counts it: its bytes as text (`length(CAST(v AS BLOB))`), 4 for null. */
function valueBytes(v: string | number | null): number {
  if (v === null) return 4;
  return typeof v === 'string' ? Buffer.byteLength(v) : String(v).length;
}

/** A stored controls list row's bytes, as `exact` and `written` count them, from its values (no statement). */
export function controlsRowBytes(row: object): number {
  let bytes = ROW_BYTES;
  for (const value of Object.values(row)) bytes += valueBytes(value as string | number | null);
  return bytes;
}

/** The digits of any time in ms the sandbox stores (13 until the year 2286): a bound. */
const TIME_DIGITS = 16;

/**
 * An upper bound of a stored answer's row (an idempotency key's, state 'done') as `exact` counts
 * it, from what the request knows (no statement): its text columns, its body with the escapes,
 * its fingerprint (64 hex), dry_run (1), state (4), status (3) and two times.
 */
export function answerRowBytes(parent: string, key: string, operation: string, body: string): number {
  return (
    ROW_BYTES +
    valueBytes(parent) +
    valueBytes(key) +
    valueBytes(operation) +
    bodyBytes(body) +
    64 +
    1 +
    4 +
    3 +
    2 * TIME_DIGITS
  );
}

/** The count's statements: a partner's mapping, a partner's whole count, one write's rows. */
function sizeStatements(db: Db) {
  const mappingSql = `SELECT ${MAPPING_BYTES} FROM vertical_mappings WHERE parent_account_id = @parent`;
  const mapping = db.prepare<{ parent: string }, number>(mappingSql).pluck();
  const parts = [
    mappingSql,
    `SELECT ${rowBytes(db, 'accounts')} FROM accounts WHERE parent_account_id = @parent`,
    ...BY_ACCOUNT.map(
      (t) =>
        `SELECT ${rowBytes(db, t)} FROM ${t} WHERE account_id IN (SELECT account_id FROM accounts WHERE parent_account_id = @parent)`,
    ),
    `SELECT ${ANSWER_BYTES} FROM idempotency_keys WHERE parent_account_id = @parent`,
  ];
  const exact = db
    // From the partner's row (none: 0), not a constant row: the plan is searches only.
    .prepare<{ parent: string }, number>(
      `SELECT ${parts.map((p) => `(${p})`).join(' + ')} FROM partners WHERE parent_account_id = @parent`,
    )
    .pluck();
  // One account's rows and one stored answer, counted as `exact` counts them (each by its key;
  // an aggregate has its one row even when the account has none).
  const others = [
    ...BY_ACCOUNT.map((t) => `SELECT ${rowBytes(db, t)} FROM ${t} WHERE account_id = @account`),
    `SELECT ${ANSWER_BYTES} FROM idempotency_keys WHERE parent_account_id = @parent AND key = @key`,
  ];
  const written = db
    .prepare<{ parent: string; account: string; key: string | null }, number>(
      `SELECT ${rowBytes(db, 'accounts')} + ${others.map((p) => `(${p})`).join(' + ')}
       FROM accounts WHERE account_id = @account`,
    )
    .pluck();
  return { mapping, exact, written };
}

export function sizeStore(db: Db) {
  // Built on the first count, not when the store opens: their SQL is written from the schema
  // (ten `PRAGMA table_info` reads), a start-up's largest statement work, and most start-ups
  // count no partner's bytes before their first write.
  let statements: ReturnType<typeof sizeStatements> | undefined;
  const counts = () => {
    statements ??= sizeStatements(db);
    return statements;
  };
  /** Each partner's count as last read or grown (absent: read it from the store). */
  const known = new Map<string, number>();
  /** The partners whose known count is the store's as last read: nothing written or deleted since. */
  const unchanged = new Set<string>();
  return {
    /** The partner's bytes: as known, or read from the store. */
    of(parent: string): number {
      const bytes = known.get(parent);
      return bytes === undefined ? this.exact(parent) : bytes;
    },
    /** The partner's bytes read from the store now (what `grow` estimated is replaced). */
    exact(parent: string): number {
      const bytes = counts().exact.get({ parent }) ?? 0;
      known.set(parent, bytes);
      unchanged.add(parent);
      return bytes;
    },
    /**
     * `exact`, unless the count known is the store's as last read and nothing was written or
     * deleted since (a partner at its room, refused call after call, is read once, not on each).
     */
    settled(parent: string): number {
      return unchanged.has(parent) ? known.get(parent)! : this.exact(parent);
    },
    /** Rows of any partner were deleted (expired keys pruned): counts known are upper bounds again. */
    shrank(): void {
      unchanged.clear();
    },
    /** The bytes of the partner's vertical mapping alone, read from the store now. */
    mapping(parent: string): number {
      return counts().mapping.get({ parent }) ?? 0;
    },
    /** A write replaced part of the partner's rows (its mapping): read it from the store next time. */
    forget(parent: string): void {
      known.delete(parent);
      unchanged.delete(parent);
    },
    /**
     * What a write on one account can have added, counted as `exact` counts it: every row of
     * that account as it is now, and the answer stored under the write's key (`key` null: none).
     * A write changes no other account's rows, and the rows it replaced only lower the real
     * growth, so this bounds it, much closer than `grow` with `room.ts`'s estimate of any write
     * (16 KiB and more a call: `exact` ran again every few hundred writes, over every stored answer).
     */
    written(parent: string, account: string, key: string | null): number {
      return counts().written.get({ parent, account, key }) ?? 0;
    },
    /** A write on one account went through: the partner's count grows by `written` (if it is known). */
    wrote(parent: string, account: string, key: string | null): void {
      const was = known.get(parent);
      unchanged.delete(parent);
      if (was !== undefined) known.set(parent, was + this.written(parent, account, key));
    },
    /** A write of the partner went through: its estimate of what it added. */
    grow(parent: string, bytes: number): void {
      const was = known.get(parent);
      unchanged.delete(parent);
      if (was !== undefined) known.set(parent, was + bytes);
    },
    clearCache(): void {
      known.clear();
      unchanged.clear();
    },
  };
}
