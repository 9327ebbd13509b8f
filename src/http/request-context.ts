/**
 * The outermost middleware: gives every request its request_id and scenario context,
 * and on the way out writes the journal entry. Answers written by `send` (answer-writer.ts)
 * already carry every header; any other answer (control plane, docs, UI) gets the
 * common and outcome headers here, without overriding one its handler chose.
 */
import type { Context, ErrorHandler, Handler, MiddlewareHandler } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import { cutText } from '../domain/cut.js';
import { ids } from '../domain/ids.js';
import { traceOf } from '../domain/trace-context.js';
import { CHAOS_HEADER } from '../scenarios/chaos.js';
import { FaultPlan } from '../scenarios/fault-plan.js';
import { APPLIED_HEADER, parseScenarioHeader, SCENARIO_HEADER } from '../scenarios/header.js';
import type { Sandbox } from '../state/index.js';
import type { AppEnv } from './env.js';
import { requestHeader, requestHeaders } from './request-headers.js';

export const WARNING_HEADER = 'X-Sandbox-Warning';

/**
 * `refuse` answers an X-Sandbox-Scenario header the call cannot take, as the app's error
 * handler answers the error (createApp passes answer-writer.ts's errorResponse); without it the
 * error is thrown.
 */
export function requestContext(
  sandbox: Sandbox,
  refuse: (c: Context<AppEnv>, error: ApiError) => Response = (_c, error) => {
    throw error;
  },
): MiddlewareHandler<AppEnv> {
  return async function requestContext(c, next) {
    const refused = enter(sandbox, c);
    if (refused) c.res = refuse(c, refused);
    else await next();
    leave(sandbox, c);
  };
}

/**
 * What the request context does before the route: the request's ID, start and scenario
 * context; the error of an X-Sandbox-Scenario header the call cannot take.
 */
function enter(sandbox: Sandbox, c: Context<AppEnv>): ApiError | undefined {
  const path = c.req.path;
  c.set('sandbox', sandbox);
  c.set('requestId', ids.request());
  c.set('startedAt', performance.now());
  c.set('warnings', []);
  c.set('rawBody', null);
  // Spec §1: the envelope carries dry_run: true whenever dry_run=true was sent, so it is
  // read here, before any route is known: a 405, an unknown path and an unknown
  // X-Sandbox-Scenario answer with it too. The control plane has no dry run.
  c.set('dryRun', !path.startsWith('/__sandbox') && c.req.query('dry_run') === 'true');
  c.set('journaled', path.startsWith('/v1/') || path === '/oauth/token');
  // responseBody, accountId, responseText, responseHeaders, headersSent and connectionReset
  // start unset (read as undefined: false): Hono keeps c.var in a Map, and a call past 16
  // keys pays for the Map to grow (docs/performance.md).
  // The partnership API's calls (the paths Hono's `/v1/*` matches) read X-Sandbox-Scenario
  // here, not in a middleware of their own (one async step less a call); an unknown
  // scenario is answered as the error handler answers it.
  if (path === '/v1' || path.startsWith('/v1/')) return scenarioHeader(sandbox, c);
  c.set('faultPlan', new FaultPlan([], sandbox.armed, sandbox.chaos));
  return undefined;
}

/** What the request context does once the call is answered: the headers `send` did not write, the journal entry. */
function leave(sandbox: Sandbox, c: Context<AppEnv>): void {
  // A reset connection (the connection-reset scenario) has no answer to add headers
  // to; it is journaled with status 0.
  if (!c.get('connectionReset') && !c.get('headersSent')) {
    const headers = { ...commonHeaders(c.get('requestId')), ...outcomeHeaders(c) };
    for (const name in headers) if (!c.res.headers.has(name)) c.header(name, headers[name]);
  }
  if (c.get('journaled')) journal(sandbox, c, c.res);
}

/**
 * The request context and a route's one handler (a partnership read, http/pipeline.ts) as one
 * Hono handler, doing what Hono's `compose` does with the two (app.ts, http/one-step-reads.ts):
 * an error the handler throws is answered by the app's error handler (`onError`), and the
 * context then adds its headers and writes the journal entry. While the handler answers at
 * once, so does this, with no promise: @hono/node-server writes such an answer without awaiting it.
 */
export function withRequestContext(
  sandbox: Sandbox,
  refuse: (c: Context<AppEnv>, error: ApiError) => Response,
  handler: Handler<AppEnv>,
  onError: ErrorHandler<AppEnv>,
): Handler<AppEnv> {
  const answered = (c: Context<AppEnv>, res: Response | undefined, isError: boolean): Response => {
    if (res && (c.finalized === false || isError)) c.res = res;
    leave(sandbox, c);
    return c.res;
  };
  const failed = (c: Context<AppEnv>, err: unknown): Response | Promise<Response> => {
    if (!(err instanceof Error)) throw err;
    c.error = err;
    const res = onError(err, c);
    return res instanceof Promise ? res.then((r) => answered(c, r, true)) : answered(c, res, true);
  };
  return function withRequestContext(c) {
    const refused = enter(sandbox, c);
    if (refused) {
      c.res = refuse(c, refused);
      leave(sandbox, c);
      return c.res;
    }
    let res: ReturnType<Handler<AppEnv>>;
    try {
      res = handler(c, noNext);
    } catch (err) {
      return failed(c, err);
    }
    if (res instanceof Promise)
      return res.then(
        (r) => answered(c, r as Response | undefined, false),
        (err) => failed(c, err),
      );
    return answered(c, res as Response | undefined, false);
  };
}

/** The one handler has no next step (a read's handler never calls it). */
const noNext = () => Promise.resolve();

/** The call's fault plan, with the effects its X-Sandbox-Scenario header names; the error of a header it refuses. */
function scenarioHeader(sandbox: Sandbox, c: Context<AppEnv>): ApiError | undefined {
  let effects: ReturnType<typeof parseScenarioHeader>;
  try {
    effects = parseScenarioHeader(requestHeader(c, SCENARIO_HEADER), sandbox.presets);
  } catch (e) {
    c.set('faultPlan', new FaultPlan([], sandbox.armed, sandbox.chaos));
    if (e instanceof ApiError) return e;
    throw e;
  }
  c.set('faultPlan', new FaultPlan(effects, sandbox.armed, sandbox.chaos));
  return undefined;
}

/** Sent on every answer (lower-case names); a handler may override Cache-Control (static assets). */
export function commonHeaders(requestId: string): Record<string, string> {
  return {
    'x-request-id': requestId,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  };
}

/** What this request did that the client should see: scenarios applied (chaos's evidence), warnings. */
export function outcomeHeaders(c: Context<AppEnv>): Record<string, string> {
  const out: Record<string, string> = {};
  const scenarios = c.get('faultPlan');
  if (scenarios.applied.length) out[APPLIED] = scenarios.applied.join(', ');
  if (scenarios.chaos)
    out[CHAOS] = `seed=${scenarios.chaos.seed}; ${scenarios.chaos.sequence}=${scenarios.chaos.call}`;
  const warnings = c.get('warnings');
  if (warnings.length)
    out[WARNING] = cutText(warnings.map(sanitizeHeader).join(', '), WARNING_HEADER_MAX, WARNING_CUT);
  return out;
}

/**
 * The longest X-Sandbox-Warning sent: clients refuse answers whose headers pass 16 KiB in all
 * (Node's default), and a partial failure of hundreds of variants names each one. The journal
 * keeps every warning whole.
 */
export const WARNING_HEADER_MAX = 4096;
export const WARNING_CUT = ' ... (cut: GET /__sandbox/requests has the whole warning)';

const APPLIED = APPLIED_HEADER.toLowerCase();
const CHAOS = CHAOS_HEADER.toLowerCase();
const WARNING = WARNING_HEADER.toLowerCase();

function journal(sandbox: Sandbox, c: Context<AppEnv>, res: Response) {
  const parent = c.get('principal')?.parent_account_id ?? null;
  const at = sandbox.clock.now();
  sandbox.journal.add({
    at,
    partnerAt: partnerTime(sandbox, parent, at),
    method: c.req.method,
    url: c.req.url,
    headers: requestHeaders(c),
    requestBody: c.get('rawBody'),
    status: c.get('connectionReset') ? 0 : res.status,
    responseBody: c.get('responseBody'),
    responseChars: c.get('responseText')?.length,
    responseHeaders: responseHeaders(c, res),
    request_id: c.get('requestId'),
    trace: journalTrace(c),
    parent_account_id: parent,
    account_id: c.get('accountId') ?? null,
    scenarios_applied: c.get('faultPlan').applied,
    chaos: chaosEvidence(c),
    warnings: c.get('warnings'),
    duration_ms: durationMs(c.get('startedAt')),
  });
}

/**
 * A journal entry's times, for `parent` (null: no partner): one reading of the clock for both,
 * so partner_time - time is exactly the partner's offset (two readings could fall a
 * millisecond apart). Also the early 429's entry (http/early-limit.ts).
 */
export function entryTimes(
  sandbox: Sandbox,
  parent: string | null,
): { at: number; partnerAt: number | null } {
  const at = sandbox.clock.now();
  return { at, partnerAt: partnerTime(sandbox, parent, at) };
}

/** The partner's clock when the sandbox's read `at` (null: no partner). */
const partnerTime = (sandbox: Sandbox, parent: string | null, at: number) =>
  parent === null ? null : at + sandbox.clock.partnerOffsetMs(parent);

/** A call's duration for the journal: milliseconds since `startedAt` (performance.now()), to 0.01. */
export const durationMs = (startedAt: number) => Math.round((performance.now() - startedAt) * 100) / 100;

/**
 * The answer's headers for the journal: the plain object `send` wrote itself (no Fetch Headers
 * built on the way, no copy: @hono/node-server adds its `Content-Length` to it when it writes
 * the answer, which the entry leaves out, core/journal-entry.ts), else those of the Response;
 * none for a reset connection, which has no answer.
 */
function responseHeaders(c: Context<AppEnv>, res: Response): Readonly<Record<string, string>> {
  if (c.get('connectionReset')) return {};
  return c.get('responseHeaders') ?? Object.fromEntries(res.headers);
}

/** The call's trace: tracestate is looked for only when a traceparent came (most calls carry neither). */
function journalTrace(c: Context<AppEnv>) {
  const traceparent = requestHeader(c, 'traceparent');
  return traceparent === undefined ? null : traceOf(traceparent, requestHeader(c, 'tracestate'));
}

/** What the journal keeps of a chaos failure (a reset connection's included: it has no answer). */
function chaosEvidence(c: Context<AppEnv>) {
  const drawn = c.get('faultPlan').chaos;
  return drawn ? { seed: drawn.seed, [drawn.sequence]: drawn.call, scenario: drawn.scenario } : null;
}

/** Header values must be one line of visible ASCII. */
function sanitizeHeader(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, '?');
}
