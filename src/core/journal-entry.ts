/**
 * A journal entry and what the journal keeps of one call (journal.ts files them): the record
 * the request path hands over, the slot it is kept in, the entry shown (built once, when first
 * read), the filters an entry matches, and a slot's weight in memory (what the budget counts).
 */

import type { z } from 'zod';
import type { JournalEntry as JournalEntrySchema } from '../contract/control/control-journal.js';
import type { CountRequest, JournalFilters } from '../contract/control/journal-filters.js';
import type { TraceContext } from '../domain/trace-context.js';
import { type RequestHeaders, redactBody, redactHeaders, redactJson, redactQuery } from './journal-redact.js';

/** One journal entry; its shape is the control plane's contract (src/contract/control/control-journal.ts). */
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

/** The journal's filters, as GET /__sandbox/requests's typed filters parse (contract/control/journal-filters.ts). */
export type JournalFilter = z.output<typeof JournalFilters>;

/**
 * The journal's filters plus what `POST /__sandbox/requests/count` matches on (docs/parallel-tests.md),
 * as its body parses: `header` is compared with the raw header, secrets included, but only a
 * count is answered, never a value; `body_contains` searches only what the journal kept of a body.
 */
export type CountFilter = z.output<typeof CountRequest>;

/** `request_body_truncated` / `response_body_truncated` of an entry: null when the body is whole. */
export type Truncated = JournalEntry['request_body_truncated'];

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
export interface Kept {
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
  /**
   * The answer's headers as the app wrote them (lower-case names); none for a reset connection.
   * The object itself, to which the server may add its `Content-Length` as it writes the
   * answer: the entry shows the headers without it (`shownHeaders`).
   */
  responseHeaders: Readonly<Record<string, string | number>>;
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

export interface Slot {
  id: number;
  record: JournalRecord;
  /** The bodies, redacted and cut when the record came (a long one), so the record holds neither whole. */
  bodies?: { request: Kept; response: Kept };
  entry?: JournalEntry;
  /** Its weight (see `weigh`), reckoned once: the same figure is added and later taken off. */
  bytes?: number;
}

/** A record's bodies as the journal shows them: redacted, then cut at `limit` bytes. */
export function bodiesOf(r: JournalRecord, limit: number): { request: Kept; response: Kept } {
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
    response_headers: shownHeaders(r.responseHeaders),
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

/**
 * The answer's headers an entry shows: as the app wrote them, without the `Content-Length` the
 * server (or the early 429, http/early-limit.ts) adds to the same object as it writes the answer;
 * the app's own names are lower-case. A copy, so the entry never changes with the record.
 */
function shownHeaders(headers: JournalRecord['responseHeaders']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) if (name !== 'Content-Length') out[name] = headers[name] as string;
  return out;
}

export const entryOf = (slot: Slot, limit: number) => {
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

export function matches(slot: Slot, filter: CountFilter, limit: number): boolean {
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
  // The path without building the entry (a read of every entry would build and keep them all).
  if (filter.path && !(slot.entry?.path ?? new URL(r.url).pathname).includes(filter.path)) return false;
  if (!filter.since && filter.body_contains === undefined) return true;
  const entry = entryOf(slot, limit);
  if (filter.since && entry.time < filter.since) return false;
  if (filter.body_contains !== undefined && !entry.request_body?.includes(filter.body_contains)) return false;
  return true;
}

/**
 * What a slot holds in memory, estimated: a fixed part (the record, its arrays, a materialized
 * entry's fields) and the characters it keeps (URL, headers, warnings), with a quarter more for
 * the bodies (the JSON text of an entry once read, beside the answer's object). Measured on
 * Node 24 after a read: a mappings GET 6.1 KB (estimate 6.3), a controls GET 3.3 KB (3.2).
 */
export const SLOT_OVERHEAD_BYTES = 1024;

/** A record's weight but its bodies: the fixed part and the characters of its URL, headers and warnings. */
function weighRest(r: JournalRecord): number {
  let chars = r.url.length;
  if (r.headers instanceof Headers) for (const [k, v] of r.headers) chars += k.length + v.length;
  else for (const h of r.headers) chars += h.length;
  for (const w of r.warnings) chars += w.length;
  return SLOT_OVERHEAD_BYTES + chars;
}

/** What a body of `chars` characters weighs (its text, and a quarter more: see above). */
const weighBody = (chars: number) => Math.ceil(chars * 1.25);

/**
 * The characters a kept text counts for: its length, twice over when it has any character
 * past ASCII. V8 keeps such a text (CJK, emoji: what a client may send) in two bytes a
 * character, so counted once, 16 KiB bodies of CJK text held 1.6 times what the budget counted,
 * and a 512 MiB container ran out of heap (V8's limit there is 259 MB) with the journal
 * 140 MiB into its 256 MiB budget. ASCII only (the byte length is the length): one byte each.
 */
function textChars(text: string | null | undefined): number {
  if (!text) return 0;
  return Buffer.byteLength(text, 'utf8') === text.length ? text.length : 2 * text.length;
}

function weigh(slot: Slot): number {
  const r = slot.record;
  let body: number;
  if (slot.bodies) body = textChars(slot.bodies.request.text) + textChars(slot.bodies.response.text);
  else {
    // An answer kept as the object the app wrote: its text's length (the sandbox's own fields).
    const response = typeof r.responseBody === 'string' ? textChars(r.responseBody) : (r.responseChars ?? 0);
    body = textChars(r.requestBody) + response;
  }
  return weighRest(r) + weighBody(body);
}

/** A slot's weight, reckoned on first use and kept on the slot. */
export function weightOf(slot: Slot): number {
  slot.bytes ??= weigh(slot);
  return slot.bytes;
}

/** A kept body cut again at `limit` bytes: still marked with the length of the whole. */
function cutAgain(kept: Kept, limit: number): Kept {
  const cut = keep(kept.text, limit);
  return cut.truncated ? { text: cut.text, truncated: kept.truncated ?? cut.truncated } : kept;
}

/**
 * The bytes each body is cut to so that the entry weighs at most `share`: each body at most
 * `limit` bytes, so at most `limit` characters, which weigh 1.25 × limit each, or twice that when
 * either text has a character past ASCII (`textChars`).
 */
function cutLimit(share: number, r: JournalRecord, request: string | null, response: string | null): number {
  const wide = (t: string | null) => t !== null && textChars(t) !== t.length;
  const perLimit = 2 * 1.25 * (wide(request) || wide(response) ? 2 : 1);
  return Math.max(0, Math.floor((share - weighRest(r) - 1) / perLimit));
}

/**
 * The slot itself when it weighs at most `share` (a partner's fair part of the journal's budget);
 * else a slot of the same call whose two bodies are cut so that it does, each marked cut with its
 * whole length (as SANDBOX_JOURNAL_BODY_BYTES cuts them), down to none kept when the rest of the
 * entry alone is past the share. So one call larger than a partner's share never empties the
 * other partners' journals (nor its own) to make room for itself. `bodyBytes` is the journal's
 * usual cut.
 */
export function fitted(slot: Slot, share: number, bodyBytes: number): Slot {
  if (weightOf(slot) <= share) return slot;
  const r = slot.record;
  if (slot.entry) {
    // An entry read from a bundle: its bodies are the record's (already redacted).
    const e = slot.entry;
    const limit = cutLimit(share, r, e.request_body, e.response_body);
    const request = cutAgain({ text: e.request_body, truncated: e.request_body_truncated }, limit);
    const response = cutAgain({ text: e.response_body, truncated: e.response_body_truncated }, limit);
    const entry: JournalEntry = {
      ...e,
      request_body: request.text,
      request_body_truncated: request.truncated,
      response_body: response.text,
      response_body_truncated: response.truncated,
    };
    const record = { ...r, requestBody: request.text, responseBody: response.text ?? undefined };
    return { id: slot.id, record, entry };
  }
  const whole = slot.bodies ?? bodiesOf(r, bodyBytes);
  const limit = cutLimit(share, r, whole.request.text, whole.response.text);
  const bodies = { request: cutAgain(whole.request, limit), response: cutAgain(whole.response, limit) };
  return { id: slot.id, record: { ...r, requestBody: null, responseBody: undefined }, bodies };
}
