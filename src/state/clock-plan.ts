/** A partner's clock on a bundle's import, which the store and the clocks pieces both follow. */
import { Clock } from '../core/clock.js';

/** The latest epoch ms a Date holds (a deadline moved past it is kept at it). */
const LAST_EPOCH_MS = 8_640_000_000_000_000;

/**
 * The partner's clock after an import, and how far its deadlines move. Its own offset makes
 * its time the bundle's `clock.now` again when an offset of 0 or more (within the 100-year
 * bound) can; otherwise it is the nearest offset allowed (0 when real time moved on since the
 * export or this sandbox's global clock is ahead: a partner's clock is never behind the
 * global one, which pruning relies on). Every deadline then moves by what remains, so on the
 * partner's clock the time left until each is what it was at the export.
 */
export function clockPlan(s: { clock: Clock }, exportedNow: string, realNow: number) {
  const wantedMs = Date.parse(exportedNow) - realNow - s.clock.offsetMs;
  const ownMs = Math.min(Math.max(wantedMs, 0), Clock.MAX_OFFSET_MS - s.clock.offsetMs);
  const shiftMs = ownMs - wantedMs; // the partner's time after the import minus clock.now
  return {
    ownMs,
    deadline: (ms: number) => Math.min(Math.max(ms + shiftMs, 0), LAST_EPOCH_MS),
  };
}
