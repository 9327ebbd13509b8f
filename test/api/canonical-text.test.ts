/**
 * The idempotency fingerprint's canonical JSON, written in one pass (canonicalText), is
 * byte-identical to the sorted copy serialised (JSON.stringify(canonical(…))): fingerprints
 * stored before, and in bundles, still match the same payloads.
 */
import { describe, expect, it } from 'vitest';
import { canonical, canonicalText } from '../../src/domain/canonical-json.js';

const bodies = [
  null,
  true,
  0,
  -1.5e-7,
  'x"\\\u2028é😀',
  [],
  {},
  [1, [2, [3, { b: 1, a: [null, false] }]]],
  { contentHash: null, domains: [{ policy: 'Block', domain: 'a.example' }], blockedVerticals: [], name: 'n' },
  { b: 1, a: 2, B: 3, _: 4, é: 5, '': 6, 'a b': 7 },
  // array-index keys come first in numeric order in any rebuilt object, then the rest sorted
  { '10': 1, '9': 2, a: 3, '01': 4, '4294967295': 5, '4294967294': 6, '-1': 7 },
  { nested: { '2': { z: 1, y: 2 }, '1': [{ d: 1, c: 2 }] } },
  JSON.parse('{"__proto__": {"b": 1, "a": 2}, "x": 1}'),
];

describe('canonicalText', () => {
  it.each(bodies.map((b) => [JSON.stringify(b), b]))('%s', (_, body) => {
    expect(canonicalText(body)).toBe(JSON.stringify(canonical(body)));
  });
});
