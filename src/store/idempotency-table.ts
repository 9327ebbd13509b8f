/** Idempotency keys, scoped to (parent account, key), with their stored responses. */

import { type ANSWER_COLUMNS, answerBytesSql, bodyBytes } from './answer-bytes.js';
import type { Db } from './db.js';

/** A stored answer as an export reads it: its body as UTF-8 bytes. */
export interface DoneBytesRow {
  key: string;
  operation: string;
  fingerprint: string;
  dry_run: number;
  status: number | null;
  body: Buffer | null;
  expires_at: number;
}

export interface IdempotencyRow {
  parent_account_id: string;
  key: string;
  /** The operation the key was first used on: `METHOD /path`. */
  operation: string;
  fingerprint: string;
  dry_run: number;
  state: 'in_progress' | 'done';
  status: number | null;
  body: string | null;
  expires_at: number;
  /** Real time (ms) of the reservation: an in-progress row older than the bound is free again. */
  reserved_at: number;
}

/**
 * How long a reservation may stay in progress (real time) before it counts as abandoned:
 * longer than any request can take (the latency scenario's 60 s at most, plus the body).
 */
export const IN_PROGRESS_BOUND_MS = 120_000;

/** A parameter's SQL in `answerBytesSql`: integers cast (better-sqlite3 binds a number as REAL). */
const INTEGER_COLUMNS: readonly string[] = ['dry_run', 'status', 'expires_at', 'reserved_at'];
/** The `bytes` of a row written from named parameters, with these columns' values given as SQL instead. */
const bytesOf = (given: Partial<Record<(typeof ANSWER_COLUMNS)[number], string>>) =>
  answerBytesSql((c) => given[c] ?? (INTEGER_COLUMNS.includes(c) ? `CAST(@${c} AS INTEGER)` : `@${c}`));

/** What `complete` sets, as SQL; the other columns stay as reserved. */
const COMPLETED = { state: "'done'", status: 'CAST(@status AS INTEGER)', body: '@body' };

type Unsaved = { reserved_at: number } & ({ free: true } | { free: false; status: number; body: string });

/** The statements of the table, prepared once per connection. */
function idempotencyStatements(db: Db) {
  return {
    row: db.prepare<[string, string], IdempotencyRow>(
      'SELECT * FROM idempotency_keys WHERE parent_account_id = ? AND key = ?',
    ),
    get: db.prepare<[string, string, number, number], IdempotencyRow>(
      `SELECT * FROM idempotency_keys WHERE parent_account_id = ? AND key = ? AND expires_at > ?
         AND (state = 'done' OR reserved_at > ?)`,
    ),
    reserve: db.prepare(
      `INSERT INTO idempotency_keys
         (parent_account_id, key, operation, fingerprint, dry_run, state, status, body, expires_at, reserved_at, bytes)
       VALUES (@parent_account_id, @key, @operation, @fingerprint, @dry_run, 'in_progress', NULL, NULL, @expires_at, @reserved_at,
         ${bytesOf({ state: "'in_progress'", status: 'NULL', body: 'NULL' })})
       ON CONFLICT (parent_account_id, key) DO UPDATE SET operation = excluded.operation,
         fingerprint = excluded.fingerprint, dry_run = excluded.dry_run, state = 'in_progress',
         status = NULL, body = NULL, expires_at = excluded.expires_at, reserved_at = excluded.reserved_at,
         bytes = excluded.bytes
       WHERE idempotency_keys.expires_at <= @now
          OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.reserved_at <= @stale_before)`,
    ),
    // The body's part of `bytes` counted in JS (`bodyBytes`), not by SQL over the text.
    complete: db.prepare<{ status: number; body: string; body_bytes: number; parent: string; key: string }>(
      `UPDATE idempotency_keys SET state = 'done', status = @status, body = @body,
         bytes = ${answerBytesSql((c) => COMPLETED[c as keyof typeof COMPLETED] ?? c, 'CAST(@body_bytes AS INTEGER)')}
       WHERE parent_account_id = @parent AND key = @key`,
    ),
    release: db.prepare<[string, string]>(
      'DELETE FROM idempotency_keys WHERE parent_account_id = ? AND key = ?',
    ),
    prune: db.prepare<[number]>('DELETE FROM idempotency_keys WHERE expires_at <= ?'),
    earliest: db.prepare<[], { at: number | null }>('SELECT min(expires_at) AS at FROM idempotency_keys'),
    releaseAllInProgress: db.prepare(`DELETE FROM idempotency_keys WHERE state = 'in_progress'`),
    count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM idempotency_keys'),
    doneOf: db.prepare<[string, string, number], IdempotencyRow>(
      `SELECT * FROM idempotency_keys WHERE parent_account_id = ? AND state = 'done' AND key > ? ORDER BY key LIMIT ?`,
    ),
    // The same rows, each body as its UTF-8 bytes (an export writes them out without a string).
    doneBytesOf: db.prepare<[string, string, number], DoneBytesRow>(
      `SELECT key, operation, fingerprint, dry_run, status, CAST(body AS BLOB) AS body, expires_at
       FROM idempotency_keys WHERE parent_account_id = ? AND state = 'done' AND key > ? ORDER BY key LIMIT ?`,
    ),
    insertDone: db.prepare(
      `INSERT INTO idempotency_keys
         (parent_account_id, key, operation, fingerprint, dry_run, state, status, body, expires_at, reserved_at, bytes)
       VALUES (@parent_account_id, @key, @operation, @fingerprint, @dry_run, 'done', @status, @body, @expires_at, 0,
         ${bytesOf({ state: "'done'", reserved_at: '0' })})`,
    ),
    deleteOf: db.prepare<[string]>('DELETE FROM idempotency_keys WHERE parent_account_id = ?'),
  };
}
type IdempotencyStatements = ReturnType<typeof idempotencyStatements>;

/**
 * Settlements the database refused (a full disk): a key's answer, or its release, kept
 * here against the reservation it belongs to, and written as soon as the store takes
 * writes again. Meanwhile the key replays that answer, or is free, as if written. (A
 * restart frees every reservation anyway, so losing these then loses nothing more.)
 */
function refusedSettlements(s: IdempotencyStatements) {
  const unsaved = new Map<string, Unsaved>();
  const idOf = (parent: string, key: string) => `${parent}\u0000${key}`;
  function settle(parent: string, key: string, outcome: Unsaved, write: () => void): void {
    try {
      write();
      unsaved.delete(idOf(parent, key));
    } catch (err) {
      const row = s.row.get(parent, key);
      if (row?.state === 'in_progress') {
        unsaved.set(idOf(parent, key), { ...outcome, reserved_at: row.reserved_at });
      }
      throw err;
    }
  }
  /** Writes what `unsaved` holds for this key, if anything; throws while the store refuses it. */
  function flush(parent: string, key: string): void {
    const pending = unsaved.get(idOf(parent, key));
    if (!pending) return;
    const row = s.row.get(parent, key);
    // Unless the reservation went meanwhile (a reset, a restore): then so does this.
    if (row?.state === 'in_progress' && row.reserved_at === pending.reserved_at) {
      if (pending.free) s.release.run(parent, key);
      else
        s.complete.run({
          status: pending.status,
          body: pending.body,
          body_bytes: bodyBytes(pending.body),
          parent,
          key,
        });
    }
    unsaved.delete(idOf(parent, key));
  }
  return { unsaved, idOf, settle, flush };
}

/** `claim` of a key with no refused settlement: one statement, the row read only when it was held. */
function claimFresh(
  s: ReturnType<typeof idempotencyStatements>,
  row: Omit<IdempotencyRow, 'state' | 'status' | 'body' | 'reserved_at'>,
  now: number,
): IdempotencyRow | boolean {
  const realNow = Date.now();
  const staleBefore = realNow - IN_PROGRESS_BOUND_MS;
  try {
    const info = s.reserve.run({ ...row, reserved_at: realNow, now, stale_before: staleBefore });
    if (info.changes === 1) return true;
  } catch (err) {
    const live = s.get.get(row.parent_account_id, row.key, now, staleBefore);
    if (live) return live;
    throw err;
  }
  // Not claimed: the live row is what the claim's condition refused (its complement).
  return s.get.get(row.parent_account_id, row.key, now, staleBefore) ?? false;
}

/**
 * The prune of expired keys, skipped while none can have expired. `earliest`: no row expires
 * before it (a lower bound of the table's expires_at; -Infinity: not known), so a prune at an
 * earlier clock would delete nothing. Each statement of the store that writes an expiry lowers
 * it first (`expiring`); rows written behind the store's back (a file store's restore) come
 * with `clearCache`. Rows deleted only raise the true bound.
 */
function expiries(s: IdempotencyStatements) {
  let earliest = Number.NEGATIVE_INFINITY;
  return {
    expiring(at: number): void {
      if (at < earliest) earliest = at;
    },
    /** Deletes the keys expired at `now`; how many. Then the earliest expiry left is read again. */
    prune(now: number): number {
      if (now < earliest) return 0;
      const pruned = s.prune.run(now).changes;
      earliest = s.earliest.get()?.at ?? Number.POSITIVE_INFINITY;
      return pruned;
    },
    /** Rows were written behind the store's back (a restore): the earliest expiry is read at the next prune. */
    clearCache(): void {
      earliest = Number.NEGATIVE_INFINITY;
    },
    /** A stored answer imported (a bundle's). */
    insertDone(row: Omit<IdempotencyRow, 'state' | 'reserved_at'>): void {
      if (row.expires_at < earliest) earliest = row.expires_at;
      s.insertDone.run(row);
    },
  };
}

export function idempotencyStore(db: Db) {
  const s = idempotencyStatements(db);
  const { unsaved, idOf, settle, flush } = refusedSettlements(s);
  const { expiring, ...expiry } = expiries(s); // prune, clearCache, insertDone

  return {
    /** The live row for this key, if any (unexpired; an in-progress one only while not abandoned). */
    get(parent: string, key: string, now: number): IdempotencyRow | undefined {
      const pending = unsaved.get(idOf(parent, key));
      if (pending) {
        try {
          flush(parent, key);
        } catch {
          // Still refused: the key is what its settlement said (free, or replaying its answer).
          const row = s.row.get(parent, key);
          if (pending.free || !row || row.expires_at <= now) return undefined;
          return { ...row, state: 'done', status: pending.status, body: pending.body };
        }
      }
      return s.get.get(parent, key, now, Date.now() - IN_PROGRESS_BOUND_MS);
    },
    /**
     * Claims the key for a new execution. Returns false when a live row holds it already
     * (check and claim are one statement, so two requests cannot both claim it).
     */
    reserve(row: Omit<IdempotencyRow, 'state' | 'status' | 'body' | 'reserved_at'>, now: number): boolean {
      // A release the store refused before is written first (or this claim fails as it does).
      flush(row.parent_account_id, row.key);
      expiring(row.expires_at);
      const realNow = Date.now();
      const info = s.reserve.run({
        ...row,
        reserved_at: realNow,
        now,
        stale_before: realNow - IN_PROGRESS_BOUND_MS,
      });
      return info.changes === 1;
    },
    /**
     * `reserve`, asked first: true when the key is claimed for this request, else the live row
     * that holds it (`get`'s), or false when none is seen. One statement for a new key (the
     * common case); the row is read only when the key was held. A key with a settlement the
     * store refused, or a store that refuses the claim, is looked up first as before, so a
     * replay needs no write.
     */
    claim(
      row: Omit<IdempotencyRow, 'state' | 'status' | 'body' | 'reserved_at'>,
      now: number,
    ): IdempotencyRow | boolean {
      const parent = row.parent_account_id;
      if (unsaved.has(idOf(parent, row.key))) return this.get(parent, row.key, now) ?? this.reserve(row, now);
      expiring(row.expires_at);
      return claimFresh(s, row, now);
    },
    /**
     * Stores the answer under the reserved key. If the store refuses it (a full disk), the
     * answer is kept in memory for replays, written once the store takes writes, and the
     * error is thrown for the caller to report.
     */
    complete: (parent: string, key: string, status: number, body: string) =>
      settle(parent, key, { free: false, status, body, reserved_at: 0 }, () =>
        s.complete.run({ status, body, body_bytes: bodyBytes(body), parent, key }),
      ),
    /** Frees the key; if the store refuses that, it is free all the same (in memory), and the error is thrown. */
    release: (parent: string, key: string) =>
      settle(parent, key, { free: true, reserved_at: 0 }, () => s.release.run(parent, key)),
    ...expiry,
    /** At start-up: a reservation of a process stopped mid-request (kill -9) never finished: free again. */
    releaseAbandoned: () => s.releaseAllInProgress.run().changes,
    count: () => s.count.get()!.n,
    /**
     * The partner's stored answers in key order, `limit` after the key `after` ('' for the
     * first): an export reads them a page at a time (a partner's may be 26 MiB in all).
     */
    doneOf: (parent: string, after = '', limit = -1) => s.doneOf.all(parent, after, limit),
    /** doneOf, each body as its UTF-8 bytes (null: none). */
    doneBytesOf: (parent: string, after = '', limit = -1) => s.doneBytesOf.all(parent, after, limit),
    deleteOf: (parent: string) => void s.deleteOf.run(parent),
  };
}
export type IdempotencyStore = ReturnType<typeof idempotencyStore>;
