/**
 * A bundle's export (docs/parallel-tests.md): one partner's whole state as one JSON file, what
 * a failed CI job uploads: each piece of the sandbox's state writes its part
 * (core/state-registry.ts). Its import and checks are in services/bundles.ts.
 */
import {
  BUNDLE_KIND,
  BUNDLE_LIMIT_BYTES,
  BUNDLE_VERSION,
  Bundle,
  type BundleData,
} from '../contract/control/bundle.js';
import type { Sandbox } from '../core/state.js';
import { jsonTexts, nextTurn } from '../core/turns.js';
import { partnerNotFound } from './lookup.js';

/** The bundle of one partner, as `GET /__sandbox/partners/{parent}/bundle` answers it. */
export function exportBundle(s: Sandbox, parent: string): BundleData {
  if (!s.store.partners.byParent(parent)) throw partnerNotFound(parent);
  const parts: Record<string, unknown> = {
    kind: BUNDLE_KIND,
    version: BUNDLE_VERSION,
    exported_at: s.clock.iso(),
    ...s.state.exportPartner(parent),
  };
  // In the format's order of fields, whichever piece wrote each.
  const bundle = Object.fromEntries(Object.keys(Bundle.shape).map((k) => [k, parts[k]])) as BundleData;
  return withinImportLimit(bundle);
}

/**
 * `GET /__sandbox/partners/{parent}/bundle`'s answer as JSON text, exported by turns: its
 * accounts read and written out a slice at a time, other partners' calls served in between
 * (a partner of 18,000 accounts held them about a second), while its own calls and the control
 * plane wait (core/swap-gate.ts, as for an import, and one at a time with imports): the bundle
 * is the partner at one moment.
 */
export async function exportBundleText(s: Sandbox, parent: string): Promise<string> {
  if (!s.store.partners.byParent(parent)) throw partnerNotFound(parent);
  return s.gate.oneImport(async () => {
    const open = await s.gate.close(parent);
    try {
      // Gone while it waited (a reset, a restore).
      if (!s.store.partners.byParent(parent)) throw partnerNotFound(parent);
      const parts: Record<string, unknown> = {
        kind: BUNDLE_KIND,
        version: BUNDLE_VERSION,
        exported_at: s.clock.iso(),
        ...(await s.state.exportInTurns(parent, nextTurn)),
      };
      return await bundleText(
        Object.fromEntries(Object.keys(Bundle.shape).map((k) => [k, parts[k]])) as BundleData,
      );
    } finally {
      open();
    }
  });
}

/**
 * The bundle as JSON text, its accounts and journal written out by turns; within the import's
 * limit as withinImportLimit keeps it (the same text JSON.stringify gives the bundle it returns:
 * test/bundle-swap.test.ts compares the two).
 */
export async function bundleText(bundle: BundleData): Promise<string> {
  const accounts = await jsonTexts(bundle.accounts);
  const journal = await jsonTexts(bundle.journal);
  // Each list stands in the rest as a string no value can hold (JSON escapes its NULs).
  const mark = (name: string) => `\u0000${name}-${Math.random().toString(36).slice(2)}\u0000`;
  const marks = { accounts: mark('accounts'), journal: mark('journal') };
  const restOf = (left?: number) =>
    JSON.stringify({
      ...bundle,
      accounts: marks.accounts,
      journal: marks.journal,
      ...(left === undefined ? {} : { journal_left_out: left }),
    });
  const bytes = (texts: readonly string[]) => texts.reduce((n, t) => n + Buffer.byteLength(t) + 1, 0);
  let room = BUNDLE_LIMIT_BYTES - SLACK_BYTES - Buffer.byteLength(restOf()) - bytes(accounts);
  let kept = 0;
  for (const entry of journal) {
    room -= Buffer.byteLength(entry) + 1;
    if (room < 0) break;
    kept++;
  }
  const rest = restOf(kept === journal.length ? undefined : journal.length - kept);
  return rest
    .replace(JSON.stringify(marks.accounts), () => `[${accounts.join(',')}]`)
    .replace(JSON.stringify(marks.journal), () => `[${journal.slice(0, kept).join(',')}]`);
}

/** Room left for the journal's commas, the new field and the answer's own bytes. */
const SLACK_BYTES = 64 * 1024;

/**
 * A bundle an import would refuse as too large (a thousand entries of long headers and 16 KiB
 * bodies, escaped, pass 32 MiB) keeps its newest journal entries that fit, and says how many
 * older ones it left out: an export always imports.
 */
export function withinImportLimit(bundle: BundleData): BundleData {
  const { journal, ...rest } = bundle;
  let room = BUNDLE_LIMIT_BYTES - SLACK_BYTES - Buffer.byteLength(JSON.stringify(rest));
  let kept = 0;
  for (const entry of journal) {
    room -= Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (room < 0) break;
    kept++;
  }
  if (kept === journal.length) return bundle;
  return { ...bundle, journal: journal.slice(0, kept), journal_left_out: journal.length - kept };
}
