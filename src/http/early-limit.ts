/**
 * A call past its partner's fair share, answered before the app (docs/hosting.md#limits-and-what-a-partner-sees-past-them).
 *
 * The limit is checked in authenticate (http/auth.ts), after the request context, routing and
 * the first pipeline stage: for a partner sending as fast as it can, that is most of what a
 * limited call costs. Once a call with a valid token was limited there, its Authorization
 * header is noted with its partner (noteLimited); the next calls with that header are
 * recognised here, in Node's request listener, before a Fetch Request or a Hono Context is
 * built, and answered with the same bytes the app would send (status, envelope, headers,
 * Retry-After) and the same journal entry. Calls without an Authorization header are answered
 * here while the bucket of calls of no known partner is empty.
 *
 * Nothing is trusted from the note but which partner to ask about: each call's token is
 * verified again as authenticate verifies it (the store's token lookup, the partner's clock),
 * so a token that expired, a clock moved, a partner reset, deleted or imported, a store
 * restored, all answer here as they do in the app, or fall through to it. Anything the app
 * would answer otherwise before the limit, or could shape the answer (a query, a body, an
 * X-Sandbox-Scenario header, an armed scenario, repeated Authorization lines, a path that is
 * not a partnership route, a partner being swapped in) falls through to the app unchanged, and
 * so does every call not limited: what they pay here is one Map lookup at most.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorStatus } from '../contract/api/errors.js';
import { operations } from '../contract/api/operations.js';
import { NO_PARTNER, type RateLimiter } from '../core/rate-limit.js';
import { ids } from '../domain/ids.js';
import { routePattern } from '../domain/route-pattern.js';
import { traceOf } from '../domain/trace-context.js';
import { SCENARIO_HEADER } from '../scenarios/header.js';
import { verifyToken } from '../services/tokens.js';
import type { Sandbox } from '../state/index.js';
import { answerHeaders, errorEnvelope } from './answer-writer.js';
import { limitedParts } from './rate-limit-check.js';
import { durationMs, entryTimes } from './request-context.js';
import { parseBearer } from './request-headers.js';

interface Early {
  /** Authorization header -> the partner whose call with it was last limited. */
  limited: Map<string, string>;
  /** Calls answered here (tests read it: the fast path was taken). */
  answered: number;
}

/** Notes past this many are dropped at once (a note costs a call through the app to rebuild). */
const NOTES_MAX = 10_000;

const early = new WeakMap<RateLimiter, Early>();

function earlyOf(limiter: RateLimiter): Early {
  let state = early.get(limiter);
  if (!state) {
    state = { limited: new Map(), answered: 0 };
    early.set(limiter, state);
  }
  return state;
}

/** authenticate limited a call with a valid token: later calls with this header are answered before the app. */
export function noteLimited(limiter: RateLimiter, authorization: string, partner: string): void {
  const { limited } = earlyOf(limiter);
  if (limited.size >= NOTES_MAX) limited.clear();
  limited.set(authorization, partner);
}

/** How many limited calls were answered before the app. */
export function earlyAnswers(limiter: RateLimiter): number {
  return earlyOf(limiter).answered;
}

/** The partnership routes, as the app routes them (method, path). */
const routes = Object.values(operations).map((op) => ({
  method: op.route.method.toUpperCase(),
  pattern: routePattern(op.route.path),
}));

const SCENARIO = SCENARIO_HEADER.toLowerCase();

/**
 * The listener's check, or undefined without SANDBOX_RATE_LIMIT: true when it answered the
 * call (a 429), false to let the app serve it.
 */
export function earlyLimit(
  sandbox: Sandbox,
): ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined {
  if (!sandbox.rateLimit) return undefined;
  return function earlyLimit(req, res) {
    // The sandbox's limiter as it is now (a test gives it a clock held still after start-up).
    const limiter = sandbox.rateLimit!;
    const state = earlyOf(limiter);
    const { limited } = state;
    const authorization = req.headers.authorization;
    let partner: string | undefined;
    if (authorization !== undefined) {
      if (limited.size === 0) return false;
      partner = limited.get(authorization);
      if (partner === undefined) return false;
    } else {
      if (!req.url?.startsWith('/v1/') || limiter.short(NO_PARTNER) === 0) return false;
      partner = NO_PARTNER;
    }
    const answer = limitedAnswer(sandbox, limiter, req, partner, authorization);
    if (answer === undefined) {
      if (authorization !== undefined) limited.delete(authorization);
      return false;
    }
    state.answered++;
    res.writeHead(429, answer.head);
    res.end(answer.text);
    return true;
  };
}

/** The 429 the app would send this call, taken from the bucket and journaled; undefined if the app must serve it. */
function limitedAnswer(
  sandbox: Sandbox,
  limiter: RateLimiter,
  req: IncomingMessage,
  partner: string,
  authorization: string | undefined,
) {
  const startedAt = performance.now();
  if (!plainCall(sandbox, req)) return undefined;
  const url = partnershipUrl(req);
  if (url === null) return undefined;
  const sent = headersOf(req.rawHeaders);
  // Repeated Authorization lines reach the app joined (http/request-headers.ts): it decides.
  if (sent.authorization !== authorization) return undefined;
  if (authorization !== undefined) {
    const token = parseBearer(authorization);
    const check = token === undefined ? undefined : verifyToken(sandbox, token);
    if (!check?.ok || check.principal.parent_account_id !== partner) return undefined;
    // Being swapped in by a large import: the app holds the call, then starts it over.
    if (sandbox.gate.heldFor(partner)) return undefined;
  }
  const seconds = limiter.short(partner);
  if (seconds === 0) return undefined;
  const { message, headers: extra, details } = limitedParts(limiter, seconds);

  // errorResponse and send (http/answer-writer.ts), for an answer no scenario shapes.
  const requestId = ids.request();
  const status = errorStatus.rate_limited;
  const body = errorEnvelope(status, { code: 'rate_limited', details }, message, requestId);
  const text = JSON.stringify(body);
  const headers = answerHeaders(requestId, extra);
  // requestContext's journal entry (http/request-context.ts).
  const parent = partner === NO_PARTNER ? null : partner;
  sandbox.journal.add({
    ...entryTimes(sandbox, parent),
    method: req.method!,
    url,
    headers: req.rawHeaders,
    requestBody: null,
    status,
    responseBody: body,
    responseChars: text.length,
    responseHeaders: headers, // its Content-Length below is left out of the entry, as the app's
    request_id: requestId,
    trace: sent.traceparent === undefined ? null : traceOf(sent.traceparent, sent.tracestate),
    parent_account_id: parent,
    account_id: null,
    scenarios_applied: [],
    chaos: null,
    warnings: [],
    duration_ms: durationMs(startedAt),
  });
  // What @hono/node-server adds to an answer written from a plain object.
  headers['Content-Length'] = String(Buffer.byteLength(text));
  return { head: headers, text };
}

/** Whether nothing before the limit would answer otherwise or shape the 429: no body, no scenario header, nothing armed. */
function plainCall(sandbox: Sandbox, req: IncomingMessage): boolean {
  const headers = req.headers;
  const length = headers['content-length'];
  return (
    headers[SCENARIO] === undefined &&
    headers['transfer-encoding'] === undefined &&
    (length === undefined || length === '0') &&
    sandbox.armed.empty &&
    !(req.socket as { encrypted?: boolean }).encrypted
  );
}

/** Method, Host and target -> the URL the app sees, or null: the few a limited partner sends, kept. */
const urls = new Map<string, string | null>();
const URLS_MAX = 1000;

/**
 * The call's URL as the app sees it (@hono/node-server's newRequest), when it is a partnership
 * route without a query (dry_run shapes the envelope) nor a percent-escape; else null.
 */
function partnershipUrl(req: IncomingMessage): string | null {
  const target = req.url ?? '';
  const host = req.headers.host ?? '';
  const key = `${req.method} ${host} ${target}`;
  let url = urls.get(key);
  if (url === undefined) {
    url = parseUrl(req.method!, host, target);
    if (urls.size >= URLS_MAX) urls.clear();
    urls.set(key, url);
  }
  return url;
}

function parseUrl(method: string, host: string, target: string): string | null {
  if (target[0] !== '/' || /[\\?%#]/.test(target) || !host) return null;
  let url: URL;
  try {
    url = new URL(`http://${host}${target}`);
  } catch {
    return null;
  }
  if (url.hostname.length !== host.length && url.hostname !== host.replace(/:\d+$/, '')) return null;
  if (url.search !== '' || url.hash !== '') return null;
  const path = url.pathname;
  return routes.some((r) => r.method === method && r.pattern.test(path)) ? url.href : null;
}

/** The request headers the answer depends on, in one pass, repeated lines joined as the app joins them. */
function headersOf(raw: readonly string[]) {
  let authorization: string | undefined;
  let traceparent: string | undefined;
  let tracestate: string | undefined;
  const join = (value: string | undefined, more: string) =>
    value === undefined ? more : `${value}, ${more}`;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization')
      authorization = join(authorization, raw[i + 1]!);
    else if (name.length === 11 && name.toLowerCase() === 'traceparent')
      traceparent = join(traceparent, raw[i + 1]!);
    else if (name.length === 10 && name.toLowerCase() === 'tracestate')
      tracestate = join(tracestate, raw[i + 1]!);
  }
  return { authorization, traceparent, tracestate };
}
