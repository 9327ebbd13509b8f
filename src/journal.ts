/**
 * The request journal: every partnership and token call, newest first, bounded (oldest
 * dropped past `max`), with secrets redacted before anything is stored.
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

export function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (SECRET_HEADERS.has(name)) {
      const scheme = value.split(' ')[0];
      out[name] = scheme && scheme !== value ? `${scheme} ${REDACTED}` : REDACTED;
    } else out[name] = value;
  });
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
  return redacted.length > MAX_BODY_CHARS ? `${redacted.slice(0, MAX_BODY_CHARS)}…[truncated]` : redacted;
}

export class Journal {
  #entries: JournalEntry[] = [];
  #nextId = 1;
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  add(entry: Omit<JournalEntry, 'id'>): JournalEntry {
    const full = { ...entry, id: this.#nextId++ };
    this.#entries.push(full);
    if (this.#entries.length > this.max) this.#entries.splice(0, this.#entries.length - this.max);
    return full;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Newest first. */
  list(filter: JournalFilter = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const limit = filter.limit ?? this.max;
    for (let i = this.#entries.length - 1; i >= 0 && out.length < limit; i--) {
      const e = this.#entries[i]!;
      if (filter.account_id && e.account_id !== filter.account_id) continue;
      if (filter.parent_account_id && e.parent_account_id !== filter.parent_account_id) continue;
      if (filter.method && e.method !== filter.method.toUpperCase()) continue;
      if (filter.path && !e.path.includes(filter.path)) continue;
      if (filter.status !== undefined && e.status !== filter.status) continue;
      if (filter.since && e.time < filter.since) continue;
      out.push(e);
    }
    return out;
  }

  clear(): void {
    this.#entries = [];
  }
}
