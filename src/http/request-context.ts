/**
 * The outermost middleware: gives every request its request_id and scenario context,
 * and on the way out sets the common headers and writes the journal entry.
 */
import type { MiddlewareHandler } from 'hono';
import { ids } from '../domain/ids.js';
import { redactBody, redactHeaders } from '../journal.js';
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
    c.set('replayed', false);
    c.set('journaled', path.startsWith('/v1/') || path === '/oauth/token');
    c.set('scenarios', new ScenarioContext([], sandbox.armed));

    await next();

    const res = c.res;
    // @hono/node-server's lightweight Response forgets header changes made before it is
    // first materialised (clone(), body, text()); materialise it first. The journal
    // needs the body anyway.
    let responseBody: string | null = null;
    if (c.var.journaled) responseBody = await jsonText(res);
    else void res.body;
    res.headers.set('X-Request-Id', requestId);
    res.headers.set('X-Content-Type-Options', 'nosniff');
    res.headers.set('Referrer-Policy', 'no-referrer');
    if (!res.headers.has('Cache-Control')) res.headers.set('Cache-Control', 'no-store');
    const applied = c.var.scenarios.applied;
    if (applied.length) res.headers.set(APPLIED_HEADER, applied.join(', '));
    for (const w of c.var.warnings) res.headers.append(WARNING_HEADER, sanitizeHeader(w));
    if (c.var.journaled) journal(sandbox, c, res, responseBody);
  };
}

async function jsonText(res: Response): Promise<string | null> {
  return (res.headers.get('content-type') ?? '').includes('json') ? await res.clone().text() : null;
}

/** Header values must be one line of visible ASCII. */
function sanitizeHeader(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?');
}

function journal(
  sandbox: Sandbox,
  c: Parameters<MiddlewareHandler<AppEnv>>[0],
  res: Response,
  responseBody: string | null,
) {
  const url = new URL(c.req.url);
  sandbox.journal.add({
    time: sandbox.clock.iso(),
    method: c.req.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    request_headers: redactHeaders(c.req.raw.headers),
    request_body: redactBody(c.var.rawBody),
    status: res.status,
    response_body: redactBody(responseBody),
    request_id: c.var.requestId,
    parent_account_id: c.var.principal?.parent_account_id ?? null,
    account_id: c.var.account?.account_id ?? c.var.scenarios.accountId ?? null,
    scenarios_applied: [...c.var.scenarios.applied],
    warnings: [...c.var.warnings],
    duration_ms: Math.round((performance.now() - c.var.startedAt) * 100) / 100,
  });
}
