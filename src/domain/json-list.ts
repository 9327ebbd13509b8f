/**
 * A JSON array's items written out as UTF-8 one at a time, into buffers of about CHUNK_BYTES:
 * a long list (a bundle's accounts, stored answers, journal) is encoded item by item, between
 * other work, without the list as objects or as one string, and without a buffer per item. An
 * item may be written in parts (`part`, then `add` or `end`), so that a long one never has to be
 * one long string; a part never spans two buffers. The list's bytes are the items joined by
 * commas, as JSON.stringify writes the array between its brackets; the first `count` items can
 * be taken alone (a list cut short).
 */
export class JsonList {
  /** How large a buffer is (a part longer than this gets one of its own). */
  static readonly CHUNK_BYTES = 1024 * 1024;
  readonly #chunks: Buffer[] = [];
  /** Where each chunk starts, in the list's bytes, and how much of it the items took. */
  readonly #starts: number[] = [];
  readonly #filled: number[] = [];
  /** Where each item ends, in the list's bytes. */
  readonly #ends: number[] = [];
  #used = 0;
  #bytes = 0;
  /** An item is being written in parts. */
  #open = false;

  /** Items written so far. */
  get length(): number {
    return this.#ends.length;
  }

  /** Appends an item's JSON text (a comma first, after the first item). */
  add(json: string): void {
    this.part(json);
    this.end();
  }

  /** Appends a part of the item being written (its start opens it). */
  part(json: string): void {
    const size = Buffer.byteLength(json);
    this.#into(size).write(json, this.#used - size);
  }

  /**
   * Appends UTF-8 bytes as the inside of a JSON string (JSON.stringify's escapes: quote,
   * backslash, and control characters), without a string of them.
   */
  partEscaped(utf8: Uint8Array): void {
    const n = utf8.length;
    let size = n;
    for (let i = 0; i < n; i++) size += ESCAPED_EXTRA[utf8[i]!]!;
    const chunk = this.#into(size);
    let at = this.#used - size;
    if (size === n) {
      chunk.set(utf8, at);
      return;
    }
    for (let i = 0; i < n; i++) {
      const b = utf8[i]!;
      if (ESCAPED_EXTRA[b] === 0) chunk[at++] = b;
      else {
        const bytes = ESCAPES[b]!;
        for (let j = 0; j < bytes.length; j++) chunk[at++] = bytes[j]!;
      }
    }
  }

  /** Ends the item written in parts. */
  end(): void {
    this.#open = false;
    this.#ends.push(this.#bytes);
  }

  /** What the first `count` items take as JSON.stringify's array holds them: each item's bytes and one more. */
  bytesOf(count = this.length): number {
    return count === 0 ? 0 : this.#ends[count - 1]! + 1;
  }

  /** The first `count` items' bytes, joined by commas: views of the chunks, not copies. */
  pieces(count = this.length): Buffer[] {
    const end = count === 0 ? 0 : this.#ends[count - 1]!;
    const out: Buffer[] = [];
    for (let i = 0; i < this.#chunks.length && this.#starts[i]! < end; i++) {
      const used = i === this.#chunks.length - 1 ? this.#used : this.#filled[i]!;
      out.push(this.#chunks[i]!.subarray(0, Math.min(used, end - this.#starts[i]!)));
    }
    return out;
  }

  /**
   * Gives the list's buffers back for the next lists to write into (once nothing reads its
   * pieces any more: the answer that sent them is closed). A bundle's export then writes
   * into the last one's memory rather than asking for 27 MiB more, which V8 counts towards
   * a major GC (a pause of every call); spare buffers are dropped SPARE_MS after the last
   * give-back. The list is empty after.
   */
  recycle(): void {
    for (const chunk of this.#chunks)
      if (chunk.length === JsonList.CHUNK_BYTES && spare.length < SPARE_MAX) spare.push(chunk);
    this.#chunks.length = 0;
    this.#starts.length = 0;
    this.#filled.length = 0;
    this.#ends.length = 0;
    this.#used = 0;
    this.#bytes = 0;
    this.#open = false;
    clearTimeout(dropSpare);
    dropSpare = setTimeout(() => {
      spare.length = 0;
    }, SPARE_MS).unref();
  }

  /** Room for `size` more bytes (a comma first, when they open an item after the first): the chunk they go in, `#used` past them. */
  #into(size: number): Buffer {
    const comma = !this.#open && this.#ends.length > 0;
    this.#open = true;
    const total = size + (comma ? 1 : 0);
    let chunk = this.#chunks.at(-1);
    if (!chunk || chunk.length - this.#used < total) {
      if (chunk) this.#filled.push(this.#used);
      chunk =
        total <= JsonList.CHUNK_BYTES
          ? (spare.pop() ?? Buffer.allocUnsafeSlow(JsonList.CHUNK_BYTES))
          : Buffer.allocUnsafeSlow(total);
      this.#chunks.push(chunk);
      this.#starts.push(this.#bytes);
      this.#used = 0;
    }
    if (comma) chunk[this.#used] = 0x2c; // ,
    this.#used += total;
    this.#bytes += total;
    return chunk;
  }
}

/** Buffers given back (recycle), for the next lists; at most SPARE_MAX (a bundle's worth). */
const spare: Buffer[] = [];
const SPARE_MAX = 40;
/** Spare buffers are dropped this long after the last give-back: an idle sandbox holds none. */
const SPARE_MS = 30_000;
let dropSpare: ReturnType<typeof setTimeout> | undefined;

/** JSON.stringify's escape of each byte that needs one (control characters, quote, backslash), as bytes. */
const ESCAPES: readonly Uint8Array[] = Array.from({ length: 256 }, (_, b) =>
  Buffer.from(
    b < 0x20 || b === 0x22 || b === 0x5c ? JSON.stringify(String.fromCharCode(b)).slice(1, -1) : '',
  ),
);
/** The bytes each byte's escape adds (0: written as it is). */
const ESCAPED_EXTRA = Uint8Array.from(ESCAPES, (e) => (e.length ? e.length - 1 : 0));
