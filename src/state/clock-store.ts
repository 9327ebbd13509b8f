/**
 * The clocks as the store keeps them (docs/parallel-tests.md): the global and per-partner
 * offsets saved in the store's meta table, so they survive a restart, and moved together
 * with the store work that goes with them.
 */

import type { Clock } from '../core/clock.js';
import type { Store } from '../store/sqlite-store.js';

export const CLOCK_KEY = 'clock_offset_ms';
export const PARTNER_CLOCK_PREFIX = 'clock_offset_ms:';

/** What the clock functions need of a sandbox: its clock and its store. */
export interface ClockedStore {
  clock: Clock;
  store: Store;
}

/**
 * Moves the clocks (`change`) and saves them, in one transaction with `write` (the store
 * work that goes with it). If the store refuses it (a full disk), the clocks are put back
 * as they were, so nothing is half-done: not the rows, not the clocks.
 */
export function changeClocks<T>(s: ClockedStore, change: () => void, write: () => T): T {
  const offset = s.clock.offsetMs;
  const partners = new Map(s.clock.partnerOffsets());
  try {
    return s.store.tx(() => {
      const out = write();
      change();
      saveClock(s);
      return out;
    });
  } catch (err) {
    s.clock.reset(offset);
    for (const [parent, ms] of partners) s.clock.setPartner(parent, ms);
    throw err;
  }
}

/** Writes the clocks to the store (global and per-partner offsets), so they survive a restart. */
export function saveClock(s: ClockedStore): void {
  s.store.tx(() => {
    s.store.meta.set(CLOCK_KEY, String(s.clock.offsetMs));
    for (const row of s.store.meta.prefixed(PARTNER_CLOCK_PREFIX)) s.store.meta.delete(row.key);
    for (const [parent, ms] of s.clock.partnerOffsets()) {
      s.store.meta.set(`${PARTNER_CLOCK_PREFIX}${parent}`, String(ms));
    }
  });
}
