/**
 * The one writer of the partnership envelope (spec §1): success and failure bodies,
 * with `request_id` also sent as `X-Request-Id`.
 */
import type { Context } from 'hono';
import type { TypedResponse } from 'hono/types';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed } from 'hono/utils/types';
import type { ApiError } from '../contract/api/errors.js';
import { additiveChanges } from './additive-answer.js';
import type { AppEnv } from './env.js';
import { commonHeaders, outcomeHeaders } from './request-context.js';

export function envelope<T>(c: Context<AppEnv>, data: T, message = 'ok') {
  const body = {
    status: 200,
    error: null,
    message,
    request_id: c.get('requestId'),
    data,
  };
  return c.get('dryRun') ? { ...body, dry_run: true as const } : body;
}

/** A 200 in the envelope. */
export function ok<T>(c: Context<AppEnv>, data: T) {
  const body = envelope(c, data);
  if (data === null || typeof data !== 'object' || !Object.isFrozen(data)) return json(c, body, 200);
  // Frozen data is a shared, immutable view (a cached controls read): serialised once,
  // then written into each envelope's text.
  let text = serialized.get(data);
  if (text === undefined) {
    text = JSON.stringify(data);
    serialized.set(data, text);
  }
  c.set('responseBody', body);
  // JSON.stringify(body) with the data's text in place, keys in the same order.
  const envelopeText =
    `{"status":200,"error":null,"message":${JSON.stringify(body.message)},` +
    `"request_id":${JSON.stringify(body.request_id)},"data":${text}${'dry_run' in body ? ',"dry_run":true}' : '}'}`;
  return send(c, 200, envelopeText) as JsonResponse<typeof body, 200>;
}

const serialized = new WeakMap<object, string>();

/** What c.json would return, so handlers keep their typed responses. */
type JsonResponse<T, S extends ContentfulStatusCode> = Response & TypedResponse<JSONParsed<T>, S, 'json'>;

/** A JSON answer, recording the body for the journal and the idempotency store. */
export function json<T, S extends ContentfulStatusCode>(
  c: Context<AppEnv>,
  body: T,
  status: S,
  headers?: Record<string, string>,
): JsonResponse<T, S> {
  c.set('responseBody', body);
  return send(c, status, JSON.stringify(body), headers) as JsonResponse<T, S>;
}

/**
 * Every answer of the partnership API and the token endpoint leaves through here, with
 * all its headers in one plain object: the common ones, the content type, the caller's
 * extras, and what the request applied or warned about. @hono/node-server writes such a
 * response without building a Fetch Headers, and requestContext has nothing to add.
 */
export function send(
  c: Context<AppEnv>,
  status: number,
  text: string,
  extra?: Record<string, string>,
): Response {
  const headers = answerHeaders(c.get('requestId'), extra);
  // The scenarios hooked on the answer itself (additive-changes), taken before the outcome
  // headers are written, so X-Sandbox-Scenario-Applied names them.
  const shaped = additiveChanges(c, text);
  if (shaped) {
    headers[shaped.header[0].toLowerCase()] = shaped.header[1];
    c.set('responseBody', shaped.text); // the journal shows what was sent
  }
  Object.assign(headers, outcomeHeaders(c));
  c.set('headersSent', true);
  c.set('responseHeaders', headers);
  c.set('responseText', text); // as the spec's fields only: what an idempotent replay sends
  return new Response(shaped?.text ?? text, { status, headers });
}

/**
 * The headers every answer starts with: the common ones (X-Request-Id, …), the JSON content
 * type and the caller's extras, lower-cased (send, and the early 429 of http/early-limit.ts).
 */
export function answerHeaders(requestId: string, extra?: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = commonHeaders(requestId);
  headers['content-type'] = 'application/json';
  if (extra) for (const name in extra) headers[name.toLowerCase()] = extra[name]!;
  return headers;
}

/** The error envelope's fields (spec §1), as errorResponse and the early 429 write them. */
export function errorEnvelope<E>(status: number, error: E, message: string, requestId: string) {
  return { status, error, message, request_id: requestId, data: null };
}

export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  const body = errorEnvelope(err.status, err.body, err.message, c.get('requestId'));
  // Spec §1: "when dry_run=true was sent, the envelope carries dry_run: true" (errors too).
  return json(
    c,
    c.get('dryRun') ? { ...body, dry_run: true } : body,
    err.status as ContentfulStatusCode,
    err.headers,
  );
}
