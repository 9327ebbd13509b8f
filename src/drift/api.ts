/**
 * The Partnership Accounts API as a recording sees it: which paths are its endpoints (the
 * spec's seven and the token endpoint), and which fields of its answers are identifiers the
 * service issues (mapped by verify, compared by type only) or timestamps (type and order);
 * and the headers that belong to one connection, which neither record nor verify passes on.
 * The paths are the contract's (src/contract/api/operations.ts: the routes the sandbox serves
 * and documents), matched as the app matches them (domain/route-pattern.ts).
 */
import { tokenRoute } from '../contract/api/oauth.js';
import { apiRoutes } from '../contract/api/operations.js';
import { routePattern } from '../domain/route-pattern.js';

/** The token endpoint's path. */
export const TOKEN_PATH = tokenRoute.path;

/** The API's paths (src/contract's routes), `{name}` segments captured by their names. */
const ROUTES = [...new Set(apiRoutes.map((r) => r.path))].map((path) => ({
  path,
  pattern: routePattern(path),
}));
const PATTERNS = ROUTES.map((r) => r.pattern);

/** The route an API path is, as the contract writes it (`/v1/partnership/accounts/{account_id}/status`). */
export function routeOf(path: string): string | undefined {
  return ROUTES.find((r) => r.pattern.test(path))?.path;
}

/** Where an API path starts in a URL path: the prefix before it (a base path), or undefined. */
export function splitApiPath(pathname: string): { prefix: string; path: string } | undefined {
  for (let at = pathname.indexOf('/'); at !== -1; at = pathname.indexOf('/', at + 1)) {
    const path = pathname.slice(at);
    if (PATTERNS.some((p) => p.test(path))) return { prefix: pathname.slice(0, at), path };
  }
  return undefined;
}

/** The identifiers an API path names (the account and the layout), by its route's parameters. */
export function pathIdentifiers(path: string): { account?: string; layout?: string } {
  for (const pattern of PATTERNS) {
    const ids = pattern.exec(path)?.groups;
    if (!ids) continue;
    return {
      ...(ids.account_id ? { account: safeDecode(ids.account_id) } : {}),
      ...(ids.layout_id ? { layout: safeDecode(ids.layout_id) } : {}),
    };
  }
  return {};
}

/**
 * A path segment decoded, or as it is when it holds an escape that is no UTF-8 (`%ff`): the
 * sandbox and the service answer such a path (a 404), so a recording may hold one.
 */
export function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Whether a string value under `key` is an identifier the service issues (or the partner names
 * once): `…_id`, `…_hash`, `…_token` fields (account_id, request_id, content_hash,
 * sent_content_hash, access_token, …) and `page_identifier`. Mapped, never compared by value.
 */
export function isIdentifierField(key: string | undefined): boolean {
  return key !== undefined && /(^|_)(id|hash|token|identifier)$/.test(key);
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Whether a string is a timestamp (ISO 8601 with a zone, as the spec's `created_at`). */
export function isTimestamp(value: unknown): value is string {
  return typeof value === 'string' && ISO_8601.test(value) && !Number.isNaN(Date.parse(value));
}

/** The answer headers compared (docs/drift.md), as they are spelled in reports. */
export const COMPARED_HEADERS = ['Retry-After', 'Idempotent-Replayed', 'WWW-Authenticate'] as const;

/** The sandbox's scenario headers, which a recording of a sandbox carries. */
export const SCENARIO_HEADER = 'X-Sandbox-Scenario';
export const APPLIED_HEADER = 'X-Sandbox-Scenario-Applied';

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, not the exchange. */
export const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
