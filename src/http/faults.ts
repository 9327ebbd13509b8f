/**
 * The one fault-injection stage of the request path (partnership calls and the token
 * endpoint): connection-reset, latency, rate-limited and server-error. An HTTP stage, so it
 * lives with the pipeline; the scenario rules (names, values, resolution) stay in
 * src/scenarios. The other scenarios hook where the rule they bend
 * lives: token-expired in authentication, auth-propagation in account resolution and
 * registration, stale-content-hash, status-partial-failure and unseeded-mappings in
 * their services. Injected errors use the same envelope and error shape as real ones.
 */
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { ApiError, type ErrorCode } from '../contract/errors.js';
import type { FaultPlan } from '../scenarios/plan.js';
import type { AppEnv } from './env.js';
import { incoming, requestHeader } from './headers.js';

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
  // Only requests a client retries on its own (Go's net/http: a GET or HEAD, or any request
  // with an Idempotency-Key) are watched for a silent retry after a reset drill.
  const key = requestHeader(c, 'idempotency-key');
  const retriable = key !== undefined || c.req.method === 'GET' || c.req.method === 'HEAD';
  const request = retriable
    ? `${c.get('principal')?.client_id} ${c.req.method} ${c.req.path} ${key}`
    : undefined;
  if (scenarios.take('connection-reset')) {
    if (request) diagnostics.connectionReset(request, Date.now());
    c.set('connectionReset', true);
    const socket = incoming(c)?.socket;
    if (!socket) return Response.error(); // in process (app.request): a network error
    // A TCP reset (RST), not a clean close (FIN): clients see ECONNRESET (docs/fault-injection.md).
    socket.resetAndDestroy();
    return RESPONSE_ALREADY_SENT; // tells @hono/node-server there is nothing to write
  }
  const retried = request && diagnostics.afterReset(request, Date.now());
  if (retried) c.get('warnings').push(retried);
  const latency = scenarios.take('latency');
  if (latency?.value) return sleep(latency.value).then(() => answerFaults(scenarios));
  answerFaults(scenarios);
  return undefined;
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
