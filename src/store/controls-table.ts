/** Marketplace controls lists: one row per account; blocks are stored in internal taxonomy terms. */
import type { ControlsListRow } from '../domain/controls-list.js';
import type { Db } from './db.js';
import { controlsRowBytes } from './sizes.js';

export type { ControlsListRow, DomainRuleRow, InternalBlock } from '../domain/controls-list.js';

export interface StoredControlsRow extends Omit<ControlsListRow, 'blocked' | 'domains'> {
  blocked: string;
  domains: string;
}

/** A controls list as its row is stored (blocks and domains as JSON). */
export const storedControls = (row: ControlsListRow): StoredControlsRow => ({
  ...row,
  blocked: JSON.stringify(row.blocked),
  domains: JSON.stringify(row.domains),
});

export function controlsStore(db: Db) {
  const s = {
    get: db.prepare<[string], StoredControlsRow>('SELECT * FROM controls_lists WHERE account_id = ?'),
    upsert: db.prepare<StoredControlsRow>(
      `INSERT INTO controls_lists (account_id, list_id, name, version, content_hash, blocked, domains, updated_at)
       VALUES (@account_id, @list_id, @name, @version, @content_hash, @blocked, @domains, @updated_at)
       ON CONFLICT (account_id) DO UPDATE SET name = excluded.name, version = excluded.version,
         content_hash = excluded.content_hash, blocked = excluded.blocked, domains = excluded.domains,
         updated_at = excluded.updated_at`,
    ),
    listOwners: db.prepare<[string], { list_id: string; parent_account_id: string }>(
      `SELECT c.list_id, a.parent_account_id FROM controls_lists c JOIN accounts a ON a.account_id = c.account_id
       WHERE c.list_id IN (SELECT value FROM json_each(?))`,
    ),
  };
  // Parsed rows of recently read lists. A write only invalidates (a rolled-back
  // transaction must not leave its row here); the next read parses the stored one.
  const cache = new Map<string, ControlsListRow>();
  const CACHE_MAX = 10_000;
  return {
    get(accountId: string): ControlsListRow | undefined {
      const hit = cache.get(accountId);
      if (hit) return hit;
      const raw = s.get.get(accountId);
      if (!raw) return undefined;
      const row = { ...raw, blocked: JSON.parse(raw.blocked), domains: JSON.parse(raw.domains) };
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(accountId, row);
      return row;
    },
    /** Stores the row; returns the bytes it takes as the partner's room counts them (store/sizes.ts). */
    put(row: ControlsListRow): number {
      cache.delete(row.account_id);
      const stored = storedControls(row);
      s.upsert.run(stored);
      return controlsRowBytes(stored);
    },
    /**
     * A row `put` wrote, once its transaction committed: the next read takes it as it is, not
     * parsed again from the store (a row is replaced, never changed in place).
     */
    remember(row: ControlsListRow): void {
      if (cache.size >= CACHE_MAX) cache.clear();
      cache.set(row.account_id, row);
    },
    /** The parent account holding each of these list IDs (those held by none are absent). */
    listOwners(listIds: readonly string[]): Map<string, string> {
      if (listIds.length === 0) return new Map();
      return new Map(s.listOwners.all(JSON.stringify(listIds)).map((r) => [r.list_id, r.parent_account_id]));
    },
    clearCache(): void {
      cache.clear();
    },
  };
}
export type ControlsStore = ReturnType<typeof controlsStore>;
