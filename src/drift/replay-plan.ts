/**
 * Which of a recording's entries verify replays (docs/drift.md): those of the API, on the host
 * and base path of its first API entry. Entries of other hosts or paths, and CORS preflights,
 * are ignored and counted, so a browser's or a proxy's HAR works.
 */
import { splitApiPath } from './api.js';
import type { Difference } from './compare.js';
import { type ReadEntry, RecordingError } from './har.js';
import type { EntryResult, Outcome } from './verify-result.js';

export interface Item {
  entry: ReadEntry;
  /** The API path with its query (the base prefix cut), or the URL's path for ignored entries. */
  path: string;
  ignored?: string;
}

export interface Plan {
  items: Item[];
  api: Item[];
}

export function classify(all: ReadEntry[], file: string): Plan {
  const split = (e: ReadEntry) => splitApiPath(e.url.pathname);
  const first = all.find((e) => split(e)?.path.startsWith('/v1/')) ?? all.find((e) => split(e));
  if (!first) {
    throw new RecordingError(
      `${file} is no recording of the Partnership Accounts API: none of its ${all.length} entries goes to /oauth/token or a /v1/ path of the API`,
    );
  }
  const origin = first.url.origin;
  const prefix = split(first)!.prefix;
  const items = all.map((entry): Item => {
    const s = split(entry);
    const path = (s?.path ?? entry.url.pathname) + entry.url.search;
    if (entry.url.origin !== origin) return { entry, path, ignored: `another host (${entry.url.host})` };
    if (!s || s.prefix !== prefix) return { entry, path, ignored: 'not a path of the API' };
    if (entry.method === 'OPTIONS') return { entry, path, ignored: 'a CORS preflight' };
    return { entry, path };
  });
  return { items, api: items.filter((i) => !i.ignored) };
}

/**
 * No answer was recorded: status 0 (DevTools, `record`'s reset) or below (Chromium through
 * Playwright writes -1 for a request it blocked or that failed).
 */
export const noAnswer = (e: ReadEntry) => e.status <= 0;

/** The connection was reset: no answer, and the error says so (`net::ERR_CONNECTION_RESET`). */
export const isReset = (e: ReadEntry) => noAnswer(e) && /RESET|ECONNRESET|EPIPE/i.test(e.error ?? '');

export function resultOf(
  item: Item,
  outcome: Outcome,
  differences: Difference[],
  reason?: string,
): EntryResult {
  return {
    index: item.entry.index,
    method: item.entry.method,
    path: item.path,
    outcome,
    differences,
    ...(reason ? { reason } : {}),
  };
}
