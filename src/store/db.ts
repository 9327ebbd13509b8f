/**
 * Opening the database: pragmas in one place, numbered migrations tracked with
 * `user_version`. A path makes the store durable; `:memory:` is the default.
 */
import Database from 'better-sqlite3';
import { migrations } from './migrations.js';

export type Db = Database.Database;

export function openDb(path: string): Db {
  const db = new Database(path);
  applyPragmas(db, path);
  migrate(db);
  return db;
}

function applyPragmas(db: Db, path: string): void {
  db.pragma('foreign_keys = ON');
  if (path !== ':memory:' && path !== '') {
    db.pragma('journal_mode = WAL');
    // NORMAL under WAL is durable against a process crash (SIGKILL); only an OS crash
    // can lose the last transactions. FULL would add an fsync per commit.
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    // 64 MiB of page cache (grows only as used): a large store keeps its index pages hot.
    db.pragma('cache_size = -65536');
  }
}

export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < migrations.length; version++) {
    const step = migrations[version]!;
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
