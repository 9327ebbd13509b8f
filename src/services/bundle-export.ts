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

/** Room left for the journal's commas, the new field and the answer's own bytes. */
const SLACK_BYTES = 64 * 1024;

/**
 * A bundle an import would refuse as too large (a thousand entries of long headers and 16 KiB
 * bodies, escaped, pass 32 MiB) keeps its newest journal entries that fit, and says how many
 * older ones it left out: an export always imports.
 */
function withinImportLimit(bundle: BundleData): BundleData {
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
