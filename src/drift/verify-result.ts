/**
 * What `verify` answers (docs/drift.md): each entry's outcome and differences, and the totals.
 *
 * The JS API spells its fields in camelCase, as the rest of the package does (`notReplayed`,
 * `parentAccountId`); the JSON report (`--report`, verify-report.ts) spells the same fields in
 * snake_case (`not_replayed`, `parent_account_id`), as the API's JSON and the control plane's do.
 * One field, two spellings, each the convention of where it is read (docs/drift.md "From code").
 */
import type { Difference } from './compare.js';

export interface VerifyOptions {
  /** A running sandbox to replay against (a partner is created there); default: one started here, in memory. */
  url?: string;
  /** The admin token of the sandbox at `url`, when its control plane is protected. */
  adminToken?: string;
  /** Compare `message` too. */
  messages?: boolean;
}

export type Outcome = 'same' | 'differ' | 'not replayed' | 'ignored';

export interface EntryResult {
  /** Its index in the HAR's log.entries. */
  index: number;
  method: string;
  /** The recorded URL's path and query (the API path when it is one). */
  path: string;
  outcome: Outcome;
  differences: Difference[];
  /** Why an entry was not replayed, or ignored. */
  reason?: string;
  /** Milliseconds the replayed request took. */
  ms?: number;
}

export interface VerifyTotals {
  entries: number;
  same: number;
  differ: number;
  /** `not_replayed` in the JSON report. */
  notReplayed: number;
  ignored: number;
}

export interface VerifyResult {
  file: string;
  /** The sandbox replayed against. */
  url: string;
  /** The partner the replay created there (`parent_account_id` in the JSON report). */
  parentAccountId: string;
  entries: EntryResult[];
  totals: VerifyTotals;
  /** True when nothing differs (exit 0). */
  ok: boolean;
}

/** The totals of a list of entry results. */
export function totalsOf(results: readonly EntryResult[]): VerifyTotals {
  const count = (o: Outcome) => results.filter((r) => r.outcome === o).length;
  return {
    entries: results.length,
    same: count('same'),
    differ: count('differ'),
    notReplayed: count('not replayed'),
    ignored: count('ignored'),
  };
}
