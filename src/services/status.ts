/** Partnership status (endpoints 5 and 6) over the account's page variants. */
import type { StatusData } from '../contract/schemas.js';
import {
  aggregateStatus,
  defaultFailingCount,
  planCascade,
  type RequestedStatus,
  type VariantOutcome,
} from '../domain/status.js';
import type { Sandbox } from '../sandbox.js';
import type { ScenarioContext } from '../scenarios/context.js';
import type { AccountRow, VariantRow } from '../store/accounts.js';

const asState = (v: VariantRow) => ({ ...v, enabled: v.enabled === 1, archived: v.archived === 1 });
type State = ReturnType<typeof asState>;

function variantView(v: State, result?: VariantOutcome) {
  const view = {
    variant_id: v.variant_id,
    page_id: v.page_id,
    name: v.name,
    status: v.enabled ? ('active' as const) : ('paused' as const),
  };
  return result ? { ...view, result } : view;
}

export function readStatus(s: Sandbox, account: AccountRow): StatusData {
  const variants = s.store.accounts.variants(account.account_id).map(asState);
  return {
    account_id: account.account_id,
    status: aggregateStatus(variants),
    variants: variants.filter((v) => !v.archived).map((v) => variantView(v)),
  };
}

export interface StatusWriteResult {
  data: StatusData;
  failed: number;
  total: number;
}

export function writeStatus(
  s: Sandbox,
  scenarios: ScenarioContext,
  account: AccountRow,
  requested: RequestedStatus,
  dryRun: boolean,
): StatusWriteResult {
  return s.store.tx(() => {
    const variants = s.store.accounts.variants(account.account_id).map(asState);
    const live = variants.filter((v) => !v.archived);
    // A dry run shows the clean result; the partial-failure drill is for real writes.
    const partial = dryRun || live.length === 0 ? undefined : scenarios.take('status-partial-failure');
    const failing = partial ? (partial.value ?? defaultFailingCount(live.length)) : 0;
    const plan = planCascade(variants, requested, failing);
    if (!dryRun) {
      s.store.accounts.setVariants(
        plan.map((p) => ({ variant_id: p.variant.variant_id, enabled: p.enabled, archived: false })),
      );
    }
    const after = plan.map((p) => ({ ...p.variant, enabled: p.enabled }));
    return {
      data: {
        account_id: account.account_id,
        status: aggregateStatus(after),
        variants: plan.map((p, i) => variantView(after[i]!, p.result)),
      },
      failed: plan.filter((p) => p.result === 'failed').length,
      total: plan.length,
    };
  });
}
