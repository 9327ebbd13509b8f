/**
 * The store's part of a bundle loaded: the partner's rows replaced by the bundle's in the
 * registry's one transaction (the clocks, their own piece, in the same one).
 */
import type { BundleData } from '../../contract/control/bundle.js';
import { storedControls } from '../../store/controls-table.js';
import { secretColumns } from '../../store/partners-table.js';
import type { StagedAccount } from '../../store/staging.js';
import { clockPlan } from '../clock-plan.js';
import type { PartnerImport } from '../registry.js';
import type { Sandbox } from '../sandbox.js';
import { lastStatusWriteMeta, putLastStatusWrite } from '../status-record.js';
import { finishSwapLeft } from './store-swap.js';

type BundleAccount = BundleData['accounts'][number];

/** One bundle account's rows as the store keeps them (its deadline moved by the clock plan). */
export function accountRows(
  a: BundleAccount,
  parent: string,
  clock: ReturnType<typeof clockPlan>,
): StagedAccount {
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
 * Replaces the partner's rows by the bundle's, inside the registry's transaction (but its
 * accounts, when a large import staged them: they move in by slices after it). Deadlines
 * are kept relative to the partner's clock (clockPlan); historical times (created_at,
 * updated_at) are kept as they are.
 */
export function importRows(s: Sandbox, { scope, bundle: b, realNow, staged }: PartnerImport): void {
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
