/**
 * Where `record` sends each request (docs/drift.md): the upstream's base URL, parsed once, and
 * the target of a request path on it.
 */
import { StartupError } from '../base/startup-error.js';

export interface Upstream {
  origin: string;
  protocol: string;
  /** Host and port, as a Host header has them. */
  host: string;
  hostname: string;
  port: string;
  /** The base URL's path, no trailing slash ('' for none). */
  prefix: string;
}

/** A request's target on the upstream: the path sent, the whole URL, its query ('' for none). */
export interface Target {
  path: string;
  href: string;
  search: string;
}

export function parseUpstream(raw: string): Upstream {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StartupError(`--upstream ${raw}: not a URL (expected e.g. https://staging.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new StartupError(`--upstream ${raw}: the URL must be http or https`);
  }
  if (url.search || url.hash)
    throw new StartupError(`--upstream ${raw}: a base URL has no query or fragment`);
  return {
    origin: url.origin,
    protocol: url.protocol,
    host: url.host,
    hostname: url.hostname,
    port: url.port,
    prefix: url.pathname.replace(/\/+$/, ''),
  };
}

/** A path and query that URL parsing leaves as they are: nothing it percent-encodes, no backslash, no empty query. */
const PLAIN_TARGET = /^\/[\w\-.~!$&()*+,;=:@/%]*(?:\?[\w\-.~!$&()*+,;=:@/?%]+)?$/;
/** A segment that may be a dot segment, which URL parsing resolves. */
const DOT_SEGMENT = /\/(?:\.|%2e)/i;

/**
 * Where a request goes: the upstream's origin and base path with the request's path and query,
 * as `new URL` makes them (dot segments resolved, what it escapes escaped); a plain path, most
 * of them, is taken as it is without parsing it.
 */
export function targetOf(upstream: Upstream, path: string): Target {
  const full = upstream.prefix + path;
  if (PLAIN_TARGET.test(path) && !DOT_SEGMENT.test(full)) {
    const q = full.indexOf('?');
    return { path: full, href: upstream.origin + full, search: q === -1 ? '' : full.slice(q) };
  }
  const url = new URL(`${upstream.origin}${full}`);
  return { path: `${url.pathname}${url.search}`, href: url.href, search: url.search };
}
