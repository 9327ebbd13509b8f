/**
 * The replay's clock (docs/drift.md, "Clock lined up"): before each request the partner's clock
 * is advanced so that the time since the first request is the recording's.
 *
 * The control plane moves a clock by at most 10 years a call, and 100 years in all
 * (contract/control/control-schemas.ts). A longer gap (a damaged date) moves it by 10 years, which every
 * expiry and window has passed anyway; once the 100 years are used, the clock stays there and
 * the replay goes on, every window long past.
 */
import { type ControlClient, ControlPlaneError } from '../client/control-client.js';
import { MAX_OFFSET_SECONDS } from '../contract/control/control-schemas.js';
import { type ReadEntry, RecordingError } from './har.js';
import { describe } from './partner.js';

const MAX_STEP_SECONDS = 10 * 365 * 86_400;

export class ReplayClock {
  /** Epoch ms of the replay's first request, 0 before it. */
  #start = 0;
  /** The seconds the recording's time is ahead of the replay's, already accounted for. */
  #advanced = 0;
  /** The seconds the partner's clock can still move (read at the first advance). */
  #headroom: number | undefined;

  constructor(
    readonly control: ControlClient,
    readonly parent: string,
    /** The recording's first API entry: time 0. */
    readonly first: ReadEntry,
  ) {}

  /** Advances the partner's clock so that the replay's time since its first request is the recording's. */
  async align(entry: ReadEntry): Promise<void> {
    if (this.#start === 0) this.#start = Date.now();
    const target = (entry.startedMs - this.first.startedMs) / 1000;
    const elapsed = (Date.now() - this.#start) / 1000 + this.#advanced;
    const gap = Math.round((target - elapsed) * 1000) / 1000;
    if (gap < 0.001) return;
    this.#advanced += gap;
    try {
      this.#headroom ??= await this.#readHeadroom();
      const step = Math.floor(Math.min(gap, MAX_STEP_SECONDS, this.#headroom) * 1000) / 1000;
      if (step < 0.001) return;
      const state = await this.control.partners.clock.advance(this.parent, step);
      this.#headroom = MAX_OFFSET_SECONDS - state.offset_seconds - state.global_offset_seconds;
    } catch (err) {
      // 400: the clock is as far ahead as it goes (the global clock used the rest meanwhile).
      if (!(err instanceof ControlPlaneError) || err.status !== 400) {
        throw new RecordingError(
          `cannot advance the replay's clock at ${this.control.url}: ${describe(err)}`,
        );
      }
      this.#headroom = 0;
    }
  }

  async #readHeadroom(): Promise<number> {
    const state = await this.control.partners.clock.get(this.parent);
    return MAX_OFFSET_SECONDS - state.offset_seconds - state.global_offset_seconds;
  }
}
