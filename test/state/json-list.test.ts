/**
 * JsonList (domain/json-list.ts), what a bundle's export writes its long lists into: the same
 * bytes as JSON.stringify of the array (between its brackets) however items and parts fall
 * across its buffers, cut after any count of items, and escaped bytes as JSON.stringify escapes
 * a string; a recycled list's buffers serve the next list.
 */
import { describe, expect, it } from 'vitest';
import { JsonList } from '../../src/domain/json-list.js';

const joined = (list: JsonList, count?: number) => Buffer.concat(list.pieces(count)).toString('utf8');

describe('JsonList', () => {
  it('holds the items as JSON.stringify writes the array, cut after any count, across buffers', () => {
    // Items of up to 600 KB: several per buffer, some alone, one longer than a buffer.
    const items = Array.from({ length: 40 }, (_, i) => ({
      i,
      text: `${'x'.repeat((i * 37_000) % 600_000)}"\\\n ü ✓ 🚀`,
    }));
    items.push({ i: 40, text: 'y'.repeat(JsonList.CHUNK_BYTES + 10) });
    const list = new JsonList();
    for (const item of items) list.add(JSON.stringify(item));
    expect(list.length).toBe(items.length);
    for (const count of [0, 1, 2, 17, 39, 40, 41]) {
      const expected = JSON.stringify(items.slice(0, count));
      expect(joined(list, count)).toBe(expected.slice(1, -1));
      // Each item's bytes and a comma's: what an array of them adds to a document, brackets aside.
      expect(list.bytesOf(count)).toBe(count === 0 ? 0 : Buffer.byteLength(expected) - 1);
    }
  });

  it('writes an item in parts, and bytes escaped as JSON.stringify escapes a string', () => {
    const text = `{"a":"q\\"b\\\\"}\n\t\r\b\f\u0001\u001f ü ✓ 🚀 \u2028 ${'z'.repeat(300_000)}`;
    const list = new JsonList();
    for (let n = 0; n < 8; n++) {
      list.part(`{"n":${n},"body":"`);
      list.partEscaped(Buffer.from(text));
      list.add('"}');
    }
    list.add('{"empty":true}');
    const expected = [...Array.from({ length: 8 }, (_, n) => ({ n, body: text })), { empty: true }];
    expect(joined(list)).toBe(JSON.stringify(expected).slice(1, -1));
  });

  it('a recycled list is empty, and the next list writes the same bytes into its buffers', () => {
    const first = new JsonList();
    for (let i = 0; i < 8; i++) first.add(JSON.stringify({ i, s: 'a'.repeat(300_000) }));
    const before = new Set(first.pieces().map((p) => p.buffer));
    first.recycle();
    expect(first.length).toBe(0);
    expect(first.pieces()).toEqual([]);
    const next = new JsonList();
    const items = Array.from({ length: 5 }, (_, i) => ({ i, s: 'b'.repeat(200_000) }));
    for (const item of items) next.add(JSON.stringify(item));
    expect(joined(next)).toBe(JSON.stringify(items).slice(1, -1));
    expect(next.pieces().every((p) => before.has(p.buffer))).toBe(true);
    next.recycle();
  });
});
