/**
 * The one fault-injection stage of the request path (partnership calls and the token
 * endpoint): connection-reset, latency, rate-limited and server-error. An HTTP stage, so it
 * lives with the pipeline; the scenario rules (names, values, resolution) stay in
 * src/scenarios. The other scenarios hook where the rule they bend
 * lives: token-expired in authentication, auth-propagation in account resolution and
 * registration, stale-content-hash, status-partial-failure and unseeded-mappings in
 * their services. Injected errors use the same envelope and error shape as real ones.
 */
import { createHash } from 'node:crypto';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { ApiError, type ErrorCode } from '../contract/api/errors.js';
import type { FaultPlan } from '../scenarios/fault-plan.js';
import type { AppEnv } from './env.js';
import { incoming, requestHeader } from './request-headers.js';

const serverErrors: Record<number, { code: ErrorCode; message: string }> = {
  500: {
    code: 'internal_error',
    message: 'Internal server error (injected by the server-error scenario). Nothing was applied.',
  },
  502: {
    code: 'bad_gateway',
    message: 'Bad gateway (injected by the server-error scenario). Nothing was applied.',
  },
  503: {
    code: 'service_unavailable',
    message: 'Service unavailable (injected by the server-error scenario). Nothing was applied.',
  },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function injectFaults(c: Context<AppEnv>): Response | Promise<void> | undefined {
  const scenarios = c.get('faultPlan');
  const diagnostics = c.get('sandbox').diagnostics;
  // Every request is watched for a silent resend after a reset drill: what identifies it is
  // its client, method, path and query, and its Idempotency-Key or, without one, its body
  // (a POST register has no key; libcurl resends it as it does any other request).
  if (scenarios.take('connection-reset')) {
    diagnostics.connectionReset(sameRequest(c), Date.now());
    c.set('connectionReset', true);
    const socket = incoming(c)?.socket;
    if (!socket) return Response.error(); // in process (app.request): a network error
    // A TCP reset (RST), not a clean close (FIN): clients see ECONNRESET (docs/fault-injection.md).
    socket.resetAndDestroy();
    return RESPONSE_ALREADY_SENT; // tells @hono/node-server there is nothing to write
  }
  const retried =
    diagnostics.resetsPending() &&
    diagnostics.afterReset(sameRequest(c), Date.now(), requestHeader(c, 'user-agent'));
  if (retried) c.get('warnings').push(retried);
  const latency = scenarios.take('latency');
  if (latency?.value) return sleep(latency.value).then(() => answerFaults(scenarios));
  answerFaults(scenarios);
  return undefined;
}

/** What makes a resend the same request: client, method, path and query, and key or body digest. */
function sameRequest(c: Context<AppEnv>): string {
  const key = requestHeader(c, 'idempotency-key');
  const what =
    key !== undefined
      ? `key ${key}`
      : `body ${createHash('sha256')
          .update(c.get('rawBody') ?? '')
          .digest('base64')}`;
  const query = c.req.url.indexOf('?');
  const search = query === -1 ? '' : c.req.url.slice(query);
  return `${c.get('principal')?.client_id} ${c.req.method} ${c.req.path}${search} ${what}`;
}

/** rate-limited and server-error: thrown as the envelope the real service would send. */
function answerFaults(scenarios: FaultPlan): void {
  const limited = scenarios.take('rate-limited');
  if (limited) {
    const seconds = limited.value ?? 1;
    throw new ApiError('rate_limited', `Too many requests: retry after ${seconds} s. Nothing was applied.`, {
      headers: { 'Retry-After': String(seconds) },
      details: { retry_after_seconds: seconds },
    });
  }
  const failure = scenarios.take('server-error');
  if (failure) {
    const { code, message } = serverErrors[failure.value ?? 500]!;
    throw new ApiError(code, message);
  }
}
