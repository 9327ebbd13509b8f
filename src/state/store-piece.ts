/**
 * The store as a piece of the sandbox's state (state/registry.ts). A partner's part of a
 * bundle: its credentials, mapping, accounts with everything under them and completed
 * idempotency keys. An import checks them against the bundle itself and against this sandbox
 * (IDs held by another partner here) before anything is written, then replaces the partner in
 * the registry's one transaction (the clocks, their own piece, in the same one). Each part in
 * its file: the export (store-export.ts), the check (store-check.ts, stored-answers.ts), the
 * load (store-import.ts), a large import's staging (store-staging.ts) and its swap
 * (store-swap.ts).
 */

import { atOnce } from '../core/turns.js';
import type { StoreImage } from '../store/sqlite-store.js';
import { storeProblems } from './bundles/store-check.js';
import { exportRows, writeRows } from './bundles/store-export.js';
import { importRows } from './bundles/store-import.js';
import { stageAccounts } from './bundles/store-staging.js';
import { finishSwapLeft } from './bundles/store-swap.js';
import type { StatePiece } from './registry.js';
import type { Sandbox } from './sandbox.js';

/** The store: every row, its image a snapshot's database (with the clocks in its meta table). */
export function storePiece(s: Sandbox): StatePiece<StoreImage> {
  return {
    name: 'store',
    holds: s.store,
    durable: true,
    clear: () => s.store.wipe(),
    forget: (scope) => {
      // A swap left under way (see store-import.ts) is finished first, so the reset outlasts a restart.
      finishSwapLeft(s);
      s.store.wipePartner(scope.parent);
    },
    image: (name) => s.store.saveImage(name),
    restore: (image) => s.store.restoreImage(image),
    drop: (image) => s.store.dropImage(image),
    exportPartner: (scope) => atOnce(exportRows(s, scope.parent)),
    exportBySlices: (scope) => writeRows(s, scope.parent),
    check: (bundle) => atOnce(storeProblems(s, bundle)),
    checkBySlices: (bundle) => storeProblems(s, bundle),
    importPartner: (load) => importRows(s, load),
    stage: (load) => stageAccounts(s, load),
  };
}
