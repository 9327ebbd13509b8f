/**
 * The request journal: every partnership and token call, newest first, bounded per partner
 * (each partner's oldest dropped past `max`, all within a memory budget), with secrets redacted in everything it shows. Of each body it keeps
 * at most `bodyBytes` (SANDBOX_JOURNAL_BODY_BYTES): redacted first, then cut, so a secret
 * near the cut is never half shown; a cut body says so, with its whole length. The
 * redaction rules are in journal-redact.ts.
 */

import type { z } from 'zod';
import type { JournalEntry as JournalEntrySchema } from '../contract/control/control-journal.js';
import type { TraceContext } from '../domain/trace-context.js';
import { type RequestHeaders, redactBody, redactHeaders, redactJson, redactQuery } from './journal-redact.js';

/** One journal entry; its shape is the control plane's contract (src/contract/control/control-journal.ts). */
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

export interface JournalFilter {
  account_id?: string;
  parent_account_id?: string;
  method?: string;
  path?: string;
  status?: number;
  since?: string;
  /** The W3C trace-id of the partner's traceparent (32 lower-case hex digits). */
  trace_id?: string;
  limit?: number;
}

/** The journal's filters plus what `POST /__sandbox/requests/count` matches on (docs/parallel-tests.md). */
export interface CountFilter extends Omit<JournalFilter, 'limit'> {
  /**
   * A request header by name (any case); with `value`, its value exactly as sent (repeated
   * headers joined with ", "). Compared with the raw header, secrets included, but only a
   * count is answered, never a value.
   */
  header?: { name: string; value?: string };
  /**
   * A substring of the request body as the journal shows it (secrets redacted, JSON compact),
   * searched only in what was kept of it: a body cut at SANDBOX_JOURNAL_BODY_BYTES is not
   * searched past the cut.
   */
  body_contains?: string;
}

/** `request_body_truncated` / `response_body_truncated` of an entry: null when the body is whole. */
export type Truncated = { original_bytes: number } | null;

/** What the journal keeps of a body: its first `limit` bytes (never half a character), and whether it was cut. */
export function keep(text: string | null, limit: number): { text: string | null; truncated: Truncated } {
  // A UTF-16 unit is at most 3 UTF-8 bytes: a text that short is within the limit without counting.
  if (text === null || text.length * 3 <= limit) return { text, truncated: null };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return { text, truncated: null };
  let end = limit;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // not inside a UTF-8 sequence
  // Decoded from the bytes: a new string, not a slice that would hold on to the whole body.
  return { text: bytes.toString('utf8', 0, end), truncated: { original_bytes: bytes.length } };
}

/** A journaled body as shown: redacted whole, then cut. */
interface Kept {
  text: string | null;
  truncated: Truncated;
}

/**
 * What the request path records: references, cheap to keep. The journal turns a record
 * into a redacted JournalEntry only when someone reads it (once, then cached), so the
 * request path pays for neither redaction nor serialisation.
 */
export interface JournalRecord {
  at: number;
  /** The partner's clock at that moment (docs/parallel-tests.md), when the partner is known. */
  partnerAt: number | null;
  method: string;
  url: string;
  headers: RequestHeaders;
  requestBody: string | null;
  status: number;
  /** The answer's JSON body as the writer produced it (object or text), or undefined. */
  responseBody: unknown;
  /** The length of the answer's text as sent (characters), when known: a long one is cut at once. */
  responseChars?: number;
  /** The answer's headers as sent (lower-case names); none for a reset connection. */
  responseHeaders: Readonly<Record<string, string>>;
  request_id: string;
  /** The partner's W3C traceparent (and tracestate), when it sent a valid one (domain/trace-context.ts). */
  trace: TraceContext | null;
  parent_account_id: string | null;
  account_id: string | null;
  scenarios_applied: string[];
  /** The chaos failure this call met (docs/chaos.md), or null. */
  chaos: JournalEntry['chaos'];
  warnings: string[];
  duration_ms: number;
}

interface Slot {
  id: number;
  record: JournalRecord;
  /** The bodies, redacted and cut when the record came (a long one), so the record holds neither whole. */
  bodies?: { request: Kept; response: Kept };
  entry?: JournalEntry;
  /** Its weight (see `weigh`), reckoned once: the same figure is added and later taken off. */
  bytes?: number;
}

/** A record's bodies as the journal shows them: redacted, then cut at `limit` bytes. */
function bodiesOf(r: JournalRecord, limit: number): { request: Kept; response: Kept } {
  let response: string | null = null;
  if (typeof r.responseBody === 'string') response = redactBody(r.responseBody);
  else if (r.responseBody !== undefined && r.responseBody !== null) {
    response = JSON.stringify(redactJson(r.responseBody));
  }
  return { request: keep(redactBody(r.requestBody), limit), response: keep(response, limit) };
}

function materialize(slot: Slot, limit: number): JournalEntry {
  const r = slot.record;
  const url = new URL(r.url);
  const { request, response } = slot.bodies ?? bodiesOf(r, limit);
  return {
    id: slot.id,
    time: new Date(r.at).toISOString(),
    partner_time: r.partnerAt === null ? null : new Date(r.partnerAt).toISOString(),
    method: r.method,
    path: url.pathname,
    query: redactQuery(url.searchParams),
    request_headers: redactHeaders(r.headers),
    request_body: request.text,
    request_body_truncated: request.truncated,
    status: r.status,
    response_body: response.text,
    response_body_truncated: response.truncated,
    response_headers: r.responseHeaders,
    request_id: r.request_id,
    trace_id: r.trace?.trace_id ?? null,
    span_id: r.trace?.span_id ?? null,
    tracestate: r.trace?.tracestate ?? null,
    parent_account_id: r.parent_account_id,
    account_id: r.account_id,
    scenarios_applied: r.scenarios_applied,
    chaos: r.chaos,
    warnings: r.warnings,
    duration_ms: r.duration_ms,
  };
}

const entryOf = (slot: Slot, limit: number) => {
  slot.entry ??= materialize(slot, limit);
  return slot.entry;
};

/** A header's value as sent (repeated ones joined with ", "), or undefined. */
function headerValue(headers: RequestHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  let value: string | undefined;
  for (let i = 0; i + 1 < headers.length; i += 2) {
    if (headers[i]!.toLowerCase() !== name) continue;
    value = value === undefined ? headers[i + 1]! : `${value}, ${headers[i + 1]!}`;
  }
  return value;
}

function matches(slot: Slot, filter: CountFilter, limit: number): boolean {
  const r = slot.record;
  if (filter.account_id && r.account_id !== filter.account_id) return false;
  if (filter.parent_account_id && r.parent_account_id !== filter.parent_account_id) return false;
  if (filter.method && r.method !== filter.method.toUpperCase()) return false;
  if (filter.status !== undefined && r.status !== filter.status) return false;
  if (filter.trace_id && r.trace?.trace_id !== filter.trace_id) return false;
  if (filter.header) {
    const value = headerValue(r.headers, filter.header.name.toLowerCase());
    if (value === undefined) return false;
    if (filter.header.value !== undefined && value !== filter.header.value) return false;
  }
  if (!filter.path && !filter.since && filter.body_contains === undefined) return true;
  const entry = entryOf(slot, limit);
  if (filter.path && !entry.path.includes(filter.path)) return false;
  if (filter.since && entry.time < filter.since) return false;
  if (filter.body_contains !== undefined && !entry.request_body?.includes(filter.body_contains)) return false;
  return true;
}

/** Whose ring an entry is in: its partner's, or that of calls of no known partner. */
const NO_PARTNER = '';

/** One owner's entries, oldest first from `start` on (those before it were dropped). */
interface Ring {
  slots: Slot[];
  start: number;
  /** The estimated bytes of the live slots (see `weigh`). */
  bytes: number;
}

const ringSize = (r: Ring) => r.slots.length - r.start;

/**
 * What a slot holds in memory, estimated: a fixed part (the record, its arrays, a materialized
 * entry's fields) and the characters it keeps (URL, headers, warnings), with a quarter more for
 * the bodies (the JSON text of an entry once read, beside the answer's object). Measured on
 * Node 24 after a read: a mappings GET 6.1 KB (estimate 6.3), a controls GET 3.3 KB (3.2).
 */
export const SLOT_OVERHEAD_BYTES = 1024;
function weigh(slot: Slot): number {
  const r = slot.record;
  let chars = r.url.length;
  if (r.headers instanceof Headers) for (const [k, v] of r.headers) chars += k.length + v.length;
  else for (const h of r.headers) chars += h.length;
  for (const w of r.warnings) chars += w.length;
  let body: number;
  if (slot.bodies) body = (slot.bodies.request.text?.length ?? 0) + (slot.bodies.response.text?.length ?? 0);
  else {
    const response = typeof r.responseBody === 'string' ? r.responseBody.length : (r.responseChars ?? 0);
    body = (r.requestBody?.length ?? 0) + response;
  }
  return SLOT_OVERHEAD_BYTES + chars + Math.ceil(body * 1.25);
}

/** A slot's weight, reckoned on first use and kept on the slot. */
function weightOf(slot: Slot): number {
  slot.bytes ??= weigh(slot);
  return slot.bytes;
}

/** The live slots of some rings, newest first (IDs grow with time across rings). */
function* merged(rings: readonly Ring[]): Generator<Slot> {
  const next = rings.map((r) => r.slots.length - 1);
  for (;;) {
    let best = -1;
    for (let k = 0; k < rings.length; k++) {
      if (next[k]! < rings[k]!.start) continue;
      if (best < 0 || rings[k]!.slots[next[k]!]!.id > rings[best]!.slots[next[best]!]!.id) best = k;
    }
    if (best < 0) return;
    yield rings[best]!.slots[next[best]!--]!;
  }
}

/** A journal's contents at one moment (a snapshot keeps one). */
export interface JournalImage {
  rings: ReadonlyMap<string, readonly Slot[]>;
  count: number;
}

/**
 * Each partner's last `max` records in a ring of its own (calls of no known partner in one more),
 * newest first on read, so a noisy partner never pushes a quiet one's entries out. All rings
 * together stay within `budgetBytes` (estimated, see `weigh`): past it, the ring holding the most
 * entries loses its oldest.
 */
export class Journal {
  #rings = new Map<string, Ring>();
  #count = 0;
  #bytes = 0;
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
    const slot: Slot = entry ? { id, record, entry: { id, ...entry } } : this.#slot(id, record);
    const key = owner ?? record.parent_account_id ?? NO_PARTNER;
    let ring = this.#rings.get(key);
    if (!ring) {
      ring = { slots: [], start: 0, bytes: 0 };
      this.#rings.set(key, ring);
    }
    const bytes = weightOf(slot);
    ring.slots.push(slot);
    ring.bytes += bytes;
    this.#bytes += bytes;
    if (ringSize(ring) > this.max) this.#dropOldest(key, ring);
    while (this.#bytes > this.budgetBytes) {
      const [fullest, of] = this.#fullest();
      if (!of || ringSize(of) === 0) break;
      this.#dropOldest(fullest, of);
    }
  }

  #dropOldest(key: string, ring: Ring): void {
    const bytes = weightOf(ring.slots[ring.start]!);
    ring.slots[ring.start] = undefined as unknown as Slot; // let go of it now
    ring.start++;
    ring.bytes -= bytes;
    this.#bytes -= bytes;
    if (ringSize(ring) === 0) this.#rings.delete(key);
    // Drop the dead head now and then (amortised O(1) per add).
    else if (ring.start >= this.max || ring.start > ringSize(ring)) {
      ring.slots = ring.slots.slice(ring.start);
      ring.start = 0;
    }
  }

  /** The ring holding the most entries. */
  #fullest(): [string, Ring | undefined] {
    let best: [string, Ring | undefined] = [NO_PARTNER, undefined];
    for (const [key, ring] of this.#rings)
      if (!best[1] || ringSize(ring) > ringSize(best[1])) best = [key, ring];
    return best;
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
    let n = 0;
    for (const ring of this.#rings.values()) n += ringSize(ring);
    return n;
  }

  /** The estimated bytes all rings hold (kept within `budgetBytes`). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * The slots a filter can match, newest first: a parent filter reads that partner's ring (an
   * entry names the parent of the ring it is in, or none); otherwise the rings merged by ID.
   */
  #newestFirst(filter: { parent_account_id?: string }): Generator<Slot> {
    if (!filter.parent_account_id) return merged([...this.#rings.values()]);
    const ring = this.#rings.get(filter.parent_account_id);
    return merged(ring ? [ring] : []);
  }

  /**
   * A partner's entries, newest first, at most `max` (what a bundle carries and an import
   * takes): its ring, and entries of other rings naming one of its accounts.
   */
  ofPartner(parent: string, accountIds: ReadonlySet<string>): JournalEntry[] {
    const own = this.#rings.get(parent);
    const others = [...this.#rings].filter(([key]) => key !== parent).map(([, ring]) => ring);
    const out: JournalEntry[] = [];
    const theirs = merged(others);
    const mine = merged(own ? [own] : []);
    let a = mine.next();
    let b = theirs.next();
    const named = (slot: Slot) => slot.record.account_id !== null && accountIds.has(slot.record.account_id);
    while (out.length < this.max && !(a.done && b.done)) {
      if (!b.done && !named(b.value)) {
        b = theirs.next();
        continue;
      }
      if (a.done || (!b.done && b.value.id > a.value.id)) {
        out.push(entryOf(b.value as Slot, this.bodyBytes));
        b = theirs.next();
      } else {
        out.push(entryOf(a.value, this.bodyBytes));
        a = mine.next();
      }
    }
    return out;
  }

  /** Newest first. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const limit = filter.limit ?? this.max;
    if (limit <= 0) return out;
    for (const slot of this.#newestFirst(filter)) {
      if (matches(slot, filter, this.bodyBytes)) out.push(entryOf(slot, this.bodyBytes));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** How many entries match: the length `list` would answer without a limit. */
  count(filter: CountFilter = {}): number {
    let n = 0;
    for (const slot of this.#newestFirst(filter)) if (matches(slot, filter, this.bodyBytes)) n++;
    return n;
  }

  /**
   * How many entries match `filter` (body_contains aside) and had their request body cut:
   * body_contains could not search those past the cut.
   */
  countCut(filter: CountFilter = {}): number {
    const { body_contains: _, ...rest } = filter;
    let n = 0;
    for (const slot of this.#newestFirst(rest))
      if (matches(slot, rest, this.bodyBytes) && entryOf(slot, this.bodyBytes).request_body_truncated) n++;
    return n;
  }

  /** Drops one partner's entries: its ring, and entries elsewhere naming one of its accounts. */
  removePartner(parent: string, accountIds: ReadonlySet<string>): void {
    const drop = this.#rings.get(parent);
    if (drop) {
      this.#bytes -= drop.bytes;
      this.#rings.delete(parent);
    }
    if (accountIds.size === 0) return;
    for (const [key, ring] of this.#rings) {
      const live = ring.slots.slice(ring.start);
      const kept = live.filter((s) => !(s.record.account_id !== null && accountIds.has(s.record.account_id)));
      if (kept.length === live.length) continue;
      const bytes = kept.reduce((sum, s) => sum + weightOf(s), 0);
      this.#bytes += bytes - ring.bytes;
      if (kept.length === 0) this.#rings.delete(key);
      else this.#rings.set(key, { slots: kept, start: 0, bytes });
    }
  }

  clear(): void {
    this.#rings = new Map();
    this.#bytes = 0;
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
    this.#rings = new Map();
    this.#bytes = 0;
    for (const [key, slots] of image.rings) {
      const bytes = slots.reduce((sum, s) => sum + weightOf(s), 0);
      this.#rings.set(key, { slots: [...slots], start: 0, bytes });
      this.#bytes += bytes;
    }
    // IDs handed out since the save are not handed out again.
    this.#count = Math.max(this.#count, image.count);
  }
}
