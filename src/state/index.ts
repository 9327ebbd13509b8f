/**
 * The sandbox's state, its public face: what the rest of the app (services, http, the control
 * plane, the entry points) takes from src/state/. The room holds the one object the layers
 * share (sandbox.ts, types only), its creation (create-sandbox.ts), the registry of the
 * state's pieces (registry.ts) and the pieces (pieces.ts, store-piece.ts, the clocks'
 * store rows in clock-store.ts), the saved snapshots (named-snapshots.ts) and bundles
 * (bundles/: export, import, the swap gate, the large import's staging and swap). Files
 * outside the room import this module, never a file of the room (test/house/layers.test.ts).
 */

export {
  bundleText,
  exportBundle,
  exportBundlePieces,
  piecesStream,
  withinImportLimit,
} from './bundles/bundle-export.js';
export { ACCOUNTS_PER_TURN, importBundleInTurns } from './bundles/bundle-import.js';
export { SwapGate } from './bundles/swap-gate.js';
export { changeClocks } from './clock-store.js';
export { createSandbox, jsonLogger } from './create-sandbox.js';
export { MAX_SNAPSHOTS } from './named-snapshots.js';
export type { StatePiece } from './registry.js';
export type { Logger, Sandbox, Snapshots } from './sandbox.js';
export { lastStatusWrite, putLastStatusWrite, type StatusWriteRecord } from './status-record.js';
