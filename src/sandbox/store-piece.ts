/**
 * The store as a piece of the sandbox's state (core/state-registry.ts). A partner's part of a
 * bundle: its credentials, mapping, accounts with everything under them and completed
 * idempotency keys. An import checks them against the bundle itself and against this sandbox
 * (IDs held by another partner here) before anything is written, then replaces the partner in
 * the registry's one transaction (the clocks, their own piece, in the same one).
 */
import type { z } from 'zod';
import type { FieldIssue } from '../contract/api/errors.js';
import { issuesToFields } from '../contract/api/issues.js';
import { operations } from '../contract/api/operations.js';
import { BUNDLE_SECRET_ALGORITHMS, type BundleData } from '../contract/control/bundle.js';
import type { Sandbox } from '../core/state.js';
import type { BundlePart, PartnerImport, Staging, StatePiece } from '../core/state-registry.js';
import { atOnce, MS_PER_TURN, stretch } from '../core/turns.js';
import { canonical } from '../domain/canonical-json.js';
import { routePattern } from '../domain/route-pattern.js';
import { SECRET_ALGORITHMS, type SecretAlgorithm } from '../domain/secrets.js';
import { lastStatusWrite, lastStatusWriteMeta, putLastStatusWrite } from '../services/status.js';
import type { AccountRow } from '../store/accounts.js';
import { storedControls } from '../store/controls.js';
import type { StoreImage } from '../store/index.js';
import { secretColumns, secretOf } from '../store/partners.js';
import { type StagedAccount, type StagedRows, SWAP_MARKER } from '../store/staging.js';
import { clockPlan } from './clock-plan.js';

// The bundle's algorithms are those the store keeps, both ways (a compile-time check).
const _sameAlgorithms: [SecretAlgorithm[], (typeof BUNDLE_SECRET_ALGORITHMS)[number][]] = [
  [...BUNDLE_SECRET_ALGORITHMS],
  [...SECRET_ALGORITHMS],
];
void _sameAlgorithms;

/**
 * The operations a stored answer can replay on: the routes whose 200 documents
 * Idempotent-Replayed, each with its path as a pattern and its documented 200 body.
 */
const replayable = Object.values(operations)
  .map((o) => o.route)
  .filter((r) => 'Idempotent-Replayed' in r.responses[200].headers)
  .map((r) => ({
    method: r.method.toUpperCase(),
    template: r.path,
    pattern: routePattern(r.path),
    statuses: Object.keys(r.responses)
      .map(Number)
      .filter((n) => n >= 200 && n < 300),
    schema: r.responses[200].content['application/json'].schema as z.ZodType,
  }));

type StoredKey = BundleData['idempotency_keys'][number];

/**
 * A stored answer is replayed byte for byte (`Idempotent-Replayed: true`), so it must be
 * an answer its operation could have given: an operation that takes a key, on an account
 * (and layout) of this bundle; a documented 2xx; JSON that is exactly the documented 200
 * body (no field more or less), its envelope's status the stored one, dry_run present
 * exactly when the key was a dry run's, and its data about the operation's account.
 */
function storedAnswerProblems(
  k: StoredKey,
  at: string,
  layoutsOf: ReadonlyMap<string, ReadonlySet<string>>,
): FieldIssue[] {
  const space = k.operation.indexOf(' ');
  const method = k.operation.slice(0, space);
  const path = k.operation.slice(space + 1);
  const route = space > 0 ? replayable.find((r) => r.method === method && r.pattern.test(path)) : undefined;
  if (!route) {
    const known = replayable.map((r) => `${r.method} ${r.template}`).join(', ');
    return [
      { field: `${at}.operation`, message: `must be an operation that takes an Idempotency-Key (${known})` },
    ];
  }
  const params = route.pattern.exec(path)!.groups ?? {};
  const account = params.account_id!;
  const layouts = layoutsOf.get(account);
  if (!layouts)
    return [{ field: `${at}.operation`, message: `names account ${account}, not an account of this bundle` }];
  if (params.layout_id !== undefined && !layouts.has(params.layout_id))
    return [
      {
        field: `${at}.operation`,
        message: `names layout ${params.layout_id}, not a layout of account ${account}`,
      },
    ];
  if (!route.statuses.includes(k.status))
    return [
      {
        field: `${at}.status`,
        message: `must be ${route.statuses.join(' or ')}, what ${method} ${route.template} answers`,
      },
    ];

  let body: unknown;
  try {
    body = JSON.parse(k.body);
  } catch {
    return [{ field: `${at}.body`, message: 'must be the JSON answer that is replayed (it is not JSON)' }];
  }
  const answer = route.schema.safeParse(body);
  if (!answer.success) {
    return issuesToFields(answer.error.issues, '', 'bundle').map((f) => ({
      field: f.field === '(body)' ? `${at}.body` : `${at}.body.${f.field}`,
      message: `${f.message} (not an answer of ${method} ${route.template})`,
    }));
  }
  if (JSON.stringify(canonical(answer.data)) !== JSON.stringify(canonical(body)))
    return [
      { field: `${at}.body`, message: `holds fields that an answer of ${method} ${route.template} does not` },
    ];
  const envelope = body as { status: number; dry_run?: true; data: Record<string, unknown> };
  const out: FieldIssue[] = [];
  if (envelope.status !== k.status)
    out.push({ field: `${at}.body.status`, message: `must be ${k.status}, the stored status` });
  if ('dry_run' in envelope !== k.dry_run)
    out.push({
      field: `${at}.body.dry_run`,
      message: k.dry_run
        ? "must be true: the key is a dry run's"
        : "must be absent: the key is not a dry run's",
    });
  if ('account_id' in envelope.data && envelope.data.account_id !== account)
    out.push({
      field: `${at}.body.data.account_id`,
      message: `must be ${account}, the account of the operation`,
    });
  if (params.layout_id !== undefined && envelope.data.layout_id !== params.layout_id)
    out.push({
      field: `${at}.body.data.layout_id`,
      message: `must be ${params.layout_id}, the layout of the operation`,
    });
  return out;
}
/** How many accounts the check goes through between two pauses (a large import's turns). */
const ACCOUNTS_PER_CHECK_SLICE = 500;

/**
 * The store's part of a bundle checked against itself and against this sandbox: the problems,
 * by field (the generator's result), pausing (a `yield`) after each slice of accounts.
 */
function* storeProblems(s: Sandbox, b: BundleData): Generator<void, FieldIssue[]> {
  const out: FieldIssue[] = [];
  const parent = b.partner.parent_account_id;
  const foreign = (owner: string | undefined) => owner !== undefined && owner !== parent;
  const holder = s.store.partners.byClient(b.partner.client_id);
  if (foreign(holder?.parent_account_id))
    out.push({ field: 'partner.client_id', message: 'is the client_id of another partner in this sandbox' });

  const seen = new Map<string, string>();
  const unique = (kind: string, value: string, field: string) => {
    const key = `${kind}\u0000${value}`;
    const first = seen.get(key);
    if (first !== undefined) out.push({ field, message: `repeats ${first}` });
    else seen.set(key, field);
  };
  b.vertical_mappings.forEach((m, i) => {
    unique('sub', String(m.partner_sub_vertical_id), `vertical_mappings[${i}].partner_sub_vertical_id`);
  });
  // Who holds each of the bundle's IDs here: one query per kind and slice of accounts.
  let listOwners = new Map<string, string>();
  let accountOwners = listOwners;
  let pageOwners = listOwners;
  let layoutOwners = listOwners;
  let variantOwners = listOwners;
  const time = stretch();
  for (const [i, a] of b.accounts.entries()) {
    const sliceStart = i % ACCOUNTS_PER_CHECK_SLICE === 0;
    if (i > 0 && (sliceStart || time.due())) {
      yield;
      time.restart();
    }
    if (sliceStart) {
      const slice = b.accounts.slice(i, i + ACCOUNTS_PER_CHECK_SLICE);
      const owners = (kind: 'account' | 'page' | 'layout' | 'variant', ids: (a: BundleAccount) => string[]) =>
        s.store.accounts.ownersOf(kind, slice.flatMap(ids));
      listOwners = s.store.controls.listOwners(slice.map((a) => a.controls.list_id));
      accountOwners = owners('account', (a) => [a.account_id]);
      pageOwners = owners('page', (a) => a.pages.map((p) => p.page_id));
      layoutOwners = owners('layout', (a) => a.layouts.map((l) => l.layout_id));
      variantOwners = owners('variant', (a) => a.variants.map((v) => v.variant_id));
    }
    const at = `accounts[${i}]`;
    unique('account', a.account_id, `${at}.account_id`);
    unique('external', a.external_account_id, `${at}.external_account_id`);
    if (foreign(accountOwners.get(a.account_id)))
      out.push({ field: `${at}.account_id`, message: 'belongs to another partner in this sandbox' });
    const pages = new Set(a.pages.map((p) => p.page_id));
    a.pages.forEach((p, j) => {
      unique('page', p.page_id, `${at}.pages[${j}].page_id`);
      if (foreign(pageOwners.get(p.page_id)))
        out.push({
          field: `${at}.pages[${j}].page_id`,
          message: 'belongs to another partner in this sandbox',
        });
    });
    /** A layout or variant: unique, on a page of this account, not another partner's. */
    const onPage = (
      kind: 'layout' | 'variant',
      id: string,
      pageId: string,
      where: string,
      owner?: string,
    ) => {
      unique(kind, id, `${where}.${kind}_id`);
      if (!pages.has(pageId))
        out.push({ field: `${where}.page_id`, message: 'is not a page of this account' });
      if (foreign(owner))
        out.push({ field: `${where}.${kind}_id`, message: 'belongs to another partner in this sandbox' });
    };
    for (const [j, l] of a.layouts.entries()) {
      onPage('layout', l.layout_id, l.page_id, `${at}.layouts[${j}]`, layoutOwners.get(l.layout_id));
    }
    const list = a.controls;
    unique('list', list.list_id, `${at}.controls.list_id`);
    if (foreign(listOwners.get(list.list_id)))
      out.push({ field: `${at}.controls.list_id`, message: 'belongs to another partner in this sandbox' });
    list.blocked.forEach((block, j) => {
      // A block on a category the mapping no longer has is kept: a partner re-seeded after a
      // write holds such blocks, and the controls GET leaves them out (domain/taxonomy.ts).
      unique(`blocked ${i}`, block.vertical_name, `${at}.controls.blocked[${j}].vertical_name`);
    });
    list.domains.forEach((d, j) => {
      unique(`domain ${i}`, d.domain.toLowerCase(), `${at}.controls.domains[${j}].domain`);
    });
    for (const [j, v] of a.variants.entries()) {
      onPage('variant', v.variant_id, v.page_id, `${at}.variants[${j}]`, variantOwners.get(v.variant_id));
    }
    // A variant keeps its page and name for good: the record names this account's variants as they are.
    const variants = new Map(a.variants.map((v) => [v.variant_id, v]));
    const recorded = new Set<string>();
    a.last_status_write?.variants.forEach((r, j) => {
      const where = `${at}.last_status_write.variants[${j}]`;
      const v = variants.get(r.variant_id);
      if (!v) out.push({ field: `${where}.variant_id`, message: 'is not a variant of this account' });
      else if (recorded.has(r.variant_id)) out.push({ field: `${where}.variant_id`, message: 'is repeated' });
      else {
        if (r.page_id !== v.page_id)
          out.push({ field: `${where}.page_id`, message: `must be ${v.page_id}, the page of that variant` });
        if (r.name !== v.name)
          out.push({ field: `${where}.name`, message: 'must be the name of that variant' });
      }
      recorded.add(r.variant_id);
    });
  }
  const layoutsOf = new Map(
    b.accounts.map((a) => [a.account_id, new Set(a.layouts.map((l) => l.layout_id))]),
  );
  b.idempotency_keys.forEach((k, i) => {
    unique('key', k.key, `idempotency_keys[${i}].key`);
    out.push(...storedAnswerProblems(k, `idempotency_keys[${i}]`, layoutsOf));
  });
  return out;
}

type BundleAccount = BundleData['accounts'][number];
type BundlePage = BundleAccount['pages'][number];
type BundleLayout = BundleAccount['layouts'][number];

const strip = <T extends object, K extends keyof T>(row: T, ...keys: K[]): Omit<T, K> => {
  const out = { ...row };
  for (const k of keys) delete out[k];
  return out;
};

/**
 * The partner's rows as its bundle carries them (the partner exists: the export checked),
 * pausing (a `yield`) every stretch of MS_PER_TURN (core/turns.ts).
 */
function* exportRows(s: Sandbox, parent: string): Generator<void, BundlePart> {
  const partner = s.store.partners.byParent(parent)!;
  const rows = s.store.accounts.allOf(parent);
  const accounts: BundleAccount[] = [];
  const time = stretch();
  for (const a of rows) {
    if (time.due()) {
      yield;
      time.restart();
    }
    accounts.push(exportAccount(s, a));
  }
  return {
    partner: {
      parent_account_id: partner.parent_account_id,
      client_id: partner.client_id,
      client_secret_hash: secretOf(partner),
      name: partner.name,
      created_at: partner.created_at,
    },
    vertical_mappings: s.store.partners.mappings(parent).map((m) => ({ ...m })),
    accounts,
    idempotency_keys: s.store.idempotency.doneOf(parent).map((k) => ({
      key: k.key,
      operation: k.operation,
      fingerprint: k.fingerprint,
      dry_run: k.dry_run === 1,
      status: k.status ?? 200,
      body: k.body ?? '',
      expires_at: k.expires_at,
    })),
  };
}

/** One account as its partner's bundle carries it. */
function exportAccount(s: Sandbox, a: AccountRow): BundleAccount {
  const controls = s.store.controls.get(a.account_id)!;
  return {
    ...strip(a, 'parent_account_id'),
    // The store keeps what the API validated: its surfaces and layout types are the enums'.
    pages: s.store.accounts.pages(a.account_id).map((p) => strip(p, 'account_id') as BundlePage),
    layouts: s.store.accounts.layouts(a.account_id).map((l) => strip(l, 'account_id') as BundleLayout),
    variants: s.store.accounts.variants(a.account_id).map((v) => ({
      ...strip(v, 'account_id'),
      enabled: v.enabled === 1,
      archived: v.archived === 1,
    })),
    controls: strip(controls, 'account_id'),
    last_status_write: lastStatusWrite(s, a.account_id),
  };
}

/** How many accounts a large import stages between two turns of the event loop. */
const ACCOUNTS_PER_SLICE = 250;
/** How many of the partner's old accounts a large import's swap deletes between two turns. */
const OLD_ACCOUNTS_PER_SLICE = 2000;
/** How many staged rows a large import's swap moves in between two turns (about 15 ms). */
const ROWS_PER_SLICE = 16_000;

/** One bundle account's rows as the store keeps them (its deadline moved by the clock plan). */
function accountRows(a: BundleAccount, parent: string, clock: ReturnType<typeof clockPlan>): StagedAccount {
  const { pages, layouts, variants, controls, last_status_write, ...account } = a;
  const account_id = a.account_id;
  return {
    account: { ...account, auth_ready_at: clock.deadline(a.auth_ready_at), parent_account_id: parent },
    pages: pages.map((p) => ({ ...p, account_id })),
    layouts: layouts.map((l) => ({ ...l, account_id })),
    variants: variants.map((v) => ({
      ...v,
      account_id,
      enabled: v.enabled ? 1 : 0,
      archived: v.archived ? 1 : 0,
    })),
    controls: storedControls({ ...controls, account_id }),
    meta: last_status_write ? [lastStatusWriteMeta(account_id, last_status_write)] : [],
  };
}

/**
 * A large import's accounts staged ahead by slices (store/staging.ts), then swapped in by
 * slices too, after importRows's transaction wrote the rest: the partner's old accounts
 * deleted, then the staged rows moved in, while the partner's calls and the control plane wait
 * (core/swap-gate.ts). A file store marks the swap under way in that transaction and unmarks
 * it with the last slice: a process killed between the two finishes it at the next start-up
 * (finishSwapsLeft).
 */
function stageAccounts(s: Sandbox, { bundle: b, realNow }: Omit<PartnerImport, 'scope' | 'staged'>): Staging {
  const clock = clockPlan(s, b.clock.now, realNow);
  const parent = b.partner.parent_account_id;
  const rows = s.store.stage();
  let at = 0;
  /** The swap has begun (its transaction written) and not ended: a file store's marker stands. */
  let underWay = false;
  /** The partner's accounts before the swap (read by its first slice), deleted first. */
  let old: string[] | undefined;
  const staged = () => at >= b.accounts.length && rows.isIn(s.store.db);
  return {
    next() {
      // Up to ACCOUNTS_PER_SLICE accounts, fewer when their rows take long to build (long lists).
      // (Half a stretch: the rows built are then written, in the same turn.)
      const time = stretch(MS_PER_TURN / 2);
      const slice: StagedAccount[] = [];
      while (at < b.accounts.length && slice.length < ACCOUNTS_PER_SLICE && !time.due())
        slice.push(accountRows(b.accounts[at++]!, parent, clock));
      rows.add(slice);
      return at < b.accounts.length;
    },
    taken() {
      const client = () => {
        const holder = s.store.partners.byClient(b.partner.client_id)?.parent_account_id;
        return holder !== undefined && holder !== parent;
      };
      return [client, ...(staged() ? rows.taken(parent) : [])];
    },
    begin() {
      // Under way once the import's transaction commits (this runs inside it).
      underWay = staged();
      if (underWay && !s.store.memory)
        s.store.meta.set(SWAP_MARKER, JSON.stringify({ parent, prefix: rows.prefix }));
      return underWay;
    },
    moveNext() {
      if (!underWay) return false;
      // A slice the store refuses throws, and the swap stays under way (finish).
      underWay = s.store.unchecked(() =>
        s.store.tx(() => {
          old ??= s.store.accounts.idsOf(parent);
          if (old.length > 0) {
            deleteAccounts(s, old.splice(0, OLD_ACCOUNTS_PER_SLICE));
            return true;
          }
          if (rows.moveSome(ROWS_PER_SLICE)) return true;
          s.store.meta.delete(SWAP_MARKER);
          return false;
        }),
      );
      // Cached rows of the old accounts (an ID the bundle keeps is a new row now).
      if (!underWay) s.store.clearCaches();
      return underWay;
    },
    finish() {
      if (!underWay) return;
      finishSwap(s, parent, rows);
      underWay = false;
    },
    // A swap left under way in a file store keeps its rows, for the next start-up to finish.
    drop: () => {
      if (!(underWay && !s.store.memory)) rows.drop();
    },
  };
}

/**
 * A swap under way finished in one transaction: the partner's accounts (old ones, or moved
 * already) deleted and every staged row moved in, the marker gone; the partner is the bundle's.
 */
function finishSwap(s: Sandbox, parent: string, rows: StagedRows): void {
  try {
    s.store.unchecked(() =>
      s.store.tx(() => {
        deleteAccounts(s, s.store.accounts.idsOf(parent));
        if (!rows.moveInto(s.store.db)) throw new Error('the staged rows are gone');
        s.store.meta.delete(SWAP_MARKER);
      }),
    );
  } finally {
    s.store.clearCaches();
  }
}

/** Deletes these accounts with all their rows and records (inside a transaction). */
function deleteAccounts(s: Sandbox, ids: readonly string[]): void {
  for (const id of ids) putLastStatusWrite(s, id, null);
  s.store.accounts.deleteSome(ids);
}

/**
 * The swap of a large import left under way in a file store (its marker stands: a killed
 * process, or a swap whose slices and finish the store refused) is finished, so that partner
 * is its bundle's, and its staging tables go.
 */
function finishSwapLeft(s: Sandbox): void {
  const marker = s.store.meta.get(SWAP_MARKER);
  if (marker === undefined) return;
  const { parent, prefix } = JSON.parse(marker) as { parent: string; prefix: string };
  const rows = s.store.stagesLeft().find((r) => r.prefix === prefix);
  if (rows) finishSwap(s, parent, rows);
  else s.store.meta.delete(SWAP_MARKER);
  rows?.drop();
  s.log.info('import_swap_finished', { parent_account_id: parent, finished: rows !== undefined });
}

/** At start-up: the swap left under way is finished (finishSwapLeft); then every staging table left goes. */
export function finishSwapsLeft(s: Sandbox): void {
  finishSwapLeft(s);
  for (const rows of s.store.stagesLeft()) rows.drop();
}

/**
 * Replaces the partner's rows by the bundle's, inside the registry's transaction (but its
 * accounts, when a large import staged them: they move in by slices after it). Deadlines
 * are kept relative to the partner's clock (clockPlan); historical times (created_at,
 * updated_at) are kept as they are.
 */
function importRows(s: Sandbox, { scope, bundle: b, realNow, staged }: PartnerImport): void {
  const parent = scope.parent;
  // A swap left under way by an import the store refused (its marker) is finished first, in
  // this transaction: else this import's marker would replace it, or the next start-up finish
  // it over this import.
  finishSwapLeft(s);
  const previous = s.store.partners.byParent(parent);
  const clock = clockPlan(s, b.clock.now, realNow);
  // Staged accounts replace the old ones by slices after this transaction, else the bundle's are written here.
  const moved = staged?.get('store')?.begin() ?? false;
  if (!moved) {
    // The old accounts' records go with them; a bundle's account without one has none.
    for (const id of s.store.accounts.idsOf(parent)) putLastStatusWrite(s, id, null);
    s.store.accounts.deleteOf(parent);
  }
  if (previous) {
    s.store.idempotency.deleteOf(parent);
    s.store.partners.delete(parent); // with its mapping and tokens; not its accounts (no cascade here)
  }
  const { client_secret_hash, ...partner } = b.partner;
  s.store.partners.insert({ ...partner, ...secretColumns(client_secret_hash) });
  s.store.partners.replaceMappings(parent, b.vertical_mappings);
  if (!moved) {
    for (const a of b.accounts) {
      s.store.accounts.insert(accountRows(a, parent, clock));
      s.store.controls.put({ ...a.controls, account_id: a.account_id });
      putLastStatusWrite(s, a.account_id, a.last_status_write ?? null);
    }
  }
  s.store.clearCaches();
  for (const k of b.idempotency_keys) {
    s.store.idempotency.insertDone({
      ...k,
      parent_account_id: parent,
      dry_run: k.dry_run ? 1 : 0,
      expires_at: clock.deadline(k.expires_at),
    });
  }
}

/** The store: every row, its image a snapshot's database (with the clocks in its meta table). */
export function storePiece(s: Sandbox): StatePiece<StoreImage> {
  return {
    name: 'store',
    holds: s.store,
    durable: true,
    clear: () => s.store.wipe(),
    forget: (scope) => {
      // A swap left under way (see importRows) is finished first, so the reset outlasts a restart.
      finishSwapLeft(s);
      s.store.wipePartner(scope.parent);
    },
    image: (name) => s.store.saveImage(name),
    restore: (image) => s.store.restoreImage(image),
    drop: (image) => s.store.dropImage(image),
    exportPartner: (scope) => atOnce(exportRows(s, scope.parent)),
    exportBySlices: (scope) => exportRows(s, scope.parent),
    check: (bundle) => atOnce(storeProblems(s, bundle)),
    checkBySlices: (bundle) => storeProblems(s, bundle),
    importPartner: (load) => importRows(s, load),
    stage: (load) => stageAccounts(s, load),
  };
}
