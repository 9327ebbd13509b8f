/** Numbered migrations: index i brings the schema from user_version i to i + 1. Append only. */

import type Database from 'better-sqlite3';
import type { SecretHash } from '../domain/secrets.js';
import { answerBytesSql } from './answer-bytes.js';

/** What a migration that rewrites data needs of the rules above the store. */
export interface MigrationHooks {
  /** A client secret as the store keeps it (domain/secrets.ts). */
  hashSecret(secret: string): SecretHash;
}

/** SQL, or a step that reads and rewrites rows (run in the migration's transaction). */
type Db = Database.Database;
export type Migration = string | ((db: Db, hooks: MigrationHooks) => void);

export const migrations: readonly Migration[] = [
  `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT;

  CREATE TABLE partners (
    parent_account_id TEXT PRIMARY KEY,
    client_id         TEXT NOT NULL UNIQUE,
    client_secret     TEXT NOT NULL,
    name              TEXT NOT NULL,
    created_at        TEXT NOT NULL
  ) STRICT;

  CREATE TABLE vertical_mappings (
    parent_account_id         TEXT NOT NULL REFERENCES partners ON DELETE CASCADE,
    partner_vertical_id       INTEGER NOT NULL,
    partner_vertical_name     TEXT NOT NULL,
    partner_sub_vertical_id   INTEGER NOT NULL,
    partner_sub_vertical_name TEXT NOT NULL,
    vertical_name             TEXT NOT NULL,
    created_at                TEXT NOT NULL,
    PRIMARY KEY (parent_account_id, partner_sub_vertical_id)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE tokens (
    token_hash        TEXT PRIMARY KEY,
    parent_account_id TEXT NOT NULL REFERENCES partners ON DELETE CASCADE,
    client_id         TEXT NOT NULL,
    expires_at        INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX tokens_by_expiry ON tokens (expires_at);

  CREATE TABLE accounts (
    account_id          TEXT PRIMARY KEY,
    parent_account_id   TEXT NOT NULL REFERENCES partners ON DELETE CASCADE,
    external_account_id TEXT NOT NULL,
    brand               TEXT NOT NULL,
    vertical_id         INTEGER NOT NULL,
    sub_vertical_id     INTEGER NOT NULL,
    country_code        TEXT NOT NULL,
    store_identifier    TEXT NOT NULL,
    auth_ready_at       INTEGER NOT NULL,
    created_at          TEXT NOT NULL,
    UNIQUE (parent_account_id, external_account_id)
  ) STRICT;

  CREATE TABLE pages (
    page_id         TEXT PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts ON DELETE CASCADE,
    surface         TEXT NOT NULL,
    page_identifier TEXT NOT NULL,
    created_at      TEXT NOT NULL
  ) STRICT;
  CREATE INDEX pages_by_account ON pages (account_id);

  CREATE TABLE layouts (
    layout_id   TEXT PRIMARY KEY,
    page_id     TEXT NOT NULL REFERENCES pages ON DELETE CASCADE,
    account_id  TEXT NOT NULL REFERENCES accounts ON DELETE CASCADE,
    layout_type TEXT NOT NULL,
    name        TEXT NOT NULL,
    updated_at  TEXT NOT NULL
  ) STRICT;
  CREATE INDEX layouts_by_account ON layouts (account_id);
  CREATE INDEX layouts_by_page ON layouts (page_id);

  CREATE TABLE variants (
    variant_id TEXT PRIMARY KEY,
    page_id    TEXT NOT NULL REFERENCES pages ON DELETE CASCADE,
    account_id TEXT NOT NULL REFERENCES accounts ON DELETE CASCADE,
    name       TEXT NOT NULL,
    enabled    INTEGER NOT NULL,
    archived   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX variants_by_account ON variants (account_id);
  CREATE INDEX variants_by_page ON variants (page_id);

  CREATE TABLE controls_lists (
    account_id   TEXT PRIMARY KEY REFERENCES accounts ON DELETE CASCADE,
    list_id      TEXT NOT NULL,
    name         TEXT NOT NULL,
    version      INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    blocked      TEXT NOT NULL,
    domains      TEXT NOT NULL,
    updated_at   TEXT NOT NULL
  ) STRICT;

  CREATE TABLE idempotency_keys (
    parent_account_id TEXT NOT NULL,
    key               TEXT NOT NULL,
    fingerprint       TEXT NOT NULL,
    dry_run           INTEGER NOT NULL,
    state             TEXT NOT NULL,
    status            INTEGER,
    body              TEXT,
    expires_at        INTEGER NOT NULL,
    PRIMARY KEY (parent_account_id, key)
  ) STRICT;
  CREATE INDEX idempotency_by_expiry ON idempotency_keys (expires_at);
  `,
  // 2: the control plane lists a parent's newest accounts (dashboard polling) without a sort of all of them
  `CREATE INDEX accounts_by_parent_created ON accounts (parent_account_id, created_at);`,
  // 3: a stored key belongs to the operation it was first used on (docs/api.md#idempotency); an
  // in-progress reservation records when (real time) it was made, so it cannot stay stuck
  `ALTER TABLE idempotency_keys ADD COLUMN operation TEXT NOT NULL DEFAULT '';
   ALTER TABLE idempotency_keys ADD COLUMN reserved_at INTEGER NOT NULL DEFAULT 0;`,
  // 4: no client secret in clear (docs/parallel-tests.md): each partner's secret becomes a salted
  // scrypt hash (domain/secrets.ts), and the clear column goes, overwritten on disk too
  // (secure_delete: without it the old rows stay readable in the file's free pages)
  (db, hooks) => {
    const secureDelete = db.pragma('secure_delete', { simple: true });
    db.pragma('secure_delete = ON');
    db.exec(`ALTER TABLE partners ADD COLUMN secret_algorithm TEXT NOT NULL DEFAULT '';
             ALTER TABLE partners ADD COLUMN secret_salt TEXT NOT NULL DEFAULT '';
             ALTER TABLE partners ADD COLUMN secret_hash TEXT NOT NULL DEFAULT '';`);
    const rows = db
      .prepare<[], { parent_account_id: string; client_secret: string }>('SELECT * FROM partners')
      .all();
    const update = db.prepare<[string, string, string, string]>(
      'UPDATE partners SET secret_algorithm = ?, secret_salt = ?, secret_hash = ? WHERE parent_account_id = ?',
    );
    for (const row of rows) {
      const { algorithm, salt, hash } = hooks.hashSecret(row.client_secret);
      update.run(algorithm, salt, hash, row.parent_account_id);
    }
    db.exec('ALTER TABLE partners DROP COLUMN client_secret');
    db.pragma(`secure_delete = ${Number(secureDelete)}`);
  },
  // 5: start-up frees the reservations a killed process left (state 'in_progress', a handful)
  // through this index, not a scan of every partner's stored answers (10,000 partners' keys
  // took most of a second)
  `CREATE INDEX idempotency_in_progress ON idempotency_keys (state) WHERE state = 'in_progress';`,
  // 6: each stored answer keeps its size in the partner's room (store/sizes.ts) in its row, set
  // by every statement that writes the row, so a partner's count sums a column instead of
  // reading every answer's body (a partner near its room counted again on every write)
  `ALTER TABLE idempotency_keys ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
   UPDATE idempotency_keys SET bytes = ${answerBytesSql()};`,
];
