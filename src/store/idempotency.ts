/** Idempotency keys, scoped to (parent account, key), with their stored responses. */
import type { Db } from './db.js';

export interface IdempotencyRow {
  parent_account_id: string;
  key: string;
  fingerprint: string;
  dry_run: number;
  state: 'in_progress' | 'done';
  status: number | null;
  body: string | null;
  expires_at: number;
}

export function idempotencyStore(db: Db) {
  const s = {
    get: db.prepare<[string, string, number], IdempotencyRow>(
      'SELECT * FROM idempotency_keys WHERE parent_account_id = ? AND key = ? AND expires_at > ?',
    ),
    reserve: db.prepare<IdempotencyRow>(
      `INSERT INTO idempotency_keys (parent_account_id, key, fingerprint, dry_run, state, status, body, expires_at)
       VALUES (@parent_account_id, @key, @fingerprint, @dry_run, @state, @status, @body, @expires_at)
       ON CONFLICT (parent_account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint,
         dry_run = excluded.dry_run, state = excluded.state, status = NULL, body = NULL,
         expires_at = excluded.expires_at
       WHERE idempotency_keys.expires_at <= @now_guard`,
    ),
    complete: db.prepare<[number, string, string, string]>(
      `UPDATE idempotency_keys SET state = 'done', status = ?, body = ? WHERE parent_account_id = ? AND key = ?`,
    ),
    release: db.prepare<[string, string]>(
      'DELETE FROM idempotency_keys WHERE parent_account_id = ? AND key = ?',
    ),
    prune: db.prepare<[number]>('DELETE FROM idempotency_keys WHERE expires_at <= ?'),
    count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM idempotency_keys'),
  };

  return {
    /** The live (unexpired) row for this key, if any. */
    get: (parent: string, key: string, now: number) => s.get.get(parent, key, now),
    /**
     * Claims the key for a new execution. Returns false when a live row holds it already
     * (check and claim are one statement, so two requests cannot both claim it).
     */
    reserve(row: Omit<IdempotencyRow, 'state' | 'status' | 'body'>, now: number): boolean {
      const info = s.reserve.run({
        ...row,
        state: 'in_progress',
        status: null,
        body: null,
        now_guard: now,
      } as never);
      return info.changes === 1;
    },
    complete: (parent: string, key: string, status: number, body: string) =>
      void s.complete.run(status, body, parent, key),
    release: (parent: string, key: string) => void s.release.run(parent, key),
    prune: (now: number) => s.prune.run(now).changes,
    count: () => s.count.get()!.n,
  };
}
export type IdempotencyStore = ReturnType<typeof idempotencyStore>;
