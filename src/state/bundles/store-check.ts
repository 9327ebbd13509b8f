/**
 * The store's part of a bundle checked against itself (IDs unique, layouts and variants on a
 * page of their account, the status record naming the account's variants, stored answers an
 * answer of their operation) and against this sandbox (IDs held by another partner here),
 * before anything is written.
 */
import type { FieldIssue } from '../../contract/api/errors.js';
import { BUNDLE_SECRET_ALGORITHMS, type BundleData } from '../../contract/control/bundle.js';
import { stretch } from '../../core/turns.js';
import { SECRET_ALGORITHMS, type SecretAlgorithm } from '../../domain/secrets.js';
import type { Sandbox } from '../sandbox.js';
import { storedAnswerProblems } from './stored-answers.js';

// The bundle's algorithms are those the store keeps, both ways (a compile-time check).
const _sameAlgorithms: [SecretAlgorithm[], (typeof BUNDLE_SECRET_ALGORITHMS)[number][]] = [
  [...BUNDLE_SECRET_ALGORITHMS],
  [...SECRET_ALGORITHMS],
];
void _sameAlgorithms;

type BundleAccount = BundleData['accounts'][number];

/** How many accounts the check goes through between two pauses (a large import's turns). */
const ACCOUNTS_PER_CHECK_SLICE = 500;

const TAKEN = 'belongs to another partner in this sandbox';

/** The problems found so far, by field, and where each ID was first seen (they are unique in a bundle). */
class Findings {
  readonly out: FieldIssue[] = [];
  readonly #seen = new Map<string, string>();

  constructor(readonly parent: string) {}

  add(field: string, message: string): void {
    this.out.push({ field, message });
  }

  /** A problem when `value` of this kind was seen before in the bundle. */
  unique(kind: string, value: string, field: string): void {
    const key = `${kind}\u0000${value}`;
    const first = this.#seen.get(key);
    if (first !== undefined) this.add(field, `repeats ${first}`);
    else this.#seen.set(key, field);
  }

  /** Whether another partner of this sandbox is `owner`. */
  foreign(owner: string | undefined): boolean {
    return owner !== undefined && owner !== this.parent;
  }

  /** A problem when another partner here holds the ID at `field`. */
  ours(owner: string | undefined, field: string): void {
    if (this.foreign(owner)) this.add(field, TAKEN);
  }
}

/** Who holds each of a slice's IDs in this sandbox, by kind: one query per kind. */
interface Owners {
  list: Map<string, string>;
  account: Map<string, string>;
  page: Map<string, string>;
  layout: Map<string, string>;
  variant: Map<string, string>;
}

function ownersOf(s: Sandbox, slice: readonly BundleAccount[]): Owners {
  const owners = (kind: 'account' | 'page' | 'layout' | 'variant', ids: (a: BundleAccount) => string[]) =>
    s.store.accounts.ownersOf(kind, slice.flatMap(ids));
  return {
    list: s.store.controls.listOwners(slice.map((a) => a.controls.list_id)),
    account: owners('account', (a) => [a.account_id]),
    page: owners('page', (a) => a.pages.map((p) => p.page_id)),
    layout: owners('layout', (a) => a.layouts.map((l) => l.layout_id)),
    variant: owners('variant', (a) => a.variants.map((v) => v.variant_id)),
  };
}

/**
 * The store's part of a bundle checked against itself and against this sandbox: the problems,
 * by field (the generator's result), pausing (a `yield`) after each slice of accounts.
 */
export function* storeProblems(s: Sandbox, b: BundleData): Generator<void, FieldIssue[]> {
  const f = new Findings(b.partner.parent_account_id);
  if (f.foreign(s.store.partners.byClient(b.partner.client_id)?.parent_account_id))
    f.add('partner.client_id', 'is the client_id of another partner in this sandbox');
  b.vertical_mappings.forEach((m, i) => {
    f.unique('sub', String(m.partner_sub_vertical_id), `vertical_mappings[${i}].partner_sub_vertical_id`);
  });
  let owners: Owners | undefined;
  const time = stretch();
  for (const [i, a] of b.accounts.entries()) {
    const sliceStart = i % ACCOUNTS_PER_CHECK_SLICE === 0;
    if (i > 0 && (sliceStart || time.due())) {
      yield;
      time.restart();
    }
    if (sliceStart) owners = ownersOf(s, b.accounts.slice(i, i + ACCOUNTS_PER_CHECK_SLICE));
    accountProblems(f, a, `accounts[${i}]`, i, owners!);
  }
  const layoutsOf = new Map(
    b.accounts.map((a) => [a.account_id, new Set(a.layouts.map((l) => l.layout_id))]),
  );
  b.idempotency_keys.forEach((k, i) => {
    f.unique('key', k.key, `idempotency_keys[${i}].key`);
    f.out.push(...storedAnswerProblems(k, `idempotency_keys[${i}]`, layoutsOf));
  });
  return f.out;
}

/** One account's problems (the `i`th, at `at`), its IDs' holders here in `owners`. */
function accountProblems(f: Findings, a: BundleAccount, at: string, i: number, owners: Owners): void {
  f.unique('account', a.account_id, `${at}.account_id`);
  f.unique('external', a.external_account_id, `${at}.external_account_id`);
  f.ours(owners.account.get(a.account_id), `${at}.account_id`);
  const pages = new Set(a.pages.map((p) => p.page_id));
  a.pages.forEach((p, j) => {
    f.unique('page', p.page_id, `${at}.pages[${j}].page_id`);
    f.ours(owners.page.get(p.page_id), `${at}.pages[${j}].page_id`);
  });
  /** A layout or variant: unique, on a page of this account, not another partner's. */
  const onPage = (kind: 'layout' | 'variant', id: string, pageId: string, where: string) => {
    f.unique(kind, id, `${where}.${kind}_id`);
    if (!pages.has(pageId)) f.add(`${where}.page_id`, 'is not a page of this account');
    f.ours(owners[kind].get(id), `${where}.${kind}_id`);
  };
  for (const [j, l] of a.layouts.entries()) onPage('layout', l.layout_id, l.page_id, `${at}.layouts[${j}]`);
  const list = a.controls;
  f.unique('list', list.list_id, `${at}.controls.list_id`);
  f.ours(owners.list.get(list.list_id), `${at}.controls.list_id`);
  list.blocked.forEach((block, j) => {
    // A block on a category the mapping no longer has is kept: a partner re-seeded after a
    // write holds such blocks, and the controls GET leaves them out (domain/taxonomy.ts).
    f.unique(`blocked ${i}`, block.vertical_name, `${at}.controls.blocked[${j}].vertical_name`);
  });
  list.domains.forEach((d, j) => {
    f.unique(`domain ${i}`, d.domain.toLowerCase(), `${at}.controls.domains[${j}].domain`);
  });
  for (const [j, v] of a.variants.entries())
    onPage('variant', v.variant_id, v.page_id, `${at}.variants[${j}]`);
  lastWriteProblems(f, a, at);
}

/** A variant keeps its page and name for good: the record names this account's variants as they are. */
function lastWriteProblems(f: Findings, a: BundleAccount, at: string): void {
  const variants = new Map(a.variants.map((v) => [v.variant_id, v]));
  const recorded = new Set<string>();
  a.last_status_write?.variants.forEach((r, j) => {
    const where = `${at}.last_status_write.variants[${j}]`;
    const v = variants.get(r.variant_id);
    if (!v) f.add(`${where}.variant_id`, 'is not a variant of this account');
    else if (recorded.has(r.variant_id)) f.add(`${where}.variant_id`, 'is repeated');
    else {
      if (r.page_id !== v.page_id)
        f.add(`${where}.page_id`, `must be ${v.page_id}, the page of that variant`);
      if (r.name !== v.name) f.add(`${where}.name`, 'must be the name of that variant');
    }
    recorded.add(r.variant_id);
  });
}
