/**
 * The `additive-changes` scenario's effect (docs/fault-injection.md): an answer as a compatible
 * release of the API could send it. Fields unknown to the spec are added to the envelope (the
 * token endpoint's answer: to its top object) and to each object of `data`, at any depth; the
 * known fields of each of those objects come in another order; and an unknown header is sent.
 * Known fields keep their values. Everything is drawn from the seed, so the same seed gives
 * the same answer: a failing drill repeats.
 */
import { chaosRandom } from './chaos.js';

/** Names a later release could plausibly add, for the envelope and for data's objects. */
const ENVELOPE_FIELDS = ['api_version', 'links', 'meta', 'deprecations', 'trace_context'] as const;
const DATA_FIELDS = ['etag', 'revision', 'labels', 'region', 'extensions', 'updated_by'] as const;
const HEADERS = ['X-Api-Release', 'X-Edge-Region', 'X-Request-Cost'] as const;

/** A value of every JSON kind: a strict decoder meets strings, numbers, objects, arrays, booleans and null. */
const VALUES: readonly ((n: number) => unknown)[] = [
  (n) => `v${n}`,
  (n) => n,
  (n) => ({ kind: 'added', n }),
  (n) => [n, `item-${n}`],
  (n) => n % 2 === 0,
  () => null,
];

/** Draws from (seed, position): each call of `next` is the next number of the seed's sequence. */
class Draw {
  #n = 0;
  constructor(readonly seed: number) {}
  next(): number {
    return chaosRandom(this.seed, ++this.#n, 11);
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
}

/** The object's fields in another order (the reverse, rotated by a drawn step), with one or two added. */
function reshapeObject(
  value: Record<string, unknown>,
  names: readonly string[],
  draw: Draw,
): Record<string, unknown> {
  const keys = Object.keys(value);
  const order = [...keys].reverse();
  const step = keys.length > 2 ? draw.int(keys.length - 1) : 0;
  const moved = [...order.slice(step), ...order.slice(0, step)];
  // another order, whenever there are two fields or more
  if (keys.length > 1 && moved.every((k, i) => k === keys[i])) moved.push(moved.shift()!);
  const free = names.filter((n) => !Object.hasOwn(value, n));
  const added = free.length ? 1 + draw.int(Math.min(2, free.length)) : 0;
  const entries: [string, unknown][] = moved.map((k) => [k, value[k]]);
  for (let i = 0; i < added; i++) {
    const name = free.splice(draw.int(free.length), 1)[0]!;
    const n = draw.int(1000);
    entries.splice(draw.int(entries.length + 1), 0, [name, VALUES[draw.int(VALUES.length)]!(n)]);
  }
  return Object.fromEntries(entries);
}

/** Every object inside data reshaped, arrays kept in their order. */
function reshapeData(value: unknown, draw: Draw): unknown {
  if (Array.isArray(value)) return value.map((v) => reshapeData(v, draw));
  if (!value || typeof value !== 'object') return value;
  const inner: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) inner[k] = reshapeData(v, draw);
  return reshapeObject(inner, DATA_FIELDS, draw);
}

export interface CompatibleAnswer {
  text: string;
  header: [name: string, value: string];
}

/** The answer text as a compatible release could send it, or undefined when it is no JSON object. */
export function compatibleRelease(text: string, seed: number): CompatibleAnswer | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const draw = new Draw(seed);
  const top = { ...(body as Record<string, unknown>) };
  if (Object.hasOwn(top, 'data') && Object.hasOwn(top, 'request_id')) top.data = reshapeData(top.data, draw);
  const shaped = reshapeObject(top, ENVELOPE_FIELDS, draw);
  const header = HEADERS[draw.int(HEADERS.length)]!;
  return { text: JSON.stringify(shaped), header: [header, `2026-12.${draw.int(1000)}`] };
}
