/**
 * The outermost middleware: gives every request its request_id and scenario context,
 * and on the way out sets the common headers and writes the journal entry.
 */
import type { MiddlewareHandler } from 'hono';
import { ids } from '../domain/ids.js';
import type { Sandbox } from '../sandbox.js';
import { APPLIED_HEADER, ScenarioContext } from '../scenarios/context.js';
import type { AppEnv } from './env.js';

export const WARNING_HEADER = 'X-Sandbox-Warning';

export function requestContext(sandbox: Sandbox): MiddlewareHandler<AppEnv> {
  return async function requestContext(c, next) {
    const requestId = ids.request();
    const path = c.req.path;
    c.set('sandbox', sandbox);
    c.set('requestId', requestId);
    c.set('startedAt', performance.now());
    c.set('warnings', []);
    c.set('rawBody', null);
    c.set('dryRun', false);
    c.set('journaled', path.startsWith('/v1/') || path === '/oauth/token');
    c.set('scenarios', new ScenarioContext([], sandbox.armed));
    c.set('responseBody', undefined);
    // Headers known now go in before the response exists (no copy of it later).
    for (const [name, value] of Object.entries(commonHeaders(requestId))) c.header(name, value);

    await next();

    // Headers known only now (scenarios applied, warnings) are added to the response.
    const res = c.res;
    const applied = c.get('scenarios').applied;
    if (applied.length) res.headers.set(APPLIED_HEADER, applied.join(', '));
    for (const w of c.get('warnings')) res.headers.append(WARNING_HEADER, sanitizeHeader(w));
    if (c.get('journaled')) journal(sandbox, c, res);
  };
}

/** Sent on every answer; a handler may override Cache-Control (static assets). */
export function commonHeaders(requestId: string): Record<string, string> {
  return {
    'X-Request-Id': requestId,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  };
}

function journal(sandbox: Sandbox, c: Parameters<MiddlewareHandler<AppEnv>>[0], res: Response) {
  sandbox.journal.add({
    at: sandbox.clock.now(),
    method: c.req.method,
    url: c.req.url,
    headers: c.req.raw.headers,
    requestBody: c.get('rawBody'),
    status: res.status,
    responseBody: c.get('responseBody'),
    request_id: c.get('requestId'),
    parent_account_id: c.get('principal')?.parent_account_id ?? null,
    account_id: c.get('account')?.account_id ?? c.get('scenarios').accountId ?? null,
    scenarios_applied: c.get('scenarios').applied,
    warnings: c.get('warnings'),
    duration_ms: Math.round((performance.now() - c.get('startedAt')) * 100) / 100,
  });
}

/** Header values must be one line of visible ASCII. */
function sanitizeHeader(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?');
}
