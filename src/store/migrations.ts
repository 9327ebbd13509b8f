/** Numbered migrations: index i brings the schema from user_version i to i + 1. Append only. */
export const migrations: readonly string[] = [
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
  // 3: a stored key belongs to the operation it was first used on (SANDBOX.md §4); an
  // in-progress reservation records when (real time) it was made, so it cannot stay stuck
  `ALTER TABLE idempotency_keys ADD COLUMN operation TEXT NOT NULL DEFAULT '';
   ALTER TABLE idempotency_keys ADD COLUMN reserved_at INTEGER NOT NULL DEFAULT 0;`,
];
