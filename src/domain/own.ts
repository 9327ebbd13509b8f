/**
 * Records keyed by what a client sent (a partner ID, a scenario name, a form field, a header):
 * read and written as own properties only. A plain `record[key]` with the key `__proto__`
 * reads Object.prototype and writes the object's prototype, and `key in record` is true for
 * `toString`: names a partner may choose must never reach either.
 */

/** The own property `key` of `record`, never one it inherits. */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Sets `record[key]` as an own data property, whatever the key (`__proto__` included). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}
