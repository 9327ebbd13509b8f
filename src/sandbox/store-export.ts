/** The store's part of a partner's bundle: its rows as the bundle carries them, by slices. */
import type { BundleData } from '../contract/control/bundle.js';
import type { Sandbox } from '../core/state.js';
import type { BundlePart } from '../core/state-registry.js';
import { stretch } from '../core/turns.js';
import { lastStatusWrite } from '../services/status.js';
import type { AccountRow } from '../store/accounts-table.js';
import { secretOf } from '../store/partners-table.js';

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
export function* exportRows(s: Sandbox, parent: string): Generator<void, BundlePart> {
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
    idempotency_keys: yield* storedAnswers(s, parent),
  };
}

/** Stored answers read a page at a time: a page holds at most a few MiB of a partner's 26. */
const ANSWERS_PAGE = 8;

/** The partner's stored answers as its bundle carries them, read by pages, pausing every stretch. */
function* storedAnswers(s: Sandbox, parent: string): Generator<void, BundleData['idempotency_keys']> {
  const out: BundleData['idempotency_keys'] = [];
  const time = stretch();
  for (let after = ''; ; ) {
    const page = s.store.idempotency.doneOf(parent, after, ANSWERS_PAGE);
    for (const k of page) {
      out.push({
        key: k.key,
        operation: k.operation,
        fingerprint: k.fingerprint,
        dry_run: k.dry_run === 1,
        status: k.status ?? 200,
        body: k.body ?? '',
        expires_at: k.expires_at,
      });
    }
    if (page.length < ANSWERS_PAGE) return out;
    after = page[page.length - 1]!.key;
    if (time.due()) {
      yield;
      time.restart();
    }
  }
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
