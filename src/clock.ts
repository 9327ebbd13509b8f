/**
 * The sandbox clock: real time plus an offset that the control plane can advance.
 * Token expiry, the idempotency window and auth propagation all read it.
 */
export class Clock {
  /**
   * How far ahead the clock may be moved in all: 100 years. Far past any token, key or
   * propagation window, and far inside the Date range (a stored offset beyond it would make
   * every timestamp invalid).
   */
  static readonly MAX_OFFSET_MS = 100 * 365 * 86_400_000;
  #offsetMs: number;

  constructor(offsetMs = 0) {
    // A durable store may hold an offset from before the bound: keep it inside.
    this.#offsetMs = Number.isFinite(offsetMs) ? Math.min(Math.max(offsetMs, 0), Clock.MAX_OFFSET_MS) : 0;
  }

  /** The seconds the clock can still be advanced by. */
  get headroomSeconds(): number {
    return Math.floor((Clock.MAX_OFFSET_MS - this.#offsetMs) / 1000);
  }

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  advance(seconds: number): void {
    this.#offsetMs += Math.round(seconds * 1000);
  }

  reset(offsetMs = 0): void {
    this.#offsetMs = offsetMs;
  }
}
