/**
 * The swap of a large import's staged accounts (store-staging.ts) finished at once: after a
 * slice the store refused, in the next import's transaction, on a partner's reset, and at
 * start-up for a swap a killed process left under way in a file store (its marker stands).
 */

import { type StagedRows, SWAP_MARKER } from '../../store/staging.js';
import type { Sandbox } from '../sandbox.js';
import { putLastStatusWrite } from '../status-record.js';

/**
 * A swap under way finished in one transaction: the partner's accounts (old ones, or moved
 * already) deleted and every staged row moved in, the marker gone; the partner is the bundle's.
 */
export function finishSwap(s: Sandbox, parent: string, rows: StagedRows): void {
  try {
    s.store.unchecked(() =>
      s.store.tx(() => {
        deleteAccounts(s, s.store.accounts.idsOf(parent));
        if (!rows.moveInto(s.store.db)) throw new Error('the staged rows are gone');
        s.store.meta.delete(SWAP_MARKER);
      }),
    );
  } finally {
    s.store.clearCaches();
  }
}

/** Deletes these accounts with all their rows and records (inside a transaction). */
export function deleteAccounts(s: Sandbox, ids: readonly string[]): void {
  for (const id of ids) putLastStatusWrite(s, id, null);
  s.store.accounts.deleteSome(ids);
}

/**
 * The swap of a large import left under way in a file store (its marker stands: a killed
 * process, or a swap whose slices and finish the store refused) is finished, so that partner
 * is its bundle's, and its staging tables go.
 */
export function finishSwapLeft(s: Sandbox): void {
  const marker = s.store.meta.get(SWAP_MARKER);
  if (marker === undefined) return;
  const { parent, prefix } = JSON.parse(marker) as { parent: string; prefix: string };
  const rows = s.store.stagesLeft().find((r) => r.prefix === prefix);
  if (rows) finishSwap(s, parent, rows);
  else s.store.meta.delete(SWAP_MARKER);
  rows?.drop();
  s.log.info('import_swap_finished', { parent_account_id: parent, finished: rows !== undefined });
}

/** At start-up: the swap left under way is finished (finishSwapLeft); then every staging table left goes. */
export function finishSwapsLeft(s: Sandbox): void {
  finishSwapLeft(s);
  for (const rows of s.store.stagesLeft()) rows.drop();
}
