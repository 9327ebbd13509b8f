/** Partnership status (endpoints 5 and 6) over the account's page variants. */
import type { StatusData } from '../contract/api/schemas.js';
import {
  aggregateStatus,
  defaultFailingCount,
  planCascade,
  type RequestedStatus,
} from '../domain/aggregate-status.js';
import type { ServiceFaults } from '../scenarios/fault-plan.js';
import { putLastStatusWrite, type Sandbox, type StatusWriteRecord } from '../state/index.js';
import type { AccountRow, VariantRow } from '../store/accounts-table.js';

const asState = (v: VariantRow) => ({ ...v, enabled: v.enabled === 1, archived: v.archived === 1 });
type State = ReturnType<typeof asState>;

/** The control plane's view of a variant (with its ID): sandbox detail. */
function variantDetail(v: State) {
  return {
    variant_id: v.variant_id,
    page_id: v.page_id,
    name: v.name,
    status: v.enabled ? ('active' as const) : ('paused' as const),
  };
}

/** A variant in a partner answer: the fields of spec §2.6 and nothing else (docs/where-the-spec-is-silent.md). */
function statusVariant(v: State): StatusData['variants'][number] {
  return { page_id: v.page_id, name: v.name, status: v.enabled ? 'active' : 'paused' };
}

export function readStatus(s: Sandbox, account: AccountRow): StatusData {
  const variants = s.store.accounts.variants(account.account_id).map(asState);
  return {
    account_id: account.account_id,
    status: aggregateStatus(variants),
    variants: variants.filter((v) => !v.archived).map(statusVariant),
  };
}

export interface StatusWriteResult {
  data: StatusData;
  /** Each variant's outcome, in the order of data.variants (sandbox detail: never in the answer). */
  outcomes: StatusWriteRecord['variants'];
  failed: number;
  total: number;
}

/** A status PUT, as its call names it. */
export interface StatusWrite {
  account: AccountRow;
  requested: RequestedStatus;
  dryRun: boolean;
  /** The request's ID, kept in the record of the latest real write. */
  requestId: string;
  faults: ServiceFaults;
}

export function writeStatus(
  s: Sandbox,
  { account, requested, dryRun, requestId, faults }: StatusWrite,
): StatusWriteResult {
  return s.store.tx(() => {
    const variants = s.store.accounts.variants(account.account_id).map(asState);
    const live = variants.filter((v) => !v.archived);
    // A dry run shows the clean result; the partial-failure drill is for real writes.
    const drill = dryRun || live.length === 0 ? undefined : faults.statusPartialFailure;
    const failing = drill ? (drill.use() ?? defaultFailingCount(live.length)) : 0;
    const plan = planCascade(variants, requested, failing);
    const after = plan.map((p) => ({ ...p.variant, enabled: p.enabled }));
    const outcomes = plan.map((p, i) => ({ ...variantDetail(after[i]!), result: p.result }));
    const data: StatusData = {
      account_id: account.account_id,
      status: aggregateStatus(after),
      variants: after.map(statusVariant),
    };
    if (!dryRun) {
      s.store.accounts.setVariants(
        plan.map((p) => ({ variant_id: p.variant.variant_id, enabled: p.enabled, archived: false })),
      );
      const record: StatusWriteRecord = {
        request_id: requestId,
        at: s.clock.iso(account.parent_account_id),
        requested,
        status: data.status,
        variants: outcomes,
      };
      putLastStatusWrite(s, account.account_id, record);
    }
    return {
      data,
      outcomes,
      failed: plan.filter((p) => p.result === 'failed').length,
      total: plan.length,
    };
  });
}
