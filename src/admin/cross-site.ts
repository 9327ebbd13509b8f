/**
 * The control plane refuses cross-site browser requests (issue 14 B14). With no admin
 * token, a web page a developer visits could otherwise `POST /__sandbox/reset` (a
 * `text/plain` form or fetch needs no preflight) or read the journal. Browsers say where a
 * request comes from: `Sec-Fetch-Site`, and `Origin` on every POST and on cross-origin
 * reads. A request whose source is another site is refused with 403; a top-level GET
 * navigation (a link to the dashboard) is let through, since the page cannot read the
 * answer. Non-browser clients send neither header and are not affected; Host is not
 * filtered (containers are reached by service names). DNS rebinding makes a page
 * same-origin, which these headers cannot tell: SANDBOX_ADMIN_TOKEN closes that too.
 */
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../contract/errors.js';
import type { AppEnv } from '../http/env.js';
import { requestHeader } from '../http/headers.js';

export const CROSS_SITE_MESSAGE =
  'Cross-site browser request refused: the control plane answers browser requests from its own site only (Origin, Sec-Fetch-Site), so a web page you visit cannot reset or read the sandbox. Set SANDBOX_ADMIN_TOKEN to protect it fully.';

/** The host name of a Host header or an origin, without port or brackets. */
function hostname(value: string): string {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return '';
  }
}

export function isCrossSite(
  method: string,
  host: string | undefined,
  origin: string | undefined,
  fetchSite: string | undefined,
  fetchMode: string | undefined,
): boolean {
  if (fetchMode === 'navigate' && (method === 'GET' || method === 'HEAD')) return false;
  if (fetchSite === 'cross-site') return true;
  if (origin === undefined) return false;
  if (origin === 'null') return true; // sandboxed frames, file: pages
  return hostname(origin) !== hostname(host ?? '');
}

export function sameSiteOnly(): MiddlewareHandler<AppEnv> {
  return async function sameSiteOnly(c, next) {
    if (
      c.req.path !== '/__sandbox/health' &&
      isCrossSite(
        c.req.method,
        new URL(c.req.url).host, // built from the Host header by the server
        requestHeader(c, 'origin'),
        requestHeader(c, 'sec-fetch-site'),
        requestHeader(c, 'sec-fetch-mode'),
      )
    ) {
      throw new ApiError('forbidden', CROSS_SITE_MESSAGE, { details: { header: 'Origin' } });
    }
    await next();
  };
}
