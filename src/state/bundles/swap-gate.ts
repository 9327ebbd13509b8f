/**
 * A large import swaps its partner in by slices (in memory: docs/performance.md), so that no
 * other partner's call waits for the whole of it. Between two slices the partner is half old,
 * half new, so what could read it waits for the swap to end:
 * - that partner's own calls (the partnership pipeline asks `heldFor` after each stage, and
 *   starts over once the swap is done);
 * - the control plane's calls (`control`), but health and imports: a swap starts once the
 *   control-plane calls in flight are done, and new ones wait meanwhile (a call's body is read
 *   before it counts as in flight: http/bind.ts, so a slow client holds no swap);
 * - other imports: imports go one at a time (`oneImport`), and at most a few of a large body
 *   are in progress at once (`largeImport`: each holds its bundle in memory meanwhile).
 * Other partners' calls never wait on it.
 */
export class SwapGate {
  /** Control-plane calls being served. */
  #inFlight = 0;
  #drained: (() => void) | undefined;
  /** Set from the moment a swap asks to start until it is done: new control-plane calls wait on it. */
  #closed: Promise<void> | undefined;
  /** The partner being swapped in, once its slices move (its calls wait on `done`). */
  #swapping: { parent: string; done: Promise<void> } | undefined;
  #imports: Promise<unknown> = Promise.resolve();
  /** Imports of a large body in progress (read, parsed, waiting or running). */
  #large = 0;

  /** What this partner's call must wait for before it goes on (undefined: nothing). */
  heldFor(parent: string | undefined): Promise<void> | undefined {
    const swap = this.#swapping;
    return swap !== undefined && parent !== undefined && swap.parent === parent ? swap.done : undefined;
  }

  /** Serves a control-plane call: it waits while a swap is under way, and a swap waits for it. */
  async control<T>(serve: () => T | Promise<T>): Promise<T> {
    while (this.#closed) await this.#closed;
    this.#inFlight++;
    try {
      return await serve();
    } finally {
      if (--this.#inFlight === 0) this.#drained?.();
    }
  }

  /**
   * Takes one of `most` places for an import of a large body, from before its body is read to
   * its answer: the function that gives it back, or undefined when all are taken.
   */
  largeImport(most: number): (() => void) | undefined {
    if (this.#large >= most) return undefined;
    this.#large++;
    let given = false;
    return () => {
      if (!given) this.#large--;
      given = true;
    };
  }

  /** Runs imports (and exports of a large partner) one at a time, in the order they came. */
  oneImport<T>(run: () => Promise<T>): Promise<T> {
    const result = this.#imports.then(run);
    this.#imports = result.catch(() => {});
    return result;
  }

  /**
   * Closes the gate for `parent`'s swap: new control-plane calls wait from now; resolves once
   * those in flight are done, from when the partner's calls wait too. Call the function it
   * resolves to when the swap is done (whether it went through or not).
   */
  async close(parent: string): Promise<() => void> {
    let open!: () => void;
    const done = new Promise<void>((resolve) => {
      open = resolve;
    });
    this.#closed = done;
    while (this.#inFlight > 0) {
      await new Promise<void>((resolve) => {
        this.#drained = resolve;
      });
    }
    this.#drained = undefined;
    this.#swapping = { parent, done };
    return () => {
      this.#swapping = undefined;
      this.#closed = undefined;
      open();
    };
  }
}
