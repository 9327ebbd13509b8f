/**
 * The request journal: every partnership and token call, newest first, bounded (oldest
 * dropped past `max`), with secrets redacted in everything it shows.
 */

import type { z } from 'zod';
import type { JournalEntry as JournalEntrySchema } from './contract/admin.js';

/** One journal entry; its shape is the control plane's contract (src/contract/admin.ts). */
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

export interface JournalFilter {
  account_id?: string;
  parent_account_id?: string;
  method?: string;
  path?: string;
  status?: number;
  since?: string;
  limit?: number;
}

const MAX_BODY_CHARS = 64 * 1024;
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization', 'x-sandbox-admin-token']);
const SECRET_FIELDS = /("(?:client_secret|access_token|refresh_token|password)"\s*:\s*)"(?:[^"\\]|\\.)*"/g;
const SECRET_FORM_FIELDS = /((?:^|&)(?:client_secret|access_token|password)=)[^&]*/g;
export const REDACTED = '[REDACTED]';

/**
 * A request's headers as the HTTP layer kept them, uncopied: Node's raw name/value list
 * when served over a socket, Fetch Headers in process.
 */
export type RequestHeaders = readonly string[] | Headers;

/**
 * Lower-case name -> value, repeated names joined with ", ", sorted by name (the view
 * Fetch Headers gives, from either form), secrets redacted.
 */
export function redactHeaders(headers: RequestHeaders): Record<string, string> {
  const joined = new Map<string, string>();
  if (headers instanceof Headers) {
    for (const [name, value] of headers) joined.set(name, value);
  } else {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      const name = headers[i]!.toLowerCase();
      const prev = joined.get(name);
      joined.set(name, prev === undefined ? headers[i + 1]! : `${prev}, ${headers[i + 1]!}`);
    }
  }
  const out: Record<string, string> = {};
  for (const name of [...joined.keys()].sort()) {
    const value = joined.get(name)!;
    if (SECRET_HEADERS.has(name)) {
      const scheme = value.split(' ')[0];
      out[name] = scheme && scheme !== value ? `${scheme} ${REDACTED}` : REDACTED;
    } else out[name] = value;
  }
  return out;
}

const SECRET_KEYS = new Set(['client_secret', 'access_token', 'refresh_token', 'password']);

/** Redacts secret-named keys at any depth of a parsed JSON value. */
function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.has(k) ? REDACTED : redactJson(v)]),
    );
  }
  return value;
}

/**
 * Removes secret values from a JSON or form-encoded body. Keys are compared after
 * decoding (as the server reads them), so `client%5Fsecret` or `"client_\u0073ecret"`
 * is redacted too; text that is neither JSON nor a form falls back to the patterns.
 */
export function redactBody(body: string | null): string | null {
  if (body === null) return null;
  let redacted: string;
  try {
    redacted = JSON.stringify(redactJson(JSON.parse(body)));
  } catch {
    if (/^[^{[\s][^\s]*=/.test(body) || body.includes('&')) {
      const form = new URLSearchParams(body);
      for (const key of new Set(form.keys())) if (SECRET_KEYS.has(key)) form.set(key, REDACTED);
      redacted = form.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED);
    } else {
      redacted = body.replace(SECRET_FIELDS, `$1"${REDACTED}"`).replace(SECRET_FORM_FIELDS, `$1${REDACTED}`);
    }
  }
  return clip(redacted);
}

/** Query parameters by the same field rules as bodies: `?access_token=…` is not kept in clear. */
function redactQuery(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of params) out[key] = SECRET_KEYS.has(key) ? REDACTED : value;
  return out;
}

function clip(text: string): string {
  return text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}…[truncated]` : text;
}

/**
 * What the request path records: references, cheap to keep. The journal turns a record
 * into a redacted JournalEntry only when someone reads it (once, then cached), so the
 * request path pays for neither redaction nor serialisation.
 */
export interface JournalRecord {
  at: number;
  method: string;
  url: string;
  headers: RequestHeaders;
  requestBody: string | null;
  status: number;
  /** The answer's JSON body as the writer produced it (object or text), or undefined. */
  responseBody: unknown;
  request_id: string;
  parent_account_id: string | null;
  account_id: string | null;
  scenarios_applied: string[];
  warnings: string[];
  duration_ms: number;
}

interface Slot {
  id: number;
  record: JournalRecord;
  entry?: JournalEntry;
}

function materialize(slot: Slot): JournalEntry {
  const r = slot.record;
  const url = new URL(r.url);
  let response: string | null = null;
  if (typeof r.responseBody === 'string') response = redactBody(r.responseBody);
  else if (r.responseBody !== undefined && r.responseBody !== null) {
    response = clip(JSON.stringify(redactJson(r.responseBody)));
  }
  return {
    id: slot.id,
    time: new Date(r.at).toISOString(),
    method: r.method,
    path: url.pathname,
    query: redactQuery(url.searchParams),
    request_headers: redactHeaders(r.headers),
    request_body: redactBody(r.requestBody),
    status: r.status,
    response_body: response,
    request_id: r.request_id,
    parent_account_id: r.parent_account_id,
    account_id: r.account_id,
    scenarios_applied: r.scenarios_applied,
    warnings: r.warnings,
    duration_ms: r.duration_ms,
  };
}

/** A ring of the last `max` records, newest first on read. */
export class Journal {
  #ring: (Slot | undefined)[];
  #count = 0;
  readonly max: number;

  constructor(max: number) {
    this.max = max;
    this.#ring = new Array(max);
  }

  add(record: JournalRecord): void {
    const id = ++this.#count;
    this.#ring[(id - 1) % this.max] = { id, record };
  }

  get size(): number {
    return Math.min(this.#count, this.max);
  }

  /** Newest first. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const limit = filter.limit ?? this.max;
    const oldest = Math.max(1, this.#count - this.max + 1);
    for (let id = this.#count; id >= oldest && out.length < limit; id--) {
      const slot = this.#ring[(id - 1) % this.max]!;
      const r = slot.record;
      if (filter.account_id && r.account_id !== filter.account_id) continue;
      if (filter.parent_account_id && r.parent_account_id !== filter.parent_account_id) continue;
      if (filter.method && r.method !== filter.method.toUpperCase()) continue;
      if (filter.status !== undefined && r.status !== filter.status) continue;
      slot.entry ??= materialize(slot);
      if (filter.path && !slot.entry.path.includes(filter.path)) continue;
      if (filter.since && slot.entry.time < filter.since) continue;
      out.push(slot.entry);
    }
    return out;
  }

  clear(): void {
    this.#ring = new Array(this.max);
    this.#count = 0;
  }
}
