/**
 * Opening the database: pragmas in one place, numbered migrations tracked with
 * `user_version`. A path makes the store durable; `:memory:` is the default.
 * A path that cannot be opened stops start-up with one line naming `SANDBOX_DB`, the
 * path, the user and the cause (docs/in-your-ci.md), not a stack trace.
 */
import { existsSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { StartupError } from '../base/startup-error.js';
import { FRESH_SCHEMA } from './fresh-schema.js';
import { type MigrationHooks, migrations } from './migrations.js';

export type Db = Database.Database;

export function openDb(path: string, hooks: MigrationHooks): Db {
  let db: Db | undefined;
  try {
    db = new Database(path);
    applyPragmas(db, path);
    migrate(db, hooks);
    probeWritable(db);
    return db;
  } catch (err) {
    if (db?.open) db.close();
    throw openError(path, err as Error & { code?: string });
  }
}

/**
 * SQLite opens a file it may not write (mode 444, an immutable file, a read-only mount)
 * read-only without a word, and the first write would fail later (at start-up, with a
 * stack trace, or on a partner's request). A write rolled back at once finds it out here.
 */
function probeWritable(db: Db): void {
  // BEGIN IMMEDIATE is not enough: under WAL it takes the lock without touching the file.
  const version = db.pragma('user_version', { simple: true }) as number;
  db.exec('BEGIN');
  try {
    db.pragma(`user_version = ${version}`);
  } finally {
    db.exec('ROLLBACK');
  }
}

/**
 * A start-up write (the fixtures, a seed bundle) the store refused: a StartupError naming
 * SANDBOX_DB, the path, the user and why, as an open that fails; anything else as it is.
 */
export function startupWriteError(path: string, err: unknown): unknown {
  const code = (err as { code?: unknown })?.code;
  if (!(err instanceof Error) || typeof code !== 'string' || !code.startsWith('SQLITE_')) return err;
  return openError(path, err as Error & { code: string }, 'write to');
}

function openError(path: string, err: Error & { code?: string }, doing = 'open'): StartupError {
  const dir = dirname(resolve(path));
  const code = err.code ?? '';
  let cause: string;
  if (!existsSync(dir)) cause = `the folder ${dir} does not exist`;
  else if (existsSync(path) && statSync(path).isDirectory()) cause = 'it is a folder, not a file';
  else if (code === 'SQLITE_NOTADB') cause = 'the file is not a SQLite database';
  else if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY' || code === 'SQLITE_PERM') {
    cause = existsSync(path)
      ? `the file cannot be opened for writing: check its permissions and those of ${dir}`
      : `the file cannot be created: check that this user can write to ${dir}`;
  } else if (code === 'SQLITE_FULL') cause = `the disk holding ${dir} is full: free some space`;
  else cause = 'SQLite refused it';
  const detail = `${err.message}${code ? `, ${code}` : ''}`.replace(/\s+/g, ' ');
  return new StartupError(
    `SANDBOX_DB=${path}: cannot ${doing} the store as ${currentUser()}: ${cause} (${detail})`,
  );
}

function currentUser(): string {
  const uid = process.getuid?.() ?? -1;
  try {
    return `user ${userInfo().username} (uid ${uid})`;
  } catch {
    // a uid without a passwd entry (a container run with --user 1234)
    return `uid ${uid}`;
  }
}

/** Whether a store path (SANDBOX_DB) is memory only: `:memory:`, or empty. */
export const inMemory = (path: string): boolean => path === ':memory:' || path === '';

function applyPragmas(db: Db, path: string): void {
  db.pragma('foreign_keys = ON');
  if (!inMemory(path)) {
    db.pragma('journal_mode = WAL');
    // NORMAL under WAL is durable against a process crash (SIGKILL); only an OS crash
    // can lose the last transactions. FULL would add an fsync per commit.
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    // 64 MiB of page cache (grows only as used): a large store keeps its index pages hot.
    db.pragma('cache_size = -65536');
  }
}

export function migrate(db: Db, hooks: MigrationHooks): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current === 0) {
    // A new database is given the migrations' result in one script (fresh-schema.ts, generated).
    db.transaction(() => {
      db.exec(FRESH_SCHEMA);
      db.pragma(`user_version = ${migrations.length}`);
    })();
  } else {
    for (let version = current; version < migrations.length; version++) {
      const step = migrations[version]!;
      db.transaction(() => {
        if (typeof step === 'string') db.exec(step);
        else step(db, hooks);
        db.pragma(`user_version = ${version + 1}`);
      })();
    }
  }
  // Under WAL the old pages stay in the main file until a checkpoint: migrated, it holds
  // what it migrated away from (a client secret in clear, migration 4) no longer than now.
  if (current < migrations.length && db.pragma('journal_mode', { simple: true }) === 'wal')
    db.pragma('wal_checkpoint(TRUNCATE)');
}
