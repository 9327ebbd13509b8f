/**
 * Whether the store takes writes. A write SQLite refuses for want of room or permission
 * (SQLITE_FULL, SQLITE_READONLY, an I/O error) is no bug of the sandbox: the request is
 * answered 503 store_not_writable (its transaction rolled back, so nothing was written),
 * the problem is logged once a minute at most (never a stack trace), and health reports
 * the store as not writable until a write goes through again. Nothing here blocks a
 * write: each one is tried, so writes work again as soon as space is freed.
 */
import Database from 'better-sqlite3';
import { storeNotWritableMessage } from '../contract/api/messages.js';
import { inMemory } from '../store/db.js';

/** What a refused write was refused for. */
export interface StorageFailure {
  /** SQLite's extended code, e.g. SQLITE_FULL, SQLITE_READONLY_DBMOVED, SQLITE_IOERR_WRITE. */
  code: string;
  /** In words: "the disk is full". */
  cause: string;
}

/**
 * The failure a thrown error is, when it is the store refusing a write for want of room,
 * permission or a working disk; undefined for anything else (a bug stays a 500).
 */
export function storageFailure(err: unknown, memory = false): StorageFailure | undefined {
  if (!(err instanceof Database.SqliteError)) return undefined;
  const code = err.code;
  if (code === 'SQLITE_FULL') return { code, cause: memory ? 'the database is full' : 'the disk is full' };
  if (code.startsWith('SQLITE_READONLY')) return { code, cause: 'the store is read-only' };
  if (code.startsWith('SQLITE_IOERR')) return { code, cause: 'an I/O error' };
  if (code.startsWith('SQLITE_CANTOPEN')) return { code, cause: 'its files cannot be opened' };
  return undefined;
}

/** How often a store that keeps refusing writes is logged: once a minute, not per request. */
export const STORE_LOG_INTERVAL_MS = 60_000;

/** The key of the probe row (written and deleted in one transaction: never seen). */
const PROBE_KEY = 'store_write_probe';
/** The probe writes this much, so that it needs fresh pages as a real write does. */
const PROBE_BYTES = 64 * 1024;

interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** What health shows of the store. */
export interface StoreView {
  writable: boolean;
  /** Why it is not writable (the latest refusal), or null. */
  problem: null | { code: string; cause: string; message: string; since: string; failed_writes: number };
}

interface Failing extends StorageFailure {
  since: number;
  failures: number;
}

export class StoreHealth {
  readonly #path: string;
  readonly #memory: boolean;
  readonly #log: Logger;
  readonly #now: () => number;
  #failing: Failing | undefined;
  /** Real time of the last log line, and how many refusals came since it. */
  #loggedAt = Number.NEGATIVE_INFINITY;
  #unlogged = 0;

  constructor(path: string, log: Logger, now: () => number = () => Date.now()) {
    this.#path = path;
    this.#memory = inMemory(path);
    this.#log = log;
    this.#now = now;
  }

  /**
   * Records a refused write and returns what to answer; undefined when `err` is not the
   * store refusing a write (the caller goes on with it as before).
   */
  refused(err: unknown): { failure: StorageFailure; message: string } | undefined {
    const failure = storageFailure(err, this.#memory);
    if (!failure) return undefined;
    const now = this.#now();
    this.#record(failure, now, 1);
    const message = storeNotWritableMessage(this.#path, failure);
    this.#unlogged++;
    if (now - this.#loggedAt >= STORE_LOG_INTERVAL_MS) {
      this.#log.error('store cannot take writes', {
        setting: 'SANDBOX_DB',
        db: this.#path,
        code: failure.code,
        cause: failure.cause,
        refused_writes: this.#unlogged,
        next_log_in_seconds: STORE_LOG_INTERVAL_MS / 1000,
      });
      this.#loggedAt = now;
      this.#unlogged = 0;
    }
    return { failure, message };
  }

  /**
   * The store's state for health. While writes are being refused, a probe write (written
   * and rolled out again in one committed transaction, big enough to need fresh pages)
   * tells whether the store takes writes again.
   */
  view(probe: () => void): StoreView {
    const failing = this.#failing;
    if (!failing) return { writable: true, problem: null };
    try {
      probe();
    } catch (err) {
      const failure = storageFailure(err, this.#memory);
      if (!failure) throw err;
      // The probe is no partner's write: it is neither counted nor logged.
      this.#record(failure, this.#now(), 0);
      return this.#problem();
    }
    this.#failing = undefined;
    this.#log.info('store takes writes again', {
      setting: 'SANDBOX_DB',
      db: this.#path,
      was: failing.code,
      refused_writes: failing.failures,
    });
    this.#loggedAt = Number.NEGATIVE_INFINITY;
    this.#unlogged = 0;
    return { writable: true, problem: null };
  }

  /** The latest refusal; `since` is kept while the cause stays the same. */
  #record(failure: StorageFailure, now: number, count: number): void {
    const previous = this.#failing;
    const same = previous?.code === failure.code;
    this.#failing = {
      ...failure,
      since: same ? previous.since : now,
      failures: (previous?.failures ?? 0) + count,
    };
  }

  #problem(): StoreView {
    const f = this.#failing!;
    return {
      writable: false,
      problem: {
        code: f.code,
        cause: f.cause,
        message: storeNotWritableMessage(this.#path, f),
        since: new Date(f.since).toISOString(),
        failed_writes: f.failures,
      },
    };
  }
}

/** The probe write: a row that needs fresh pages, written and deleted in one committed transaction. */
export function probeWrite(store: {
  tx<T>(fn: () => T): T;
  meta: { set(key: string, value: string): void; delete(key: string): void };
}): void {
  store.tx(() => {
    store.meta.set(PROBE_KEY, ' '.repeat(PROBE_BYTES));
    store.meta.delete(PROBE_KEY);
  });
}
