/**
 * A bundle's export (docs/parallel-tests.md): one partner's whole state as one JSON file, what
 * a failed CI job uploads: each piece of the sandbox's state writes its part
 * (core/state-registry.ts). Its import and checks are in services/bundles.ts.
 */
import { BUNDLE_KIND, BUNDLE_VERSION, Bundle, type BundleData } from '../contract/bundle.js';
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
  return Object.fromEntries(Object.keys(Bundle.shape).map((k) => [k, parts[k]])) as BundleData;
}
