/** Partners (parent accounts with client credentials), their vertical mappings, and tokens. */

import { sharedString } from '../base/bounded-cache.js';
import type { SecretHash } from '../domain/secrets.js';
import type { Db } from './db.js';

/** A partner; its client secret only as a salted hash (domain/secrets.ts), never in clear. */
export interface PartnerRow {
  parent_account_id: string;
  client_id: string;
  secret_algorithm: SecretHash['algorithm'];
  secret_salt: string;
  secret_hash: string;
  name: string;
  created_at: string;
}

/** The stored hash of a partner's secret, as domain/secrets.ts reads it. */
export const secretOf = (p: PartnerRow): SecretHash => ({
  algorithm: p.secret_algorithm,
  salt: p.secret_salt,
  hash: p.secret_hash,
});

/** A stored hash as the partner row's columns. */
export const secretColumns = (h: SecretHash) => ({
  secret_algorithm: h.algorithm,
  secret_salt: h.salt,
  secret_hash: h.hash,
});

export interface MappingRow {
  partner_vertical_id: number;
  partner_vertical_name: string;
  partner_sub_vertical_id: number;
  partner_sub_vertical_name: string;
  vertical_name: string;
  created_at: string;
}

/**
 * A partner's mapping rows as the cache keeps them, frozen, their strings held once: a name equal
 * to one of another row (the same names in many partners' mappings) is that row's string
 * (base/bounded-cache.ts), and a row's time equal to the row before's (one seeding's time in
 * each of its rows) is that one, not the copies SQLite gives every row.
 */
function sharedRows(rows: MappingRow[]): readonly MappingRow[] {
  let at: string | undefined;
  for (const row of rows) {
    row.partner_vertical_name = sharedString(row.partner_vertical_name);
    row.partner_sub_vertical_name = sharedString(row.partner_sub_vertical_name);
    row.vertical_name = sharedString(row.vertical_name);
    if (row.created_at === at) row.created_at = at;
    else at = row.created_at;
    Object.freeze(row);
  }
  return Object.freeze(rows);
}

/** What `setCredentials` replaces: a partner's client_id and the hash of its secret. */
export type PartnerCredentialsRow = Pick<
  PartnerRow,
  'parent_account_id' | 'client_id' | 'secret_algorithm' | 'secret_salt' | 'secret_hash'
>;

export interface TokenRow {
  parent_account_id: string;
  client_id: string;
  expires_at: number;
}

/** The statements of the partners, mappings and tokens tables, prepared once per connection. */
function partnerStatements(db: Db) {
  return {
    insert: db.prepare<PartnerRow>(
      `INSERT INTO partners (parent_account_id, client_id, secret_algorithm, secret_salt, secret_hash, name, created_at)
       VALUES (@parent_account_id, @client_id, @secret_algorithm, @secret_salt, @secret_hash, @name, @created_at)`,
    ),
    byParent: db.prepare<[string], PartnerRow>('SELECT * FROM partners WHERE parent_account_id = ?'),
    byClient: db.prepare<[string], PartnerRow>('SELECT * FROM partners WHERE client_id = ?'),
    all: db.prepare<[], PartnerRow>('SELECT * FROM partners ORDER BY created_at, parent_account_id'),
    mappings: db.prepare<[string], MappingRow>(
      `SELECT partner_vertical_id, partner_vertical_name, partner_sub_vertical_id, partner_sub_vertical_name,
              vertical_name, created_at
       FROM vertical_mappings WHERE parent_account_id = ?
       ORDER BY partner_vertical_id, partner_sub_vertical_id`,
    ),
    deleteMappings: db.prepare<[string]>('DELETE FROM vertical_mappings WHERE parent_account_id = ?'),
    insertMapping: db.prepare<MappingRow & { parent_account_id: string }>(
      `INSERT INTO vertical_mappings (parent_account_id, partner_vertical_id, partner_vertical_name,
         partner_sub_vertical_id, partner_sub_vertical_name, vertical_name, created_at)
       VALUES (@parent_account_id, @partner_vertical_id, @partner_vertical_name,
         @partner_sub_vertical_id, @partner_sub_vertical_name, @vertical_name, @created_at)`,
    ),
    insertToken: db.prepare<[string, string, string, number]>(
      'INSERT INTO tokens (token_hash, parent_account_id, client_id, expires_at) VALUES (?, ?, ?, ?)',
    ),
    token: db.prepare<[string], TokenRow>(
      'SELECT parent_account_id, client_id, expires_at FROM tokens WHERE token_hash = ?',
    ),
    pruneTokens: db.prepare<[number]>('DELETE FROM tokens WHERE expires_at < ?'),
    deleteToken: db.prepare<[string]>('DELETE FROM tokens WHERE token_hash = ?'),
    setCredentials: db.prepare<PartnerCredentialsRow>(
      `UPDATE partners SET client_id = @client_id, secret_algorithm = @secret_algorithm,
         secret_salt = @secret_salt, secret_hash = @secret_hash WHERE parent_account_id = @parent_account_id`,
    ),
    deleteTokens: db.prepare<[string]>('DELETE FROM tokens WHERE parent_account_id = ?'),
    delete: db.prepare<[string]>('DELETE FROM partners WHERE parent_account_id = ?'),
  };
}

export function partnerStore(db: Db) {
  const s = partnerStatements(db);

  // Read-through caches of the two lookups on every partnership call. The mapping changes
  // only through replaceMappings (and wipe); a token row never changes once written.
  const mappingCache = new Map<string, readonly MappingRow[]>();
  const tokenCache = new Map<string, TokenRow>();
  const TOKEN_CACHE_MAX = 10_000;

  const replaceMappings = db.transaction((parent: string, rows: MappingRow[]) => {
    mappingCache.delete(parent);
    s.deleteMappings.run(parent);
    for (const row of rows) s.insertMapping.run({ ...row, parent_account_id: parent });
  });

  return {
    insert: (row: PartnerRow) => void s.insert.run(row),
    byParent: (parent: string) => s.byParent.get(parent),
    byClient: (clientId: string) => s.byClient.get(clientId),
    all: () => s.all.all(),
    mappings(parent: string): readonly MappingRow[] {
      let rows = mappingCache.get(parent);
      if (!rows) {
        rows = sharedRows(s.mappings.all(parent));
        mappingCache.set(parent, rows);
      }
      return rows;
    },
    /** Replaces the whole mapping in one transaction ([] un-seeds). */
    replaceMappings: (parent: string, rows: MappingRow[]) => replaceMappings(parent, rows),
    insertToken: (tokenHash: string, parent: string, clientId: string, expiresAt: number) =>
      void s.insertToken.run(tokenHash, parent, clientId, expiresAt),
    /** Forgets one token, by its hash (a Pact state's token at its teardown). */
    deleteToken(tokenHash: string): void {
      s.deleteToken.run(tokenHash);
      tokenCache.clear();
    },
    /** Replaces a partner's client_id and secret hash (a Pact state's credentials, and their restore). */
    setCredentials: (row: PartnerCredentialsRow) => void s.setCredentials.run(row),
    /** The row of a token, looked up by the token itself (hashed only on a cache miss). */
    token(token: string, hash: (token: string) => string): TokenRow | undefined {
      let row = tokenCache.get(token);
      if (!row) {
        row = s.token.get(hash(token));
        if (!row) return undefined;
        if (tokenCache.size >= TOKEN_CACHE_MAX) tokenCache.clear();
        tokenCache.set(token, row);
      }
      return row;
    },
    /**
     * Deletes a partner with its mapping and tokens (deleted here, not left to the foreign keys:
     * an import's swap runs with them unenforced, store.unchecked); its accounts must be gone
     * first, or cascade when the keys are enforced (idempotency keys do not: no FK).
     */
    delete(parent: string): void {
      s.deleteTokens.run(parent);
      s.deleteMappings.run(parent);
      s.delete.run(parent);
      mappingCache.delete(parent);
      tokenCache.clear();
    },
    /** Forgets cached rows (after the tables were emptied). */
    clearCaches(): void {
      mappingCache.clear();
      tokenCache.clear();
    },
    /** Drops tokens that expired before `before` (kept a while so "expired" can be told from "invalid"). */
    pruneTokens: (before: number) => s.pruneTokens.run(before).changes,
  };
}
export type PartnerStore = ReturnType<typeof partnerStore>;
