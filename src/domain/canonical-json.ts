/**
 * Canonical JSON: a JSON value with every object's keys in sorted order (arrays keep their
 * order), so two values that serialise alike are equal whatever order their keys came in.
 * Used by the idempotency fingerprint (http/idempotency.ts) and the bundle's check of a
 * stored answer (state/bundles/bundle-import.ts).
 */

/**
 * `JSON.stringify(canonical(value))` for a parsed JSON value (null, booleans, numbers, strings,
 * arrays, plain objects), written in one pass without building the sorted copy.
 */
export function canonicalText(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i ? ',' : '') + canonicalText(value[i]);
    return `${text}]`;
  }
  const keys = Object.keys(value);
  // An object rebuilt from entries puts array-index keys ("0", "10") first, in numeric order,
  // and own keys list them first: such an object goes the long way, as `canonical` makes it.
  if (keys.length > 0 && isArrayIndex(keys[0]!)) return JSON.stringify(canonical(value));
  keys.sort();
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    text += `${i ? ',' : ''}${JSON.stringify(k)}:${canonicalText((value as Record<string, unknown>)[k])}`;
  }
  return `${text}}`;
}

const isArrayIndex = (key: string): boolean => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 2 ** 32 - 1;

/** The value with every object's keys sorted (own keys, each kept as its own property). */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
  );
}
