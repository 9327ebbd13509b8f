/**
 * The sandbox clock: real time plus an offset that the control plane can advance, and on
 * top of it one offset per partner (docs/parallel-tests.md). Token expiry, the idempotency window,
 * auth propagation and the timestamps the sandbox writes for a partner's call all read the
 * partner's time: `Clock.now(parent)`. Both offsets are never negative, so a partner's time
 * is never behind the global time.
 */
export class Clock {
  /**
   * How far ahead the global clock may be moved, and each partner's clock on top of it: 100
   * years each, bounded apart so that no partner's own moves (its token, in a hosted sandbox)
   * take room from the global clock or from another partner. Far past any token, key or
   * propagation window, and together (200 years) far inside the Date range (a stored offset
   * beyond it would make every timestamp invalid).
   */
  static readonly MAX_OFFSET_MS = 100 * 365 * 86_400_000;
  #offsetMs: number;
  readonly #partners = new Map<string, number>();

  constructor(offsetMs = 0) {
    this.#offsetMs = Clock.#bounded(offsetMs);
  }

  /** A stored offset from before the bound (or a broken one) is kept inside it. */
  static #bounded(offsetMs: number): number {
    return Number.isFinite(offsetMs) ? Math.min(Math.max(offsetMs, 0), Clock.MAX_OFFSET_MS) : 0;
  }

  /** The seconds the global clock can still be advanced by (whatever the partners' own offsets). */
  get headroomSeconds(): number {
    return Math.floor((Clock.MAX_OFFSET_MS - this.#offsetMs) / 1000);
  }

  /** The seconds this partner's own clock can still be advanced by (whatever the global offset). */
  partnerHeadroomSeconds(parent: string): number {
    return Math.floor((Clock.MAX_OFFSET_MS - this.partnerOffsetMs(parent)) / 1000);
  }

  /** Sandbox time in ms: the partner's when a parent is given (the one rule, in one place). */
  now(parent?: string | null): number {
    const partner = parent ? this.#partners.get(parent) : undefined;
    return Date.now() + this.#offsetMs + (partner ?? 0);
  }

  iso(parent?: string | null): string {
    return new Date(this.now(parent)).toISOString();
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  partnerOffsetMs(parent: string): number {
    return this.#partners.get(parent) ?? 0;
  }

  /** Every partner offset that is not 0. */
  partnerOffsets(): ReadonlyMap<string, number> {
    return this.#partners;
  }

  advance(seconds: number): void {
    this.#offsetMs += Math.round(seconds * 1000);
  }

  advancePartner(parent: string, seconds: number): void {
    this.setPartner(parent, this.partnerOffsetMs(parent) + Math.round(seconds * 1000));
  }

  setPartner(parent: string, offsetMs: number): void {
    const ms = Clock.#bounded(offsetMs);
    if (ms > 0) this.#partners.set(parent, ms);
    else this.#partners.delete(parent);
  }

  /** Global offset back to `offsetMs`; every partner offset dropped. */
  reset(offsetMs = 0): void {
    this.#offsetMs = Clock.#bounded(offsetMs);
    this.#partners.clear();
  }
}
