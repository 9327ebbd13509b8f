/** Accounts and what registration creates under them: pages, layouts, page variants. */
import type { LAYOUT_TYPES, Surface } from '../contract/api/schemas.js';
import type { Db } from './db.js';

export interface AccountRow {
  account_id: string;
  parent_account_id: string;
  external_account_id: string;
  brand: string;
  vertical_id: number;
  sub_vertical_id: number;
  country_code: string;
  store_identifier: string;
  auth_ready_at: number;
  created_at: string;
}

export interface PageRow {
  page_id: string;
  account_id: string;
  surface: Surface;
  page_identifier: string;
  created_at: string;
}

export interface LayoutRow {
  layout_id: string;
  page_id: string;
  account_id: string;
  layout_type: (typeof LAYOUT_TYPES)[number];
  name: string;
  updated_at: string;
}

export interface VariantRow {
  variant_id: string;
  page_id: string;
  account_id: string;
  name: string;
  enabled: number;
  archived: number;
  created_at: string;
}

/** Everything one registration writes, inserted in one transaction. */
export interface NewAccount {
  account: AccountRow;
  pages: PageRow[];
  layouts: LayoutRow[];
  variants: VariantRow[];
}

/** The rows an account owns, by the name of their ID. */
type OwnedKind = 'account' | 'page' | 'layout' | 'variant';

/** The statements of the accounts, pages, layouts and variants tables, prepared once per connection. */
function accountStatements(db: Db) {
  return {
    insertAccount: db.prepare<AccountRow>(
      `INSERT INTO accounts (account_id, parent_account_id, external_account_id, brand, vertical_id,
         sub_vertical_id, country_code, store_identifier, auth_ready_at, created_at)
       VALUES (@account_id, @parent_account_id, @external_account_id, @brand, @vertical_id,
         @sub_vertical_id, @country_code, @store_identifier, @auth_ready_at, @created_at)`,
    ),
    insertPage: db.prepare<PageRow>(
      `INSERT INTO pages (page_id, account_id, surface, page_identifier, created_at)
       VALUES (@page_id, @account_id, @surface, @page_identifier, @created_at)`,
    ),
    insertLayout: db.prepare<LayoutRow>(
      `INSERT INTO layouts (layout_id, page_id, account_id, layout_type, name, updated_at)
       VALUES (@layout_id, @page_id, @account_id, @layout_type, @name, @updated_at)`,
    ),
    insertVariant: db.prepare<VariantRow>(
      `INSERT INTO variants (variant_id, page_id, account_id, name, enabled, archived, created_at)
       VALUES (@variant_id, @page_id, @account_id, @name, @enabled, @archived, @created_at)`,
    ),
    byId: db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE account_id = ?'),
    byExternal: db.prepare<[string, string], AccountRow>(
      'SELECT * FROM accounts WHERE parent_account_id = ? AND external_account_id = ?',
    ),
    byParent: db.prepare<[string, number], AccountRow>(
      'SELECT * FROM accounts WHERE parent_account_id = ? ORDER BY created_at DESC, account_id LIMIT ?',
    ),
    pages: db.prepare<[string], PageRow>('SELECT * FROM pages WHERE account_id = ? ORDER BY rowid'),
    page: db.prepare<[string], PageRow>('SELECT * FROM pages WHERE page_id = ?'),
    layouts: db.prepare<[string], LayoutRow>('SELECT * FROM layouts WHERE account_id = ? ORDER BY rowid'),
    layout: db.prepare<[string], LayoutRow>('SELECT * FROM layouts WHERE layout_id = ?'),
    updateLayout: db.prepare<[string, string, string, string]>(
      'UPDATE layouts SET layout_type = ?, name = ?, updated_at = ? WHERE layout_id = ?',
    ),
    variants: db.prepare<[string], VariantRow>('SELECT * FROM variants WHERE account_id = ? ORDER BY rowid'),
    variant: db.prepare<[string], VariantRow>('SELECT * FROM variants WHERE variant_id = ?'),
    setVariant: db.prepare<[number, number, string]>(
      'UPDATE variants SET enabled = ?, archived = ? WHERE variant_id = ?',
    ),
    allOf: db.prepare<[string], AccountRow>(
      'SELECT * FROM accounts WHERE parent_account_id = ? ORDER BY created_at, account_id',
    ),
    idsOf: db
      .prepare<[string], string>('SELECT account_id FROM accounts WHERE parent_account_id = ?')
      .pluck(),
    // Children first, each table in one statement: far faster than the cascade row by row.
    deleteOf: (['variants', 'layouts', 'pages', 'controls_lists'] as const)
      .map((table) =>
        db.prepare<[string]>(
          `DELETE FROM ${table} WHERE account_id IN (SELECT account_id FROM accounts WHERE parent_account_id = ?)`,
        ),
      )
      .concat(db.prepare<[string]>('DELETE FROM accounts WHERE parent_account_id = ?')),
    // The same for some accounts (a JSON array of their IDs).
    deleteSome: (['variants', 'layouts', 'pages', 'controls_lists', 'accounts'] as const).map((table) =>
      db.prepare<[string]>(`DELETE FROM ${table} WHERE account_id IN (SELECT value FROM json_each(?))`),
    ),
  };
}

/** For each kind of owned row: the parent account holding each of a JSON array of its IDs. */
function ownerStatements(db: Db) {
  const ownerQuery = (kind: OwnedKind) =>
    db.prepare<[string], { id: string; owner: string }>(
      `SELECT t.${kind}_id AS id, a.parent_account_id AS owner
       FROM ${kind}s t JOIN accounts a ON a.account_id = t.account_id
       WHERE t.${kind}_id IN (SELECT value FROM json_each(?))`,
    );
  return {
    account: ownerQuery('account'),
    page: ownerQuery('page'),
    layout: ownerQuery('layout'),
    variant: ownerQuery('variant'),
  };
}

export function accountStore(db: Db) {
  const s = accountStatements(db);
  const owners = ownerStatements(db);

  // Account rows never change once written: recently read ones are kept parsed.
  const accountCache = new Map<string, AccountRow>();
  const CACHE_MAX = 10_000;

  const insert = db.transaction((n: NewAccount) => {
    s.insertAccount.run(n.account);
    for (const p of n.pages) s.insertPage.run(p);
    for (const l of n.layouts) s.insertLayout.run(l);
    for (const v of n.variants) s.insertVariant.run(v);
  });

  const deleteOf = db.transaction((parent: string) => {
    for (const statement of s.deleteOf) statement.run(parent);
  });

  const setVariants = db.transaction(
    (changes: { variant_id: string; enabled: boolean; archived: boolean }[]) => {
      for (const c of changes) s.setVariant.run(c.enabled ? 1 : 0, c.archived ? 1 : 0, c.variant_id);
    },
  );

  return {
    /** Inserts an account with its pages, layouts and variants in one transaction. */
    insert: (n: NewAccount) => insert(n),
    byId(id: string): AccountRow | undefined {
      let row = accountCache.get(id);
      if (!row) {
        row = s.byId.get(id);
        if (!row) return undefined;
        if (accountCache.size >= CACHE_MAX) accountCache.clear();
        accountCache.set(id, row);
      }
      return row;
    },
    clearCache(): void {
      accountCache.clear();
    },
    byExternal: (parent: string, external: string) => s.byExternal.get(parent, external),
    byParent: (parent: string, limit: number) => s.byParent.all(parent, limit),
    pages: (accountId: string) => s.pages.all(accountId),
    page: (pageId: string) => s.page.get(pageId),
    layouts: (accountId: string) => s.layouts.all(accountId),
    layout: (layoutId: string) => s.layout.get(layoutId),
    updateLayout: (layoutId: string, layoutType: string, name: string, updatedAt: string) =>
      void s.updateLayout.run(layoutType, name, updatedAt, layoutId),
    variants: (accountId: string) => s.variants.all(accountId),
    variant: (variantId: string) => s.variant.get(variantId),
    insertVariant: (v: VariantRow) => void s.insertVariant.run(v),
    /**
     * The parent account holding each of these IDs of a kind (one query, however many: a large
     * import's check); IDs held by none are absent.
     */
    ownersOf(kind: OwnedKind, ids: readonly string[]): Map<string, string> {
      if (ids.length === 0) return new Map();
      return new Map(owners[kind].all(JSON.stringify(ids)).map((r) => [r.id, r.owner]));
    },
    /** Every account of a parent, oldest first. */
    allOf: (parent: string) => s.allOf.all(parent),
    idsOf: (parent: string) => s.idsOf.all(parent),
    /** Deletes a parent's accounts, with their pages, layouts, variants and controls lists. */
    deleteOf: (parent: string) => deleteOf(parent),
    /** Deletes these accounts with their pages, layouts, variants and controls list (inside a transaction). */
    deleteSome(ids: readonly string[]): void {
      const list = JSON.stringify(ids);
      for (const statement of s.deleteSome) statement.run(list);
      for (const id of ids) accountCache.delete(id);
    },
    /** Applies every variant change in one transaction. */
    setVariants: (changes: { variant_id: string; enabled: boolean; archived: boolean }[]) =>
      setVariants(changes),
  };
}
export type AccountStore = ReturnType<typeof accountStore>;
