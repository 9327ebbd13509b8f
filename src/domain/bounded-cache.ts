/**
 * A cache of at most `max` entries: the least recently used goes when a new one comes. For values keyed
 * by what a client chooses (the Host header a document is built for), so that no client can
 * grow it without end.
 */
export class BoundedCache<V> {
  readonly #entries = new Map<string, V>();
  constructor(readonly max: number) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The value for `key`, made (and kept, evicting the oldest) when there is none. */
  get(key: string, make: () => V): V {
    const kept = this.#entries.get(key);
    if (kept !== undefined) {
      // the most recently used goes last: what is in use is not what goes
      this.#entries.delete(key);
      this.#entries.set(key, kept);
      return kept;
    }
    const value = make();
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, value);
    return value;
  }
}
