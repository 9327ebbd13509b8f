/**
 * Partnership status (spec §3): the aggregate is derived from the non-archived variants,
 * never stored beside them; a status PUT cascades to every non-archived variant.
 */

export type AggregateStatus = 'active' | 'paused' | 'mixed';
export type RequestedStatus = 'active' | 'paused';

export interface VariantState {
  variant_id: string;
  enabled: boolean;
  archived: boolean;
}

/** Spec §3, first table: active if all enabled, paused if all disabled or none exist, else mixed. */
export function aggregateStatus(variants: readonly VariantState[]): AggregateStatus {
  const live = variants.filter((v) => !v.archived);
  const enabled = live.filter((v) => v.enabled).length;
  if (live.length === 0 || enabled === 0) return 'paused';
  return enabled === live.length ? 'active' : 'mixed';
}

export type VariantOutcome = 'updated' | 'unchanged' | 'failed';

export interface CascadePlan<V extends VariantState> {
  variant: V;
  enabled: boolean;
  result: VariantOutcome;
}

/**
 * The cascade of a status PUT over the non-archived variants (rule 6: no merge). With
 * `failing` > 0 (the status-partial-failure scenario) the first `failing` variants in
 * their stable order fail (docs/fault-injection.md): a failed update changes nothing, so a failed
 * variant keeps its old state (it never flips). The aggregate is derived as always, so it
 * is mixed when some failed and some updated (2+ variants started in the other state);
 * when every variant failed, nothing changed. Same input, same outcome.
 */
export function planCascade<V extends VariantState>(
  variants: readonly V[],
  requested: RequestedStatus,
  failing = 0,
): CascadePlan<V>[] {
  const target = requested === 'active';
  const live = variants.filter((v) => !v.archived);
  const failCount = Math.min(failing, live.length);
  return live.map((variant, index) => {
    if (index < failCount) return { variant, enabled: variant.enabled, result: 'failed' as const };
    return { variant, enabled: target, result: variant.enabled === target ? 'unchanged' : 'updated' };
  });
}

/** docs/fault-injection.md: how many variants fail by default: half, at least 1. */
export function defaultFailingCount(liveVariants: number): number {
  return Math.max(1, Math.floor(liveVariants / 2));
}
