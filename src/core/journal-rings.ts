/**
 * The journal's rings (journal.ts) and the two orders it keeps them in without looking at every
 * partner: by bytes held (the budget's: the ring holding the most loses its oldest), and newest
 * first across rings (a read of the whole journal). Both are binary heaps, so a call costs
 * log(partners), not partners (docs/performance.md, "A hosted sandbox's journal").
 */
import type { Slot } from './journal-entry.js';

/** Whose ring an entry is in: its partner's, or that of calls of no known partner. */
export const NO_PARTNER = '';

/** One owner's entries, oldest first from `start` on (those before it were dropped). */
export interface Ring {
  key: string;
  slots: Slot[];
  start: number;
  /** The estimated bytes of the live slots (see `weigh` in journal-entry.ts). */
  bytes: number;
  /** Its place in the journal's heap by bytes (`ByBytes`), -1 when out of it. */
  at: number;
}

export const ringSize = (r: Ring) => r.slots.length - r.start;

/**
 * The rings by bytes held, the most first: the top in O(1), a ring whose bytes changed moved
 * in O(log n) (each ring knows its place, `at`).
 */
export class ByBytes {
  #heap: Ring[] = [];

  get top(): Ring | undefined {
    return this.#heap[0];
  }

  add(ring: Ring): void {
    ring.at = this.#heap.length;
    this.#heap.push(ring);
    this.#up(ring.at);
  }

  remove(ring: Ring): void {
    const i = ring.at;
    if (i < 0) return;
    const last = this.#heap.pop()!;
    ring.at = -1;
    if (last === ring) return;
    this.#heap[i] = last;
    last.at = i;
    this.#up(i);
    this.#down(last.at);
  }

  /** After `ring.bytes` changed. */
  moved(ring: Ring): void {
    if (ring.at < 0) return;
    this.#up(ring.at);
    this.#down(ring.at);
  }

  clear(): void {
    for (const ring of this.#heap) ring.at = -1;
    this.#heap = [];
  }

  #swap(i: number, j: number): void {
    const h = this.#heap;
    const a = h[i]!;
    const b = h[j]!;
    h[i] = b;
    h[j] = a;
    a.at = j;
    b.at = i;
  }

  #up(i: number): void {
    const h = this.#heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.bytes >= h[i]!.bytes) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(i: number): void {
    const h = this.#heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let big = i;
      if (l < h.length && h[l]!.bytes > h[big]!.bytes) big = l;
      if (r < h.length && h[r]!.bytes > h[big]!.bytes) big = r;
      if (big === i) return;
      this.#swap(i, big);
      i = big;
    }
  }
}

/**
 * A ring's live slots at one moment: `slots[start..end)`. The journal changes no slot of an
 * array while a view of it is read (journal.ts `#readers`), so a read by turns answers for the
 * moment it began whatever comes meanwhile.
 */
export interface View {
  slots: readonly Slot[];
  start: number;
  end: number;
}

export const viewOf = (ring: Ring): View => ({
  slots: ring.slots,
  start: ring.start,
  end: ring.slots.length,
});

/**
 * The slots of some views, newest first (IDs grow with time across rings): a heap of the views'
 * newest slots, so each slot costs log(views) rather than a look at every view.
 */
export function* newestFirst(views: readonly View[]): Generator<Slot> {
  // Each view's next slot (its index, going down), in a max-heap by that slot's ID.
  const heap: { view: View; next: number; id: number }[] = [];
  for (const view of views)
    if (view.end > view.start) heap.push({ view, next: view.end - 1, id: view.slots[view.end - 1]!.id });
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let big = i;
      if (l < heap.length && heap[l]!.id > heap[big]!.id) big = l;
      if (r < heap.length && heap[r]!.id > heap[big]!.id) big = r;
      if (big === i) return;
      [heap[i], heap[big]] = [heap[big]!, heap[i]!];
      i = big;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  while (heap.length > 0) {
    const top = heap[0]!;
    yield top.view.slots[top.next]!;
    top.next--;
    if (top.next >= top.view.start) top.id = top.view.slots[top.next]!.id;
    else {
      const last = heap.pop()!;
      if (heap.length === 0) return;
      heap[0] = last;
    }
    down(0);
  }
}

/** The slots of some views in any order (a count needs no order): no heap. */
export function* anyOrder(views: readonly View[]): Generator<Slot> {
  for (const view of views) for (let i = view.start; i < view.end; i++) yield view.slots[i]!;
}
