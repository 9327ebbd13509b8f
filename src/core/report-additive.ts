/**
 * The report's resilience part for the additive-changes scenario (docs/journal-and-report.md):
 * which calls got an answer as a compatible release could send it (by header, armed or chaos),
 * and whether the client repeated them. A client that takes such an answer as is moves on; one
 * that breaks on an unknown field, another order or an unknown header typically calls again.
 * `recovered` counts the calls taken as is (not repeated).
 */
import type { JournalEntry } from './journal.js';

export const ADDITIVE = 'additive-changes';

/** Its entry in the report's resilience part (report.ts's Resilience, of which it is one). */
export interface AdditivePart {
  scenario: typeof ADDITIVE;
  injected: number;
  /** The calls taken as is: not repeated by the next call. */
  recovered: number;
  recovered_by_http_client: 0;
  outcome: 'passed' | 'failed';
  evidence: string[];
}

const got = (e: JournalEntry) =>
  e.scenarios_applied.some((s) => s === ADDITIVE || s.startsWith(`${ADDITIVE}=`));

/** The part for the calls that got additive changes (oldest first in `log`), or undefined when none did. */
export function additiveResilience(log: readonly JournalEntry[]): AdditivePart | undefined {
  const r: AdditivePart = {
    scenario: ADDITIVE,
    injected: 0,
    recovered: 0,
    recovered_by_http_client: 0,
    outcome: 'passed',
    evidence: [],
  };
  log.forEach((e, i) => {
    if (!got(e)) return;
    r.injected++;
    const what = `#${e.id} ${e.method} ${e.path} -> ${e.status} (request_id ${e.request_id})`;
    const next = log[i + 1];
    if (next && next.method === e.method && next.path === e.path) {
      r.evidence.push(
        `${what}: repeated by the next call (request_id ${next.request_id}): does the client break on unknown fields, another order or an unknown header?`,
      );
    } else {
      r.recovered++;
      r.evidence.push(`${what}: taken as is${next ? `, the next call was ${next.method} ${next.path}` : ''}`);
    }
  });
  if (!r.injected) return undefined;
  r.outcome = r.recovered < r.injected ? 'failed' : 'passed';
  return r;
}
