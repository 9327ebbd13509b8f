/**
 * Statements prepared on their first use, not when the store opens. The table modules declare
 * theirs once (about 80, of which a start-up runs a handful): each is a `LazyStatement` that
 * holds its SQL and prepares it on the connection the first time it runs, then keeps it. A
 * start-up no longer parses and plans SQL that no call has asked for yet (a tenth of
 * `startSandbox()`'s instructions; docs/performance.md, "Start-up").
 *
 * `lazyPrepare(db)` is the connection as the table modules see it: `prepare` declares,
 * everything else is the connection's own. `declared` lists every SQL text declared (the
 * query-plan test reads it, as it read the prepared ones before).
 */
import type Database from 'better-sqlite3';

type Db = Database.Database;
type Statement = Database.Statement<unknown[], unknown>;

class LazyStatement {
  readonly #db: Db;
  readonly source: string;
  #statement: Statement | undefined;
  #pluck = false;

  constructor(db: Db, sql: string) {
    this.#db = db;
    this.source = sql;
  }

  /** The statement, prepared on the first call (a bad SQL text throws there, as `prepare` would). */
  #prepared(): Statement {
    if (this.#statement) return this.#statement;
    const statement = this.#db.prepare(this.source);
    if (this.#pluck) statement.pluck();
    this.#statement = statement;
    return statement;
  }

  get database(): Db {
    return this.#db;
  }
  get reader(): boolean {
    return this.#prepared().reader;
  }
  get readonly(): boolean {
    return this.#prepared().readonly;
  }
  get busy(): boolean {
    return this.#statement?.busy ?? false;
  }
  run(...params: unknown[]) {
    return this.#prepared().run(...params);
  }
  get(...params: unknown[]) {
    return this.#prepared().get(...params);
  }
  all(...params: unknown[]) {
    return this.#prepared().all(...params);
  }
  iterate(...params: unknown[]) {
    return this.#prepared().iterate(...params);
  }
  pluck(toggle = true): this {
    if (this.#statement) this.#statement.pluck(toggle);
    else this.#pluck = toggle;
    return this;
  }
  columns() {
    return this.#prepared().columns();
  }
  // Rarely used modes: they prepare at once, then apply to the prepared statement.
  expand(toggle = true): this {
    this.#prepared().expand(toggle);
    return this;
  }
  raw(toggle = true): this {
    this.#prepared().raw(toggle);
    return this;
  }
  safeIntegers(toggle = true): this {
    this.#prepared().safeIntegers(toggle);
    return this;
  }
  bind(...params: unknown[]): this {
    this.#prepared().bind(...params);
    return this;
  }
}

/** The connection with `prepare` declaring a statement prepared on first use; the SQL texts declared. */
export function lazyPrepare(db: Db): { db: Db; declared: string[] } {
  const declared: string[] = [];
  const prepare = (sql: string) => {
    declared.push(sql);
    return new LazyStatement(db, sql);
  };
  const view = new Proxy(db, {
    get(target, key) {
      if (key === 'prepare') return prepare;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { db: view, declared };
}
