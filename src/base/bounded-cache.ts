/**
 * A cache of at most `max` entries: the least recently used goes when a new one comes. For values keyed
 * by what a client chooses (the Host header a document is built for, the names a partner seeds),
 * so that no client can grow it without end.
 */
export class BoundedCache<V, K = string> {
  readonly #entries = new Map<K, V>();
  constructor(readonly max: number) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The value for `key`, made (and kept, evicting the oldest) when there is none. */
  get(key: K, make: () => V): V {
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

/**
 * Equal values held once. A hosted sandbox keeps each partner's mapping rows and translated
 * verticals in memory, and most partners are seeded with the same names: without sharing, each
 * partner holds its own copy of every name (docs/performance.md, "A hosted partner's heap"). The
 * tables are bounded caches, as a partner may seed any names: no client grows them without end,
 * and one that fills them only costs others the sharing, never a value.
 */

/**
 * Strings that equal each other as one string: up to 2,048 distinct ones at a time, of at most
 * 200 characters (a mapping's names), so the table holds well under a megabyte whatever is seeded.
 */
const strings = new BoundedCache<string>(2048);
const SHARED_STRING_MAX = 200;

/** `text`, or an equal string kept before: the same characters, held once. */
export const sharedString = (text: string): string =>
  text.length > SHARED_STRING_MAX ? text : strings.get(text, () => text);
