/** Marketplace controls lists: one row per account; blocks are stored in internal taxonomy terms. */
import type { Db } from './db.js';

/** A block on an internal category (the mapping's `vertical_name`). */
export interface InternalBlock {
  vertical_name: string;
  policy: 'Block';
  position_1_policy: 'Block';
}

export interface DomainRuleRow {
  domain: string;
  policy: 'Block';
}

export interface ControlsListRow {
  account_id: string;
  list_id: string;
  name: string;
  version: number;
  content_hash: string;
  blocked: InternalBlock[];
  domains: DomainRuleRow[];
  updated_at: string;
}

interface RawRow extends Omit<ControlsListRow, 'blocked' | 'domains'> {
  blocked: string;
  domains: string;
}

export function controlsStore(db: Db) {
  const s = {
    get: db.prepare<[string], RawRow>('SELECT * FROM controls_lists WHERE account_id = ?'),
    upsert: db.prepare<RawRow>(
      `INSERT INTO controls_lists (account_id, list_id, name, version, content_hash, blocked, domains, updated_at)
       VALUES (@account_id, @list_id, @name, @version, @content_hash, @blocked, @domains, @updated_at)
       ON CONFLICT (account_id) DO UPDATE SET name = excluded.name, version = excluded.version,
         content_hash = excluded.content_hash, blocked = excluded.blocked, domains = excluded.domains,
         updated_at = excluded.updated_at`,
    ),
  };
  return {
    get(accountId: string): ControlsListRow | undefined {
      const raw = s.get.get(accountId);
      return raw && { ...raw, blocked: JSON.parse(raw.blocked), domains: JSON.parse(raw.domains) };
    },
    put(row: ControlsListRow): void {
      s.upsert.run({ ...row, blocked: JSON.stringify(row.blocked), domains: JSON.stringify(row.domains) });
    },
  };
}
export type ControlsStore = ReturnType<typeof controlsStore>;
