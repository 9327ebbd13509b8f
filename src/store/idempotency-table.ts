/** Idempotency keys, scoped to (parent account, key), with their stored responses. */
import type { Db } from './db.js';

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

type Unsaved = { reserved_at: number } & ({ free: true } | { free: false; status: number; body: string });

export function idempotencyStore(db: Db) {
  const s = {
    row: db.prepare<[string, string], IdempotencyRow>(
      'SELECT * FROM idempotency_keys WHERE parent_account_id = ? AND key = ?',
    ),
    get: db.prepare<[string, string, number, number], IdempotencyRow>(
      `SELECT * FROM idempotency_keys WHERE parent_account_id = ? AND key = ? AND expires_at > ?
         AND (state = 'done' OR reserved_at > ?)`,
    ),
    reserve: db.prepare(
      `INSERT INTO idempotency_keys
         (parent_account_id, key, operation, fingerprint, dry_run, state, status, body, expires_at, reserved_at)
       VALUES (@parent_account_id, @key, @operation, @fingerprint, @dry_run, 'in_progress', NULL, NULL, @expires_at, @reserved_at)
       ON CONFLICT (parent_account_id, key) DO UPDATE SET operation = excluded.operation,
         fingerprint = excluded.fingerprint, dry_run = excluded.dry_run, state = 'in_progress',
         status = NULL, body = NULL, expires_at = excluded.expires_at, reserved_at = excluded.reserved_at
       WHERE idempotency_keys.expires_at <= @now
          OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.reserved_at <= @stale_before)`,
    ),
    complete: db.prepare<[number, string, string, string]>(
      `UPDATE idempotency_keys SET state = 'done', status = ?, body = ? WHERE parent_account_id = ? AND key = ?`,
    ),
    release: db.prepare<[string, string]>(
      'DELETE FROM idempotency_keys WHERE parent_account_id = ? AND key = ?',
    ),
    prune: db.prepare<[number]>('DELETE FROM idempotency_keys WHERE expires_at <= ?'),
    releaseAllInProgress: db.prepare(`DELETE FROM idempotency_keys WHERE state = 'in_progress'`),
    count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM idempotency_keys'),
    doneOf: db.prepare<[string, string, number], IdempotencyRow>(
      `SELECT * FROM idempotency_keys WHERE parent_account_id = ? AND state = 'done' AND key > ? ORDER BY key LIMIT ?`,
    ),
    insertDone: db.prepare(
      `INSERT INTO idempotency_keys
         (parent_account_id, key, operation, fingerprint, dry_run, state, status, body, expires_at, reserved_at)
       VALUES (@parent_account_id, @key, @operation, @fingerprint, @dry_run, 'done', @status, @body, @expires_at, 0)`,
    ),
    deleteOf: db.prepare<[string]>('DELETE FROM idempotency_keys WHERE parent_account_id = ?'),
  };

  /**
   * Settlements the database refused (a full disk): a key's answer, or its release, kept
   * here against the reservation it belongs to, and written as soon as the store takes
   * writes again. Meanwhile the key replays that answer, or is free, as if written. (A
   * restart frees every reservation anyway, so losing these then loses nothing more.)
   */
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
      else s.complete.run(pending.status, pending.body, parent, key);
    }
    unsaved.delete(idOf(parent, key));
  }

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
     * Stores the answer under the reserved key. If the store refuses it (a full disk), the
     * answer is kept in memory for replays, written once the store takes writes, and the
     * error is thrown for the caller to report.
     */
    complete: (parent: string, key: string, status: number, body: string) =>
      settle(parent, key, { free: false, status, body, reserved_at: 0 }, () =>
        s.complete.run(status, body, parent, key),
      ),
    /** Frees the key; if the store refuses that, it is free all the same (in memory), and the error is thrown. */
    release: (parent: string, key: string) =>
      settle(parent, key, { free: true, reserved_at: 0 }, () => s.release.run(parent, key)),
    prune: (now: number) => s.prune.run(now).changes,
    /**
     * At start-up: a reservation left by a process that stopped mid-request (kill -9) never
     * finished, so its key is free again.
     */
    releaseAbandoned: () => s.releaseAllInProgress.run().changes,
    count: () => s.count.get()!.n,
    /** A parent's completed keys (a bundle carries these; a reservation belongs to a running request). */
    /**
     * The partner's stored answers in key order, `limit` after the key `after` ('' for the
     * first): an export reads them a page at a time (a partner's may be 26 MiB in all).
     */
    doneOf: (parent: string, after = '', limit = -1) => s.doneOf.all(parent, after, limit),
    insertDone: (row: Omit<IdempotencyRow, 'state' | 'reserved_at'>) => void s.insertDone.run(row),
    deleteOf: (parent: string) => void s.deleteOf.run(parent),
  };
}
export type IdempotencyStore = ReturnType<typeof idempotencyStore>;
