/**
 * Equal values held once. A hosted sandbox keeps each partner's mapping rows and translated
 * verticals in memory, and most partners are seeded with the same names: without sharing, each
 * partner holds its own copy of every name (docs/performance.md, "A hosted partner's heap").
 * Tables here are bounded and start over when full, as a partner may seed any names: no client
 * grows them without end, and one that fills them only costs others the sharing, never a value.
 */

/** A table of at most `max` values by key, emptied when a new key finds it full. */
export class SharedTable<K, V> {
  readonly #kept = new Map<K, V>();
  constructor(readonly max: number) {}

  get size(): number {
    return this.#kept.size;
  }

  get(key: K): V | undefined {
    return this.#kept.get(key);
  }

  /** The value kept for `key`, else `value`, now kept for it. */
  share(key: K, value: V): V {
    const kept = this.#kept.get(key);
    if (kept !== undefined) return kept;
    if (this.#kept.size >= this.max) this.#kept.clear();
    this.#kept.set(key, value);
    return value;
  }
}

/**
 * Strings that equal each other as one string: up to 2,048 distinct ones at a time, of at most
 * 200 characters (a mapping's names), so the table holds well under a megabyte whatever is seeded.
 */
const strings = new SharedTable<string, string>(2048);
const SHARED_STRING_MAX = 200;

/** `text`, or an equal string kept before: the same characters, held once. */
export const sharedString = (text: string): string =>
  text.length > SHARED_STRING_MAX ? text : strings.share(text, text);
