/**
 * The one writer of the partnership envelope (spec §1): success and failure bodies,
 * with `request_id` also sent as `X-Request-Id`.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ApiError } from '../contract/errors.js';
import type { AppEnv } from './env.js';

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
  return json(c, envelope(c, data), 200);
}

/** c.json, recording the body for the journal and the idempotency store. */
export function json<T, S extends ContentfulStatusCode>(c: Context<AppEnv>, body: T, status: S) {
  c.set('responseBody', body);
  return c.json(body, status);
}

export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
  const body = {
    status: err.status,
    error: err.body,
    message: err.message,
    request_id: c.get('requestId'),
    data: null,
  };
  // Spec §1: "when dry_run=true was sent, the envelope carries dry_run: true" (errors too).
  return json(c, c.get('dryRun') ? { ...body, dry_run: true } : body, err.status as ContentfulStatusCode);
}
