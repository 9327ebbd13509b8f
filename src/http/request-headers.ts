/**
 * Request headers read straight from Node's IncomingMessage when the app is served by
 * @hono/node-server, so a request never builds a Fetch `Headers` it does not need (the
 * largest avoidable cost of a read, per the profile in bench/RESULTS.md). In-process
 * (`app.request()`), the Fetch request's headers are used. Both give the same answer:
 * names match case-insensitively and repeated headers are joined with ", ", as `Headers`
 * joins them (Node's own `incoming.headers` would keep only the first Authorization).
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import type { RequestHeaders } from '../core/journal-redact.js';

/** Node's request, when the app is served by @hono/node-server. */
export function incoming(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/** One request header by name (any case); undefined when absent. */
export function requestHeader(c: Context, name: string): string | undefined {
  const raw = incoming(c)?.rawHeaders;
  return raw ? rawHeader(raw, name) : c.req.header(name);
}

/** One header of Node's raw list by name (any case), repeated lines joined as `Headers` joins them. */
export function rawHeader(raw: readonly string[], name: string): string | undefined {
  const lower = name.toLowerCase();
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length === lower.length && key.toLowerCase() === lower) {
      value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
    }
  }
  return value;
}

/**
 * The request's headers as they arrived, without copying them (the journal normalises on read):
 * Node's list, its strings held once where they repeat from call to call (shareRepeated).
 */
export function requestHeaders(c: Context): RequestHeaders {
  const raw = incoming(c)?.rawHeaders;
  if (!raw) return c.req.raw.headers;
  shareRepeated(raw);
  return raw;
}

/**
 * The last list of each length up to 64 strings (32 headers): a client sends the same headers
 * in the same order call after call, most of them with the same values. At most 33 lists, each
 * within Node's 16 KiB of headers.
 */
const lastOfLength: (string[] | undefined)[] = [];
const SHARED_LIST_MAX = 64;

/**
 * Replaces the strings of Node's list (each call's own, from its parser) by the equal ones at the
 * same place in the last list of its length, so that a name or value the same from call to call
 * is held once. A journal keeps each call's list (docs/performance.md, "A hosted partner's
 * heap"); the characters are the same. Strings compared, not hashed: no table to look up.
 */
function shareRepeated(raw: string[]): void {
  const n = raw.length;
  if (n > SHARED_LIST_MAX) return;
  const last = lastOfLength[n];
  if (last !== undefined) {
    for (let i = 0; i < n; i++) {
      const kept = last[i]!;
      if (raw[i] === kept) raw[i] = kept;
    }
  }
  lastOfLength[n] = raw;
}

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1: the scheme in any
 * case, one token, trailing whitespace allowed); undefined when absent or of another form.
 */
export function parseBearer(header: string | undefined): string | undefined {
  return header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}
