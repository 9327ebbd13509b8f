/**
 * A recorded request as the replay sends it (docs/drift.md): the identifiers the recorded
 * service issued replaced by the sandbox's (path, query, headers, body), the connection's own
 * headers left out, a token the recording never saw issued replaced by a fresh one, and what the
 * service did on its own asked of the sandbox as the scenario that does it.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { APPLIED_HEADER, HOP_BY_HOP, SCENARIO_HEADER, safeDecode, TOKEN_PATH } from './api.js';
import { rewriteForm } from './form.js';
import { headerValue, type ReadEntry } from './har.js';
import type { IdMap } from './id-map.js';
import { type Item, isReset } from './replay-plan.js';

/** What a replayed request is: method, the sandbox path, headers and body. */
export interface Outgoing {
  method: string;
  path: string;
  headers: [string, string][];
  body: string | undefined;
}

/** Headers a replay never sends as recorded: they belong to the recorded connection or are rebuilt. */
const NOT_REPLAYED_HEADERS = new Set([
  ...HOP_BY_HOP,
  'host',
  'content-length',
  'accept-encoding',
  'cookie',
  'proxy-authorization',
]);

const TRANSIENT_STATUS = new Set([500, 502, 503]);

/** The request to send for a recorded entry, the identifiers mapped. */
export async function outgoing(item: Item, ids: IdMap, freshToken: () => Promise<string>): Promise<Outgoing> {
  const { entry } = item;
  const [pathname, query = ''] = item.path.split(/\?(.*)/s) as [string, string?];
  const path = mapPath(pathname, ids) + (query ? `?${mapForm(query, ids)}` : '');
  const headers: [string, string][] = [];
  for (const { name, value } of entry.requestHeaders) {
    const lower = name.toLowerCase();
    if (name.startsWith(':') || NOT_REPLAYED_HEADERS.has(lower)) continue;
    if (lower === 'authorization') {
      headers.push([name, await authorization(value, ids, freshToken, refusedAsIs(entry))]);
      continue;
    }
    headers.push([name, ids.toSandbox(value)]);
  }
  // A browser's sanitized export leaves the Authorization header out: a call the service
  // did not refuse for it gets the replay partner's token.
  const isToken = pathname === TOKEN_PATH;
  if (!isToken && entry.status !== 401 && !headers.some(([n]) => n.toLowerCase() === 'authorization')) {
    headers.push(['Authorization', `Bearer ${await freshToken()}`]);
  }
  const carried = carriedScenario(entry);
  if (carried && !headerValue(entry.requestHeaders, SCENARIO_HEADER))
    headers.push([SCENARIO_HEADER, carried]);
  const mime = headerValue(entry.requestHeaders, 'content-type') ?? '';
  return { method: entry.method, path, headers, body: mapBody(entry.requestBody, mime, ids) };
}

/** The path with each segment that is a recorded identifier replaced; a segment it cannot decode (`%ff`) is sent as recorded. */
function mapPath(pathname: string, ids: IdMap): string {
  return pathname
    .split('/')
    .map((seg) => {
      const decoded = safeDecode(seg);
      return ids.has(decoded) ? encodeURIComponent(ids.toSandbox(decoded)) : seg;
    })
    .join('/');
}

/** The scenario that makes the sandbox do what the recorded service did on its own here, if any. */
function carriedScenario(entry: ReadEntry): string | undefined {
  if (isReset(entry)) return 'connection-reset';
  const applied = headerValue(entry.responseHeaders, APPLIED_HEADER);
  if (applied) return applied;
  if (entry.status === 429) {
    const after = Number(headerValue(entry.responseHeaders, 'Retry-After'));
    return Number.isInteger(after) && after > 0 ? `rate-limited=${after}` : 'rate-limited';
  }
  if (TRANSIENT_STATUS.has(entry.status)) return `server-error=${entry.status}`;
  return undefined;
}

/**
 * A 401 that no scenario made: the service refused the credential itself (a drill with a wrong
 * token), so a token it never issued is sent as recorded, and refused again.
 */
function refusedAsIs(entry: ReadEntry): boolean {
  return entry.status === 401 && carriedScenario(entry) === undefined;
}

async function authorization(
  value: string,
  ids: IdMap,
  freshToken: () => Promise<string>,
  refused: boolean,
): Promise<string> {
  const m = /^(\s*)(\S+)(\s+)(.*)$/s.exec(value);
  if (!m) return ids.toSandbox(value);
  const [, lead, scheme, gap, credential] = m as unknown as [string, string, string, string, string];
  if (ids.has(credential)) return `${lead}${scheme}${gap}${ids.toSandbox(credential)}`;
  if (scheme.toLowerCase() === 'bearer' && !refused) {
    // A token the recording never saw issued: the replay's partner gets one of its own.
    const token = await freshToken();
    ids.set(credential, token);
    return `${lead}${scheme}${gap}${token}`;
  }
  return value;
}

function mapForm(text: string, ids: IdMap): string {
  return rewriteForm(text, (_key, value) => (ids.has(value) ? ids.toSandbox(value) : undefined));
}

/** A request body with the recorded identifiers replaced: JSON string values, form values. */
function mapBody(text: string | undefined, mime: string, ids: IdMap): string | undefined {
  if (text === undefined || text === '') return text;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return /x-www-form-urlencoded/i.test(mime) ? mapForm(text, ids) : text;
  }
  let out = text;
  for (const value of stringsOf(doc)) {
    if (!ids.has(value)) continue;
    out = out.split(JSON.stringify(value)).join(JSON.stringify(ids.toSandbox(value)));
  }
  return out;
}

/**
 * Every string in a JSON document, by a loop over a stack: a body nested 100,000 deep is no
 * stack overflow, and an array of 130,000 elements is pushed one by one (spread as arguments, so
 * many overflow the call stack).
 */
function stringsOf(doc: unknown): Set<string> {
  const out = new Set<string>();
  const stack: unknown[] = [doc];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === 'string') out.add(value);
    else if (value !== null && typeof value === 'object') {
      for (const v of Object.values(value)) stack.push(v);
    }
  }
  return out;
}

/** An HTTP token (RFC 9110 §5.6.2): what a method must be. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Why a recorded request cannot be sent over HTTP/1.1 (a method that is no token, a header name
 * that is none, a control character in a header value): a hand-edited or damaged file. That
 * entry is not replayed, with the reason; the others are.
 */
export function unsendableRequest(entry: ReadEntry): string | undefined {
  if (!HTTP_TOKEN.test(entry.method)) {
    return `its method ${JSON.stringify(entry.method.slice(0, 40))} is no HTTP method`;
  }
  for (const { name, value } of entry.requestHeaders) {
    if (name.startsWith(':') || NOT_REPLAYED_HEADERS.has(name.toLowerCase())) continue;
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      return `its header ${JSON.stringify(name.slice(0, 40))} cannot be sent (a name that is no HTTP token, or a control character in the value)`;
    }
  }
  return undefined;
}
