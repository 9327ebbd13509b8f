/**
 * Canonical JSON: a JSON value with every object's keys in sorted order (arrays keep their
 * order), so two values that serialise alike are equal whatever order their keys came in.
 * Used by the idempotency fingerprint (http/idempotency.ts) and the bundle's check of a
 * stored answer (state/bundles/bundle-import.ts).
 */

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
