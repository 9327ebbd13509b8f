/**
 * One call as a pact is built from it, whichever record it comes from: the sandbox's journal
 * (`GET /__sandbox/pact`) or a HAR recording (`partnership-sandbox pact FILE.har`). Both
 * adapters keep only what a pact needs; secrets are never read from them (the builder puts
 * placeholders where credentials were).
 */
import type { z } from 'zod';
import type { JournalEntry } from '../contract/control/control-journal.js';
import { splitApiPath } from '../drift/api.js';
import type { ReadEntry } from '../drift/har.js';

export interface Exchange {
  method: string;
  /** The API path (a base path before it removed). */
  path: string;
  query: Record<string, string>;
  /** Request headers, lower-case names (credentials possibly redacted). */
  headers: Record<string, string>;
  body: string | null;
  /** 0: no answer (a reset connection). */
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string | null;
  /** The answer's body was cut (a journal keeps a bounded part of it). */
  truncated: boolean;
  /** The scenarios applied, as labels (`name` or `name=value`). */
  scenarios: string[];
  /** The partner's parent account, when the record says it. */
  parent: string | undefined;
}

const lower = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

/** The journal's entries (any order) as exchanges, oldest first; calls of other paths left out. */
export function fromJournal(entries: readonly z.infer<typeof JournalEntry>[]): Exchange[] {
  return [...entries]
    .sort((a, b) => a.id - b.id)
    .filter((e) => splitApiPath(e.path) !== undefined)
    .map((e) => ({
      method: e.method,
      path: e.path,
      query: { ...e.query },
      headers: lower(e.request_headers),
      body: e.request_body,
      status: e.status,
      responseHeaders: lower(e.response_headers),
      responseBody: e.response_body,
      truncated: e.response_body_truncated !== null,
      scenarios: [...e.scenarios_applied],
      parent: e.parent_account_id ?? undefined,
    }));
}

const APPLIED = 'x-sandbox-scenario-applied';

/** A HAR recording's entries as exchanges, in their order; entries of other hosts or paths left out. */
export function fromHar(entries: readonly ReadEntry[]): Exchange[] {
  const out: Exchange[] = [];
  for (const e of entries) {
    const api = splitApiPath(e.url.pathname);
    if (!api) continue;
    const headers = Object.fromEntries(e.requestHeaders.map((h) => [h.name.toLowerCase(), h.value]));
    const responseHeaders = Object.fromEntries(e.responseHeaders.map((h) => [h.name.toLowerCase(), h.value]));
    const applied = responseHeaders[APPLIED];
    out.push({
      method: e.method,
      path: api.path,
      query: Object.fromEntries(e.url.searchParams),
      headers,
      body: e.requestBody ?? null,
      status: e.error ? 0 : e.status,
      responseHeaders,
      responseBody: e.responseBody || null,
      truncated: false,
      scenarios: applied ? applied.split(',').map((s) => s.trim()) : [],
      parent:
        headers['x-platform-parent-account-id'] || e.url.searchParams.get('parent_account_id') || undefined,
    });
  }
  return out;
}
