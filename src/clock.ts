/**
 * The sandbox clock: real time plus an offset that the control plane can advance.
 * Token expiry, the idempotency window and auth propagation all read it.
 */
export class Clock {
  #offsetMs: number;

  constructor(offsetMs = 0) {
    this.#offsetMs = offsetMs;
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
