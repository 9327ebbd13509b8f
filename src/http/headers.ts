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
  if (!raw) return c.req.header(name);
  const lower = lowerName(name);
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (sameName(raw[i]!, lower)) value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
  }
  return value;
}

/** The lower-case form of each name asked for (callers pass a few constants), made once. */
const lowerNames = new Map<string, string>();
function lowerName(name: string): string {
  let lower = lowerNames.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    if (lowerNames.size < 64) lowerNames.set(name, lower);
  }
  return lower;
}

/**
 * The header name `key` is `lower` (a lower-case name) in any case, compared without making a
 * lower-case copy of each header name of every request (a String.toLowerCase each was 2 % of a
 * controls GET's instructions). Node's parser lets only token characters (RFC 9110 §5.6.2: ASCII)
 * into a header name, so folding A to Z is all that toLowerCase would do to it.
 */
export function sameName(key: string, lower: string): boolean {
  if (key.length !== lower.length) return false;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if ((code >= 65 && code <= 90 ? code | 0x20 : code) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** The request's headers as they arrived, without copying them (the journal normalises on read). */
export function requestHeaders(c: Context): RequestHeaders {
  return incoming(c)?.rawHeaders ?? c.req.raw.headers;
}

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1: the scheme in any
 * case, one token, trailing whitespace allowed); undefined when absent or of another form.
 */
export function parseBearer(header: string | undefined): string | undefined {
  return header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}
