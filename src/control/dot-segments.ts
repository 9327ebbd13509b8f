/**
 * The control plane refuses a request target with a dot segment. URL parsers (the WHATWG
 * URL of fetch, and the one @hono/node-server builds the request with) resolve `.` and
 * `..`, percent-encoded too (`%2E%2E`), before any route is matched: the raw target
 * `POST /__sandbox/partners/%2E%2E/reset` arrives as `POST /__sandbox/reset`, the global
 * reset that wipes every partner. So the target as it came off the wire is read (Node's
 * `incoming.url`), and one with such a segment is 400: what was meant cannot be known, and
 * no identifier of the sandbox is `.` or `..` (they are refused where they are created).
 * In-process (`app.request()`), the target was resolved by the caller's URL already.
 */
import type { MiddlewareHandler } from 'hono';
import { validationError } from '../contract/api/errors.js';
import type { AppEnv } from '../http/env.js';
import { incoming } from '../http/request-headers.js';

export const DOT_SEGMENT_MESSAGE =
  'has a "." or ".." segment (percent-encoded or not), which URLs resolve to another path; no sandbox identifier is "." or ".."';

/** Whether a raw request target's path has a `.` or `..` segment, as the WHATWG URL parser sees them. */
export function hasDotSegment(target: string): boolean {
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  return path.split(/[/\\]/).some((segment) => {
    const plain = segment.replace(/%2e/gi, '.');
    return plain === '.' || plain === '..';
  });
}

export function noDotSegments(): MiddlewareHandler<AppEnv> {
  return async function noDotSegments(c, next) {
    const target = incoming(c)?.url;
    if (target !== undefined && hasDotSegment(target)) {
      throw validationError([{ field: 'path', message: DOT_SEGMENT_MESSAGE }]);
    }
    await next();
  };
}
