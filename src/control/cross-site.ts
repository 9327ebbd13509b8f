/**
 * The control plane refuses browser requests from any other origin (docs/where-the-spec-is-silent.md,
 * "Browser requests to the control plane"). With no
 * admin token, a web page a developer visits could otherwise `POST /__sandbox/reset` (a
 * `text/plain` form or fetch needs no preflight) or read the journal; a page served from
 * another port of localhost is another origin too (the same site), and must not either.
 *
 * Browsers say where a request comes from: `Sec-Fetch-Site`, and `Origin` on every POST
 * and on cross-origin reads. Refused with 403: `Sec-Fetch-Site: cross-site`;
 * `Sec-Fetch-Site: same-site` unless `Origin` is the request's own; an `Origin` that is not
 * the request's own (scheme, host and port: from Host, or X-Forwarded-Host and
 * X-Forwarded-Proto set by a proxy, which a page cannot send without a preflight that
 * fails); `Origin: null`. A top-level GET navigation (a link to the dashboard) is let
 * through: the page cannot read the answer (and the dashboard forbids framing).
 *
 * Non-browser clients send none of these headers and are not affected; Host is not
 * filtered (containers are reached by service names). DNS rebinding makes a page
 * same-origin, which these headers cannot tell: SANDBOX_ADMIN_TOKEN closes that too.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import { controlRoutes } from '../contract/control/control-routes.js';
import type { AppEnv } from '../http/env.js';
import { requestHeader } from '../http/request-headers.js';

export const CROSS_SITE_MESSAGE =
  'Cross-origin browser request refused: the control plane answers browser requests from its own origin only (Origin, Sec-Fetch-Site), so a web page you visit (another site, or another port of this host) cannot reset or read the sandbox. Set SANDBOX_ADMIN_TOKEN to protect it fully.';

/** `scheme://host[:port]` as a browser writes it (default port left out, host in lower case), or undefined. */
function normalOrigin(value: string): string | undefined {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** The first value of a proxy's list header (`X-Forwarded-Proto: https, http`). */
function firstValue(value: string | undefined): string | undefined {
  const first = value?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/** Where a request was sent, as seen by the browser: the request's own origin. */
export interface OwnOrigin {
  /** `http:` or `https:` (the URL's protocol, or X-Forwarded-Proto). */
  scheme: string;
  /** The Host header (or X-Forwarded-Host): host and port. */
  host: string;
}

export function isCrossSite(
  method: string,
  own: OwnOrigin,
  origin: string | undefined,
  fetchSite: string | undefined,
  fetchMode: string | undefined,
): boolean {
  if (fetchMode === 'navigate' && (method === 'GET' || method === 'HEAD')) return false;
  if (fetchSite === 'cross-site') return true;
  // Another origin of the same site (another port): refused unless its Origin is this one's.
  if (fetchSite === 'same-site' && origin === undefined) return true;
  if (origin === undefined) return false;
  const scheme = own.scheme.replace(/:$/, '');
  const expected = normalOrigin(`${scheme}://${own.host}`);
  return expected === undefined || normalOrigin(origin) !== expected;
}

export function sameSiteOnly(): MiddlewareHandler<AppEnv> {
  return async function sameSiteOnly(c, next) {
    if (c.req.path !== controlRoutes.health.path) {
      const url = new URL(c.req.url); // built from the Host header by the server
      const own = {
        scheme: firstValue(requestHeader(c, 'x-forwarded-proto')) ?? url.protocol,
        host: firstValue(requestHeader(c, 'x-forwarded-host')) ?? url.host,
      };
      if (
        isCrossSite(
          c.req.method,
          own,
          requestHeader(c, 'origin'),
          requestHeader(c, 'sec-fetch-site'),
          requestHeader(c, 'sec-fetch-mode'),
        )
      ) {
        throw new ApiError('forbidden', CROSS_SITE_MESSAGE, { details: { header: 'Origin' } });
      }
    }
    await next();
  };
}
