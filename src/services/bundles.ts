/**
 * Bundles (docs/parallel-tests.md): one partner's whole state as one JSON file, what a failed CI
 * job uploads (exported by services/bundle-export.ts), and loading one into another sandbox (the partner is replaced if it
 * exists). A bundle is checked in full before anything is written (schema, version, its
 * own consistency, IDs held by another partner here), then loaded in one transaction: a
 * broken or foreign file is a 400 naming the field, and nothing is loaded.
 */

import type { z } from 'zod';
import {
  BUNDLE_SECRET_ALGORITHMS,
  BUNDLE_VERSION,
  BUNDLE_VERSIONS_READ,
  Bundle,
  type BundleData,
  BundleV1,
} from '../contract/bundle.js';
import { type FieldIssue, validationError } from '../contract/errors.js';
import { issuesToFields } from '../contract/issues.js';
import { operations } from '../contract/operations.js';
import { Clock } from '../core/clock.js';
import { changeClocks } from '../core/clock-store.js';
import type { Sandbox } from '../core/state.js';
import { canonical } from '../domain/canonical-json.js';
import { routePattern } from '../domain/route-pattern.js';
import { hashSecretSync, SECRET_ALGORITHMS, type SecretAlgorithm } from '../domain/secrets.js';
import { builtIn, parseValue } from '../scenarios/catalogue.js';
import { chaosScenarioProblem } from '../scenarios/chaos.js';
import { secretColumns } from '../store/partners.js';
import { putLastStatusWrite } from './status.js';

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

/** Checks a parsed bundle against itself and against this sandbox: the problems, by field. */
function problems(s: Sandbox, b: BundleData): FieldIssue[] {
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
  const accountIds = new Set(b.accounts.map((a) => a.account_id));
  const listOwners = s.store.controls.listOwners(b.accounts.map((a) => a.controls.list_id));
  const ownerOf = (accountId: string | undefined) =>
    accountId === undefined ? undefined : s.store.accounts.byId(accountId)?.parent_account_id;
  b.accounts.forEach((a, i) => {
    const at = `accounts[${i}]`;
    unique('account', a.account_id, `${at}.account_id`);
    unique('external', a.external_account_id, `${at}.external_account_id`);
    if (foreign(ownerOf(a.account_id)))
      out.push({ field: `${at}.account_id`, message: 'belongs to another partner in this sandbox' });
    const pages = new Set(a.pages.map((p) => p.page_id));
    a.pages.forEach((p, j) => {
      unique('page', p.page_id, `${at}.pages[${j}].page_id`);
      if (foreign(ownerOf(s.store.accounts.page(p.page_id)?.account_id)))
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
      if (foreign(ownerOf(owner)))
        out.push({ field: `${where}.${kind}_id`, message: 'belongs to another partner in this sandbox' });
    };
    for (const [j, l] of a.layouts.entries()) {
      onPage(
        'layout',
        l.layout_id,
        l.page_id,
        `${at}.layouts[${j}]`,
        s.store.accounts.layout(l.layout_id)?.account_id,
      );
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
      onPage(
        'variant',
        v.variant_id,
        v.page_id,
        `${at}.variants[${j}]`,
        s.store.accounts.variant(v.variant_id)?.account_id,
      );
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
  });
  const layoutsOf = new Map(
    b.accounts.map((a) => [a.account_id, new Set(a.layouts.map((l) => l.layout_id))]),
  );
  b.idempotency_keys.forEach((k, i) => {
    unique('key', k.key, `idempotency_keys[${i}].key`);
    out.push(...storedAnswerProblems(k, `idempotency_keys[${i}]`, layoutsOf));
  });
  b.armed.forEach((a, i) => {
    if (a.account_id !== undefined && !accountIds.has(a.account_id))
      out.push({ field: `armed[${i}].account_id`, message: 'is not an account of this bundle' });
    a.effects.forEach((e, j) => {
      const def = builtIn(e.name);
      if (!def)
        out.push({ field: `armed[${i}].effects[${j}].name`, message: `unknown scenario "${e.name}"` });
      else {
        const { error } = parseValue(def, e.value);
        if (error) out.push({ field: `armed[${i}].effects[${j}].value`, message: error });
      }
    });
  });
  b.chaos?.scenarios.forEach((name, i) => {
    const problem = chaosScenarioProblem(name, s.presets);
    if (problem) out.push({ field: `chaos.scenarios[${i}]`, message: problem });
  });
  b.journal.forEach((e, i) => {
    if (e.parent_account_id !== null && e.parent_account_id !== parent)
      out.push({
        field: `journal[${i}].parent_account_id`,
        message: `is not the bundle's partner ${parent}`,
      });
    // An ID none of the bundle's accounts has is allowed for the partner's own calls (a dry-run
    // register names an account never stored), never one of another partner's accounts.
    if (
      e.account_id !== null &&
      !accountIds.has(e.account_id) &&
      (e.parent_account_id !== parent || foreign(ownerOf(e.account_id)))
    )
      out.push({ field: `journal[${i}].account_id`, message: 'is not an account of this bundle' });
  });
  if (b.journal.length > s.journal.max)
    out.push({
      field: 'journal',
      message: `holds ${b.journal.length} entries; this sandbox's journal keeps ${s.journal.max} (SANDBOX_JOURNAL_MAX)`,
    });
  return out;
}

/** The latest epoch ms a Date holds (a deadline moved past it is kept at it). */
const LAST_EPOCH_MS = 8_640_000_000_000_000;

/**
 * The partner's clock after an import, and how far its deadlines move. Its own offset makes
 * its time the bundle's `clock.now` again when an offset of 0 or more (within the 100-year
 * bound) can; otherwise it is the nearest offset allowed (0 when real time moved on since the
 * export or this sandbox's global clock is ahead: a partner's clock is never behind the
 * global one, which pruning relies on). Every deadline then moves by what remains, so on the
 * partner's clock the time left until each is what it was at the export.
 */
function clockPlan(s: Sandbox, exportedNow: string, realNow: number) {
  const wantedMs = Date.parse(exportedNow) - realNow - s.clock.offsetMs;
  const ownMs = Math.min(Math.max(wantedMs, 0), Clock.MAX_OFFSET_MS - s.clock.offsetMs);
  const shiftMs = ownMs - wantedMs; // the partner's time after the import minus clock.now
  return {
    ownMs,
    deadline: (ms: number) => Math.min(Math.max(ms + shiftMs, 0), LAST_EPOCH_MS),
  };
}

/**
 * A bundle of any version this sandbox reads, as the current version: version 1 (an earlier
 * export) carries the client_secret in clear, which is hashed here and kept only so.
 */
function parseBundle(json: unknown): BundleData {
  const v1 = typeof json === 'object' && json !== null && (json as { version?: unknown }).version === 1;
  const parsed = (v1 ? BundleV1 : Bundle).safeParse(json);
  if (!parsed.success) throw validationError(issuesToFields(parsed.error.issues, '', 'bundle'));
  if (!('client_secret' in parsed.data.partner)) return parsed.data as BundleData;
  const { client_secret, ...partner } = parsed.data.partner;
  return {
    ...parsed.data,
    version: BUNDLE_VERSION,
    partner: { ...partner, client_secret_hash: hashSecretSync(client_secret) },
  };
}

/**
 * Loads a bundle (already parsed JSON): validated in full first, then written in one
 * transaction; the partner's clock, armed scenarios and journal entries follow. Deadlines
 * are kept relative to the partner's clock (clockPlan); historical times (created_at,
 * updated_at, armed_at, the journal's) are kept as they are.
 */
export function importBundle(s: Sandbox, json: unknown) {
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const version = (json as Record<string, unknown>).version;
    if (!BUNDLE_VERSIONS_READ.includes(version as number)) {
      throw validationError([
        {
          field: 'version',
          message: `must be ${BUNDLE_VERSION} (this sandbox writes bundle version ${BUNDLE_VERSION} and reads versions ${BUNDLE_VERSIONS_READ.join(' and ')}; got ${JSON.stringify(version ?? null).slice(0, 40)})`,
        },
      ]);
    }
  }
  const b = parseBundle(json);
  const found = problems(s, b);
  if (found.length) throw validationError(found.slice(0, 20));

  const parent = b.partner.parent_account_id;
  const previous = s.store.partners.byParent(parent);
  const before = new Set(previous ? s.store.accounts.idsOf(parent) : []);
  const clock = clockPlan(s, b.clock.now, Date.now());
  // One transaction with the partner's clock: a store that refuses it (a full disk) leaves all as it was.
  const write = () => {
    // The old accounts' records go with them; a bundle's account without one has none.
    for (const id of before) putLastStatusWrite(s, id, null);
    if (previous) {
      s.store.idempotency.deleteOf(parent);
      s.store.partners.delete(parent); // its mapping, tokens and accounts cascade
    }
    const { client_secret_hash, ...partner } = b.partner;
    s.store.partners.insert({ ...partner, ...secretColumns(client_secret_hash) });
    s.store.partners.replaceMappings(parent, b.vertical_mappings);
    for (const a of b.accounts) {
      const { pages, layouts, variants, controls, last_status_write, ...account } = a;
      const account_id = a.account_id;
      s.store.accounts.insert({
        account: { ...account, auth_ready_at: clock.deadline(a.auth_ready_at), parent_account_id: parent },
        pages: pages.map((p) => ({ ...p, account_id })),
        layouts: layouts.map((l) => ({ ...l, account_id })),
        variants: variants.map((v) => ({
          ...v,
          account_id,
          enabled: v.enabled ? 1 : 0,
          archived: v.archived ? 1 : 0,
        })),
      });
      s.store.controls.put({ ...controls, account_id });
      putLastStatusWrite(s, account_id, last_status_write ?? null);
    }
    for (const k of b.idempotency_keys) {
      s.store.idempotency.insertDone({
        ...k,
        parent_account_id: parent,
        dry_run: k.dry_run ? 1 : 0,
        expires_at: clock.deadline(k.expires_at),
      });
    }
  };
  try {
    changeClocks(s, () => s.clock.setPartner(parent, clock.ownMs), write);
  } finally {
    s.store.clearCaches();
  }
  s.markWiped(parent);
  const accounts = new Set([...before, ...b.accounts.map((a) => a.account_id)]);
  s.armed.removeWhere(
    (a) => a.parent_account_id === parent || (a.account_id !== undefined && accounts.has(a.account_id)),
  );
  // As the control plane arms them: for the parent, or for one account.
  for (const a of b.armed) s.armed.arm(a.account_id !== undefined ? a : { ...a, parent_account_id: parent });
  // The partner's own profile, where its sequence was; none: its sequence starts over.
  s.chaos.forget(parent);
  if (b.chaos) {
    const { call, owed, ...settings } = b.chaos;
    s.chaos.set(settings, s.clock.iso(parent), parent, { [parent]: { calls: call, owed } });
  }
  s.journal.removePartner(parent, accounts);
  for (let i = b.journal.length - 1; i >= 0; i--) s.journal.addImported(b.journal[i]!);
  s.diagnostics.forget(accounts, previous?.client_id);
  return {
    parent_account_id: parent,
    replaced: previous !== undefined,
    accounts: b.accounts.length,
    idempotency_keys: b.idempotency_keys.length,
    armed: b.armed.length,
    journal: b.journal.length,
  };
}
