/**
 * The request journal: every partnership and token call, newest first, bounded per partner
 * (each partner's oldest dropped past `max`, all within a memory budget that the partner holding
 * the most bytes pays for), with secrets redacted in everything it shows. Of each body it keeps
 * at most `bodyBytes` (SANDBOX_JOURNAL_BODY_BYTES): redacted first, then cut, so a secret near
 * the cut is never half shown; a cut body says so, with its whole length. An entry, its filters
 * and its weight are in journal-entry.ts, the rings' orders in journal-rings.ts, the redaction
 * rules in journal-redact.ts.
 */

import {
  bodiesOf,
  type CountFilter,
  entryOf,
  fitted,
  type JournalEntry,
  type JournalFilter,
  type JournalRecord,
  matches,
  type Slot,
  weightOf,
} from './journal-entry.js';
import {
  anyOrder,
  ByBytes,
  NO_PARTNER,
  newestFirst,
  type Ring,
  ringSize,
  type View,
  viewOf,
} from './journal-rings.js';
import { atOnce, inTurns, stretch } from './turns.js';

export type { CountFilter, JournalEntry, JournalFilter, JournalRecord, Truncated } from './journal-entry.js';
export { keep, SLOT_OVERHEAD_BYTES } from './journal-entry.js';

/** A journal's contents at one moment (a snapshot keeps one). */
export interface JournalImage {
  rings: ReadonlyMap<string, readonly Slot[]>;
  count: number;
}

/** What `POST /__sandbox/requests/count` answers: the count, and with body_contains how many bodies were cut. */
export interface Counted {
  count: number;
  /** Entries matching the filters but body_contains whose request body was cut (searched only to the cut). */
  cut: number;
}

/** No filter at all: what `matches` would let every entry through. */
const unfiltered = (f: CountFilter) =>
  !f.account_id &&
  !f.method &&
  f.status === undefined &&
  !f.trace_id &&
  !f.header &&
  !f.path &&
  !f.since &&
  f.body_contains === undefined;

/**
 * Each partner's last `max` records in a ring of its own (calls of no known partner in one more),
 * newest first on read, so a noisy partner never pushes a quiet one's entries out. All rings
 * together stay within `budgetBytes` (estimated, see `weigh`): past it, the ring holding the most
 * bytes loses its oldest, and an entry heavier than a partner's fair share of the budget (the
 * budget over the rings) has its bodies cut to fit first, so one large call never empties the
 * others. Keeping the budget costs log(partners) per call (journal-rings.ts ByBytes); reads of
 * the whole journal go by turns (`listInTurns`, `countInTurns`), so other partners' calls are
 * served meanwhile.
 */
export class Journal {
  #rings = new Map<string, Ring>();
  #byBytes = new ByBytes();
  #count = 0;
  #bytes = 0;
  /** The entries all rings hold. */
  #live = 0;
  /** Reads by turns under way: while any is, no dropped slot is cleared from its array (they read views of them). */
  #readers = 0;
  readonly max: number;
  /** How much of each body is kept (SANDBOX_JOURNAL_BODY_BYTES). */
  readonly bodyBytes: number;
  /** The estimated memory all rings may hold together (SANDBOX_JOURNAL_BUDGET_MB). */
  readonly budgetBytes: number;

  constructor(max: number, bodyBytes: number, budgetBytes = Number.POSITIVE_INFINITY) {
    this.max = max;
    this.bodyBytes = bodyBytes;
    this.budgetBytes = budgetBytes;
  }

  /**
   * Files a record (with its entry, when one was read from a bundle) in its owner's ring: the
   * record's partner unless `owner` says whose (an import files its whole journal under its partner).
   */
  add(record: JournalRecord, entry?: Omit<JournalEntry, 'id'>, owner?: string): void {
    const id = ++this.#count;
    const key = owner ?? record.parent_account_id ?? NO_PARTNER;
    let ring = this.#rings.get(key);
    if (!ring) {
      ring = { key, slots: [], start: 0, bytes: 0, at: -1 };
      this.#rings.set(key, ring);
      this.#byBytes.add(ring);
    }
    const made: Slot = entry ? { id, record, entry: { id, ...entry } } : this.#slot(id, record);
    const slot = fitted(made, this.budgetBytes / this.#rings.size, this.bodyBytes);
    const bytes = weightOf(slot);
    ring.slots.push(slot);
    ring.bytes += bytes;
    this.#bytes += bytes;
    this.#live++;
    this.#byBytes.moved(ring);
    if (ringSize(ring) > this.max) this.#dropOldest(ring);
    while (this.#bytes > this.budgetBytes) {
      const fullest = this.#byBytes.top;
      if (!fullest) break;
      this.#dropOldest(fullest);
    }
  }

  #dropOldest(ring: Ring): void {
    const bytes = weightOf(ring.slots[ring.start]!);
    if (this.#readers === 0) ring.slots[ring.start] = undefined as unknown as Slot; // let go of it now
    ring.start++;
    ring.bytes -= bytes;
    this.#bytes -= bytes;
    this.#live--;
    if (ringSize(ring) === 0) {
      this.#rings.delete(ring.key);
      this.#byBytes.remove(ring);
      return;
    }
    // Drop the dead head now and then (amortised O(1) per add): a new array, so views of the old one stay whole.
    if (ring.start >= this.max || ring.start > ringSize(ring)) {
      ring.slots = ring.slots.slice(ring.start);
      ring.start = 0;
    }
    this.#byBytes.moved(ring);
  }

  /**
   * A record whose bodies may be longer than what is kept of them is redacted and cut now,
   * and the record lets go of them: 1,000 entries of 200 KiB bodies would hold 200 MB. A
   * short one stays a reference, redacted only if someone reads it.
   */
  #slot(id: number, record: JournalRecord): Slot {
    const long = (chars: number | undefined) => chars !== undefined && chars > this.bodyBytes;
    const responseChars =
      typeof record.responseBody === 'string' ? record.responseBody.length : record.responseChars;
    if (!long(record.requestBody?.length) && !long(responseChars)) return { id, record };
    const bodies = bodiesOf(record, this.bodyBytes);
    return { id, record: { ...record, requestBody: null, responseBody: undefined }, bodies };
  }

  /**
   * Files an entry read from a bundle (already redacted) as a new one, with a new ID, in the
   * ring of `owner` (the bundle's partner). The record behind it is rebuilt from the entry, so
   * the filters and count work the same.
   */
  addImported(entry: Omit<JournalEntry, 'id'>, owner: string): void {
    const query = new URLSearchParams(entry.query).toString();
    this.add(
      {
        at: Date.parse(entry.time),
        partnerAt: entry.partner_time === null ? null : Date.parse(entry.partner_time),
        method: entry.method,
        url: `http://imported${entry.path}${query ? `?${query}` : ''}`,
        headers: Object.entries(entry.request_headers).flat(),
        requestBody: entry.request_body,
        status: entry.status,
        responseBody: entry.response_body ?? undefined,
        responseHeaders: entry.response_headers,
        request_id: entry.request_id,
        trace:
          entry.trace_id === null || entry.span_id === null
            ? null
            : { trace_id: entry.trace_id, span_id: entry.span_id, tracestate: entry.tracestate },
        parent_account_id: entry.parent_account_id,
        account_id: entry.account_id,
        scenarios_applied: entry.scenarios_applied,
        chaos: entry.chaos,
        warnings: entry.warnings,
        duration_ms: entry.duration_ms,
      },
      entry,
      owner,
    );
  }

  /** How many entries all rings hold. */
  get size(): number {
    return this.#live;
  }

  /** The estimated bytes all rings hold (kept within `budgetBytes`). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * The rings a filter can match, as views: a parent filter reads that partner's ring (an entry
   * names the parent of the ring it is in, or none); otherwise every ring.
   */
  #views(filter: { parent_account_id?: string }): View[] {
    if (!filter.parent_account_id) return [...this.#rings.values()].map(viewOf);
    const ring = this.#rings.get(filter.parent_account_id);
    return ring ? [viewOf(ring)] : [];
  }

  /**
   * Visits the slots a filter can match (newest first when `ordered`) until `visit` says false.
   * By turns (`byTurns`), it yields once a stretch of work is due (core/turns.ts), reading views
   * taken when it began: the answer is the journal's at that moment.
   */
  *#scan(
    filter: { parent_account_id?: string },
    ordered: boolean,
    visit: (slot: Slot) => boolean,
    byTurns: boolean,
  ): Generator<void, void> {
    const views = this.#views(filter);
    const slots = ordered ? newestFirst(views) : anyOrder(views);
    if (!byTurns) {
      for (const slot of slots) if (!visit(slot)) return;
      return;
    }
    this.#readers++;
    try {
      const time = stretch();
      let n = 0;
      for (const slot of slots) {
        if (!visit(slot)) return;
        if ((++n & 31) === 0 && time.due()) {
          yield;
          time.restart();
        }
      }
    } finally {
      this.#readers--;
    }
  }

  /**
   * A partner's entries, newest first, at most `max` (what a bundle carries and an import
   * takes): its ring, and entries of other rings naming one of its accounts.
   */
  ofPartner(parent: string, accountIds: ReadonlySet<string>): JournalEntry[] {
    return [...this.ofPartnerOneByOne(parent, accountIds)];
  }

  /**
   * `ofPartner`'s entries, which are the partner's at the first read, each built as it is read
   * (an entry's bodies are redacted when it is first built): a long journal's are built
   * between other requests (a bundle's export).
   */
  *ofPartnerOneByOne(parent: string, accountIds: ReadonlySet<string>): Generator<JournalEntry> {
    const own = this.#rings.get(parent);
    const others = [...this.#rings.values()].filter((ring) => ring.key !== parent).map(viewOf);
    const slots: Slot[] = [];
    const theirs = newestFirst(others);
    const mine = newestFirst(own ? [viewOf(own)] : []);
    let a = mine.next();
    let b = theirs.next();
    const named = (slot: Slot) => slot.record.account_id !== null && accountIds.has(slot.record.account_id);
    while (slots.length < this.max && !(a.done && b.done)) {
      if (!b.done && !named(b.value)) {
        b = theirs.next();
        continue;
      }
      if (a.done || (!b.done && b.value.id > a.value.id)) {
        slots.push(b.value as Slot);
        b = theirs.next();
      } else {
        slots.push(a.value);
        a = mine.next();
      }
    }
    for (const slot of slots) yield entryOf(slot, this.bodyBytes);
  }

  *#listSteps(filter: JournalFilter, byTurns: boolean): Generator<void, JournalEntry[]> {
    const out: JournalEntry[] = [];
    const limit = filter.limit ?? this.max;
    if (limit <= 0) return out;
    const visit = (slot: Slot) => {
      if (matches(slot, filter, this.bodyBytes)) out.push(entryOf(slot, this.bodyBytes));
      return out.length < limit;
    };
    yield* this.#scan(filter, true, visit, byTurns);
    return out;
  }

  /** Newest first. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    return atOnce(this.#listSteps(filter, false));
  }

  /** `list`, by turns (`GET /__sandbox/requests`): the journal as it was when it began. */
  listInTurns(filter: JournalFilter = {}): Promise<JournalEntry[]> {
    return inTurns(this.#listSteps(filter, true));
  }

  /**
   * How many entries match (the length `list` would answer without a limit) and, when the filter
   * has body_contains, how many match the rest but had their request body cut (body_contains
   * could not search those past the cut). No filter, or a partner's alone, is counted at once.
   */
  *#countSteps(filter: CountFilter, byTurns: boolean): Generator<void, Counted> {
    const { body_contains, ...rest } = filter;
    if (unfiltered(filter)) {
      if (!filter.parent_account_id) return { count: this.#live, cut: 0 };
      const ring = this.#rings.get(filter.parent_account_id);
      return { count: ring ? ringSize(ring) : 0, cut: 0 };
    }
    const counted: Counted = { count: 0, cut: 0 };
    const visit = (slot: Slot) => {
      if (!matches(slot, rest, this.bodyBytes)) return true;
      if (body_contains === undefined) counted.count++;
      else {
        const entry = entryOf(slot, this.bodyBytes);
        if (entry.request_body_truncated) counted.cut++;
        if (entry.request_body?.includes(body_contains)) counted.count++;
      }
      return true;
    };
    yield* this.#scan(filter, false, visit, byTurns);
    return counted;
  }

  /** How many entries match: the length `list` would answer without a limit. */
  count(filter: CountFilter = {}): number {
    return atOnce(this.#countSteps(filter, false)).count;
  }

  /** `count` and the cut bodies, by turns (`POST /__sandbox/requests/count`): the journal as it was when it began. */
  countInTurns(filter: CountFilter = {}): Promise<Counted> {
    return inTurns(this.#countSteps(filter, true));
  }

  /** Drops one partner's entries: its ring, and entries elsewhere naming one of its accounts. */
  removePartner(parent: string, accountIds: ReadonlySet<string>): void {
    const drop = this.#rings.get(parent);
    if (drop) {
      this.#bytes -= drop.bytes;
      this.#live -= ringSize(drop);
      this.#rings.delete(parent);
      this.#byBytes.remove(drop);
    }
    if (accountIds.size === 0) return;
    const named = (s: Slot) => s.record.account_id !== null && accountIds.has(s.record.account_id);
    for (const ring of [...this.#rings.values()]) {
      // Most rings name none of its accounts: looked through, not copied.
      let found = false;
      for (let i = ring.start; i < ring.slots.length && !found; i++) found = named(ring.slots[i]!);
      if (!found) continue;
      const live = ring.slots.slice(ring.start);
      const kept = live.filter((s) => !named(s));
      const bytes = kept.reduce((sum, s) => sum + weightOf(s), 0);
      this.#bytes += bytes - ring.bytes;
      this.#live += kept.length - live.length;
      if (kept.length === 0) {
        this.#rings.delete(ring.key);
        this.#byBytes.remove(ring);
        continue;
      }
      // New arrays: views being read keep the old ones.
      ring.slots = kept;
      ring.start = 0;
      ring.bytes = bytes;
      this.#byBytes.moved(ring);
    }
  }

  clear(): void {
    this.#rings = new Map();
    this.#byBytes.clear();
    this.#bytes = 0;
    this.#live = 0;
    this.#count = 0;
  }

  /** The contents now (slots are never changed once added, so sharing them is safe). */
  image(): JournalImage {
    return {
      rings: new Map([...this.#rings].map(([key, ring]) => [key, ring.slots.slice(ring.start)])),
      count: this.#count,
    };
  }

  restore(image: JournalImage): void {
    const count = this.#count;
    this.clear();
    for (const [key, slots] of image.rings) {
      if (slots.length === 0) continue;
      const bytes = slots.reduce((sum, s) => sum + weightOf(s), 0);
      const ring: Ring = { key, slots: [...slots], start: 0, bytes, at: -1 };
      this.#rings.set(key, ring);
      this.#byBytes.add(ring);
      this.#bytes += bytes;
      this.#live += slots.length;
    }
    // IDs handed out since the save are not handed out again.
    this.#count = Math.max(count, image.count);
  }
}
