/**
 * Query plans of the statements used on request paths: each must find its rows through
 * an index or primary key (SEARCH ...), never by scanning a table, so request cost does
 * not grow with the number of stored accounts.
 *
 * The SQL is not copied here: each store operation is called once while better-sqlite3's
 * Statement methods are wrapped, which records the text (`statement.source`) and the
 * arguments of every statement it executes; those are then run under EXPLAIN QUERY PLAN
 * on the store's own connection (`sandbox.store.db`).
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashSecretSync, SECRET_ALGORITHMS } from '../../src/domain/secrets.js';
import { createSandbox, type Sandbox } from '../../src/state/index.js';
import type { NewAccount } from '../../src/store/accounts-table.js';
import { type Migration, migrations } from '../../src/store/migrations.js';
import type { Store } from '../../src/store/sqlite-store.js';
import { DEMO, testConfig } from '../helpers/harness.js';

interface Executed {
  sql: string;
  args: unknown[];
}

const DML = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|REPLACE)\b/i;

// ---- recording the statements the store prepares and executes ------------------------

const probe = new Database(':memory:');
const statementProto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
probe.close();
const databaseProto = Database.prototype as unknown as Record<string, unknown>;

const prepared = new Set<string>();
let executed: Executed[] | null = null;
const originals = new Map<string, unknown>();

function wrap(
  target: Record<string, unknown>,
  method: string,
  before: (self: { source: string }, args: unknown[]) => void,
) {
  const original = target[method] as (...a: unknown[]) => unknown;
  originals.set(`${target === databaseProto ? 'db' : 'stmt'}.${method}`, original);
  target[method] = function (this: { source: string }, ...args: unknown[]) {
    const result = original.apply(this, args);
    before(method === 'prepare' ? (result as { source: string }) : this, args);
    return result;
  };
}

function unwrap() {
  for (const [key, original] of originals) {
    const [where, method] = key.split('.') as [string, string];
    (where === 'db' ? databaseProto : statementProto)[method] = original;
  }
}

/** The DML statements one store operation executes (an operation that throws still counts). */
function statementsOf(op: () => unknown): Executed[] {
  executed = [];
  try {
    op();
  } catch {
    // e.g. a constraint on dummy data: the statement was still run, which is what we need
  }
  const out = executed.filter((e) => DML.test(e.sql));
  executed = null;
  return out;
}

function plan(db: Store['db'], e: Executed): string[] {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${e.sql}`).all(...(e.args as never[])) as { detail: string }[];
  return rows.map((r) => r.detail);
}

// ---- the operations ------------------------------------------------------------------

const PARENT = DEMO.parent;
const NOW = 1_700_000_000_000;

function newAccount(id: string): NewAccount {
  const at = new Date(NOW).toISOString();
  return {
    account: {
      account_id: id,
      parent_account_id: PARENT,
      external_account_id: `ext-${id}`,
      brand: 'Acme',
      vertical_id: 10,
      sub_vertical_id: 1001,
      country_code: 'US',
      store_identifier: 'https://acme.example.com',
      auth_ready_at: 0,
      created_at: at,
    },
    pages: [
      {
        page_id: `pg-${id}`,
        account_id: id,
        surface: 'confirmation',
        page_identifier: 'c_1',
        created_at: at,
      },
    ],
    layouts: [
      {
        layout_id: `ly-${id}`,
        page_id: `pg-${id}`,
        account_id: id,
        layout_type: 'Overlay',
        name: 'l',
        updated_at: at,
      },
    ],
    variants: [
      {
        variant_id: `va-${id}`,
        page_id: `pg-${id}`,
        account_id: id,
        name: 'v',
        enabled: 1,
        archived: 0,
        created_at: at,
      },
    ],
  };
}

/** Store operations on request paths (token grant and check, register, controls, status, layout, idempotency). */
const hot: Record<string, (s: Store) => unknown> = {
  'token lookup (every partnership call)': (s) => s.partners.token('sbx_no-such-token', () => '0'.repeat(64)),
  'client lookup (token grant)': (s) => s.partners.byClient(DEMO.clientId),
  'token insert (token grant)': (s) => s.partners.insertToken('1'.repeat(64), PARENT, DEMO.clientId, NOW),
  'token prune (token grant)': (s) => s.partners.pruneTokens(NOW),
  'mappings by parent': (s) => s.partners.mappings(PARENT),
  'account by id': (s) => s.accounts.byId('acct_a'),
  'account by (parent, external_account_id)': (s) => s.accounts.byExternal(PARENT, 'ext-acct_a'),
  'register insert (account, pages, layouts, variants)': (s) => s.accounts.insert(newAccount('acct_b')),
  'pages by account': (s) => s.accounts.pages('acct_a'),
  'layouts by account': (s) => s.accounts.layouts('acct_a'),
  'variants by account': (s) => s.accounts.variants('acct_a'),
  'page by id': (s) => s.accounts.page('pg-acct_a'),
  'layout by id': (s) => s.accounts.layout('ly-acct_a'),
  'layout update': (s) => s.accounts.updateLayout('ly-acct_a', 'Embedded', 'n', 'now'),
  'variant by id': (s) => s.accounts.variant('va-acct_a'),
  'variant update (status PUT)': (s) =>
    s.accounts.setVariants([{ variant_id: 'va-acct_a', enabled: false, archived: false }]),
  'controls list by account': (s) => s.controls.get('acct_a'),
  'controls list upsert': (s) =>
    s.controls.put({
      account_id: 'acct_a',
      list_id: 'l',
      name: 'n',
      version: 1,
      content_hash: 'h',
      blocked: [],
      domains: [],
      updated_at: 'now',
    }),
  'idempotency get': (s) => s.idempotency.get(PARENT, 'k', NOW),
  'idempotency reserve': (s) =>
    s.idempotency.reserve(
      {
        parent_account_id: PARENT,
        key: 'k2',
        operation: 'PUT /x',
        fingerprint: 'f',
        dry_run: 0,
        expires_at: NOW + 1,
      },
      NOW,
    ),
  // A new key: one statement; a held one (k2, just reserved): that statement and the row's read.
  'idempotency claim': (s) => {
    for (const key of ['k4', 'k2'])
      s.idempotency.claim(
        {
          parent_account_id: PARENT,
          key,
          operation: 'PUT /x',
          fingerprint: 'f',
          dry_run: 0,
          expires_at: NOW + 1,
        },
        NOW,
      );
  },
  'idempotency complete': (s) => s.idempotency.complete(PARENT, 'k2', 200, '{}'),
  'idempotency release': (s) => s.idempotency.release(PARENT, 'k2'),
  'idempotency prune': (s) => s.idempotency.prune(NOW),
  // After each write: its account's rows and its stored answer, counted into the partner's room.
  "a write's stored bytes (the partner's room)": (s) => s.sizes.written(PARENT, 'acct_a', 'k'),
  // Read once per partner per process, then again on every write near its room: its stored
  // answers' sizes summed from their rows' `bytes`, through the key, no answer's body read.
  "a partner's stored bytes (a write near its room)": (s) => s.sizes.exact(PARENT),
  // Start-up, not a request: but every partner's stored keys are in the table (hosted: 10,000).
  'abandoned idempotency reservations (start-up)': (s) => s.idempotency.releaseAbandoned(),
  // A release the store refuses (read-only here) reads the key's row to keep the release in memory.
  'idempotency release refused by the store': (s) => {
    s.idempotency.reserve(
      {
        parent_account_id: PARENT,
        key: 'k3',
        operation: 'PUT /x',
        fingerprint: 'f',
        dry_run: 0,
        expires_at: NOW + 1,
      },
      NOW,
    );
    s.db.pragma('query_only = ON');
    try {
      s.idempotency.release(PARENT, 'k3');
    } finally {
      s.db.pragma('query_only = OFF');
    }
  },
};

/** Control-plane and start-up operations: small tables or rare calls, a scan is acceptable. */
const cold: Record<string, (s: Store) => unknown> = {
  'partner by parent': (s) => s.partners.byParent(PARENT),
  'partners list': (s) => s.partners.all(),
  // Pact provider states: a literal token taken back, a partner's credentials replaced until the teardown.
  'token delete (pact teardown)': (s) => s.partners.deleteToken('0'.repeat(64)),
  'partner credentials replace (pact state)': (s) =>
    s.partners.setCredentials({
      parent_account_id: 'pa_none',
      client_id: 'c_none',
      secret_algorithm: SECRET_ALGORITHMS[0],
      secret_salt: '00',
      secret_hash: '00',
    }),
  // A mapping seeded on the control plane: what the one it replaces took.
  "a partner's mapping bytes (a mapping seeded)": (s) => s.sizes.mapping(PARENT),
  'partner insert': (s) =>
    s.partners.insert({
      parent_account_id: 'pa_x',
      client_id: 'c_x',
      secret_algorithm: SECRET_ALGORITHMS[0],
      secret_salt: '00',
      secret_hash: '00',
      name: 'x',
      created_at: 'now',
    }),
  'mapping replace': (s) =>
    s.partners.replaceMappings('pa_x', [
      {
        partner_vertical_id: 1,
        partner_vertical_name: 'v',
        partner_sub_vertical_id: 11,
        partner_sub_vertical_name: 's',
        vertical_name: 'V',
        created_at: 'now',
      },
    ]),
  'accounts by parent (control plane listing)': (s) => s.accounts.byParent(PARENT, 200),
  'variant insert (control plane)': (s) =>
    s.accounts.insertVariant({
      variant_id: 'va2',
      page_id: 'pg-acct_a',
      account_id: 'acct_a',
      name: 'v2',
      enabled: 1,
      archived: 0,
      created_at: 'now',
    }),
  'idempotency count': (s) => s.idempotency.count(),
  'meta get': (s) => s.meta.get('seeded'),
  'meta set': (s) => s.meta.set('bench', '1'),
  // Test isolation (docs/parallel-tests.md): partner reset, partner clocks, bundles
  'meta delete': (s) => s.meta.delete('bench'),
  'meta by prefix (partner clocks)': (s) => s.meta.prefixed('clock_offset_ms:'),
  'partner delete (bundle import)': (s) => s.partners.delete('pa_none'),
  'accounts of a parent (bundle export)': (s) => s.accounts.allOf(PARENT),
  'account ids of a parent (partner reset)': (s) => s.accounts.idsOf(PARENT),
  'accounts delete of a parent (partner reset)': (s) => s.accounts.deleteOf('pa_none'),
  'accounts delete of some (a large import swapped in)': (s) => s.accounts.deleteSome(['acct_none']),
  'idempotency keys of a parent (bundle export)': (s) => s.idempotency.doneOf(PARENT),
  'idempotency keys of a parent, bodies as bytes (bundle export)': (s) => s.idempotency.doneBytesOf(PARENT),
  'idempotency insert (bundle import)': (s) =>
    s.idempotency.insertDone({
      parent_account_id: 'pa_none',
      key: 'k3',
      operation: 'PUT /x',
      fingerprint: 'f',
      dry_run: 0,
      status: 200,
      body: '{}',
      expires_at: NOW,
    }),
  'idempotency delete of a parent (partner reset)': (s) => s.idempotency.deleteOf('pa_none'),
  'list owners (bundle import)': (s) => s.controls.listOwners(['lst_none']),
  'account owners (bundle import)': (s) => s.accounts.ownersOf('account', ['acct_a', 'acct_none']),
  'page owners (bundle import)': (s) => s.accounts.ownersOf('page', ['pg-acct_a']),
  'layout owners (bundle import)': (s) => s.accounts.ownersOf('layout', ['ly_none']),
  'variant owners (bundle import)': (s) => s.accounts.ownersOf('variant', ['va2']),
  // Run on a store of schema version 3 (secrets in clear), as a durable store of an earlier version.
  'client secrets hashed (migration 4, once per durable store)': () => {
    const db = new Database(':memory:');
    for (const step of migrations.slice(0, 3)) if (typeof step === 'string') db.exec(step);
    db.exec("INSERT INTO partners VALUES ('pa_old', 'c_old', 'old-secret', 'x', 'now')"); // not recorded
    (migrations[3] as Exclude<Migration, string>)(db, { hashSecret: hashSecretSync });
    db.close();
  },
};

// ---- the tests -----------------------------------------------------------------------

let sandbox: Sandbox;
const plans = new Map<string, { statements: Executed[]; plans: string[][] }>();

beforeAll(() => {
  wrap(databaseProto, 'prepare', (stmt) => {
    prepared.add(stmt.source);
  });
  for (const m of ['run', 'get', 'all', 'iterate']) {
    wrap(statementProto, m, (stmt, args) => {
      executed?.push({ sql: stmt.source, args });
    });
  }
  sandbox = createSandbox(testConfig());
  const store = sandbox.store;
  store.accounts.insert(newAccount('acct_a'));
  for (const [name, op] of [...Object.entries(hot), ...Object.entries(cold)]) {
    const statements = statementsOf(() => op(store));
    plans.set(name, { statements, plans: statements.map((e) => plan(store.db, e)) });
  }
});

afterAll(() => {
  unwrap();
  sandbox?.close();
});

describe('query plans of hot statements', () => {
  it.each(Object.keys(hot))('%s: no table scan, reads go through an index or primary key', (name) => {
    const entry = plans.get(name)!;
    expect(entry.statements.length, `${name} executed no statement`).toBeGreaterThan(0);
    entry.statements.forEach((e, i) => {
      const details = entry.plans[i]!;
      const where = `${e.sql.replace(/\s+/g, ' ').trim()}\n  plan: ${JSON.stringify(details)}`;
      expect(
        details.filter((d) => /^SCAN\b/.test(d)),
        where,
      ).toEqual([]);
      // Reads, updates and deletes must locate rows with a SEARCH on an index or key.
      if (/^\s*(SELECT|UPDATE|DELETE)\b/i.test(e.sql)) {
        expect(
          details.some((d) =>
            /^SEARCH \w+ USING (INTEGER PRIMARY KEY|PRIMARY KEY|(COVERING )?INDEX)\b/.test(d),
          ),
          where,
        ).toBe(true);
      }
    });
  });

  it('the check itself: an unindexed lookup on the store db is reported as a SCAN', () => {
    const details = plan(sandbox.store.db, { sql: 'SELECT * FROM accounts WHERE brand = ?', args: ['Acme'] });
    expect(details.some((d) => /^SCAN accounts\b/.test(d))).toBe(true);
  });

  it('every statement the store prepares is classified (hot or control-plane) and was planned', () => {
    const covered = new Set([...plans.values()].flatMap((p) => p.statements.map((e) => e.sql)));
    // The store prepares its statements on first use: those declared and not run yet count too.
    const held = [...prepared, ...sandbox.store.declared];
    const unclassified = held.filter((sql) => DML.test(sql) && !covered.has(sql));
    expect(unclassified).toEqual([]);
  });
});
