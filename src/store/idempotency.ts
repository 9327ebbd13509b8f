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

export function idempotencyStore(db: Db) {
  const s = {
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
    doneOf: db.prepare<[string], IdempotencyRow>(
      `SELECT * FROM idempotency_keys WHERE parent_account_id = ? AND state = 'done' ORDER BY key`,
    ),
    insertDone: db.prepare(
      `INSERT INTO idempotency_keys
         (parent_account_id, key, operation, fingerprint, dry_run, state, status, body, expires_at, reserved_at)
       VALUES (@parent_account_id, @key, @operation, @fingerprint, @dry_run, 'done', @status, @body, @expires_at, 0)`,
    ),
    deleteOf: db.prepare<[string]>('DELETE FROM idempotency_keys WHERE parent_account_id = ?'),
  };

  return {
    /** The live row for this key, if any (unexpired; an in-progress one only while not abandoned). */
    get: (parent: string, key: string, now: number) =>
      s.get.get(parent, key, now, Date.now() - IN_PROGRESS_BOUND_MS),
    /**
     * Claims the key for a new execution. Returns false when a live row holds it already
     * (check and claim are one statement, so two requests cannot both claim it).
     */
    reserve(row: Omit<IdempotencyRow, 'state' | 'status' | 'body' | 'reserved_at'>, now: number): boolean {
      const realNow = Date.now();
      const info = s.reserve.run({
        ...row,
        reserved_at: realNow,
        now,
        stale_before: realNow - IN_PROGRESS_BOUND_MS,
      });
      return info.changes === 1;
    },
    complete: (parent: string, key: string, status: number, body: string) =>
      void s.complete.run(status, body, parent, key),
    release: (parent: string, key: string) => void s.release.run(parent, key),
    prune: (now: number) => s.prune.run(now).changes,
    /**
     * At start-up: a reservation left by a process that stopped mid-request (kill -9) never
     * finished, so its key is free again.
     */
    releaseAbandoned: () => s.releaseAllInProgress.run().changes,
    count: () => s.count.get()!.n,
    /** A parent's completed keys (a bundle carries these; a reservation belongs to a running request). */
    doneOf: (parent: string) => s.doneOf.all(parent),
    insertDone: (row: Omit<IdempotencyRow, 'state' | 'reserved_at'>) => void s.insertDone.run(row),
    deleteOf: (parent: string) => void s.deleteOf.run(parent),
  };
}
export type IdempotencyStore = ReturnType<typeof idempotencyStore>;
