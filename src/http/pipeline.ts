/**
 * The request path of each partnership route, in one place. Order:
 * endpoint → authenticate (401, token-expired) → parent header (422/403) → account (404)
 * → propagation (401/403) → JSON body (415/400) → idempotency (400/409/422, replay)
 * → injected faults → the route's zod validation (400) → handler.
 */
import type { MiddlewareHandler } from 'hono';
import type { Endpoint } from '../scenarios/catalogue.js';
import { injectFaults } from '../scenarios/inject.js';
import { loadAccount, propagation } from './account.js';
import { authenticate } from './auth.js';
import { jsonBody } from './body.js';
import type { AppEnv } from './env.js';
import { idempotency } from './idempotency.js';
import { parentHeader } from './parent.js';

export interface PipelineOptions {
  write?: boolean;
  account?: boolean;
  propagation?: boolean;
  idempotent?: boolean;
}

function forEndpoint(endpoint: Endpoint): MiddlewareHandler<AppEnv> {
  return async function forEndpoint(c, next) {
    c.get('scenarios').endpoint = endpoint;
    c.get('scenarios').accountId = c.req.param('account_id');
    c.set('dryRun', c.req.query('dry_run') === 'true');
    await next();
  };
}

export function pipeline(endpoint: Endpoint, o: PipelineOptions = {}): MiddlewareHandler<AppEnv>[] {
  const chain: MiddlewareHandler<AppEnv>[] = [
    forEndpoint(endpoint),
    authenticate,
    parentHeader(o.write ? 'write' : 'read'),
  ];
  if (o.account) chain.push(loadAccount);
  if (o.propagation) chain.push(propagation);
  if (o.write) chain.push(jsonBody);
  if (o.idempotent) chain.push(idempotency);
  chain.push(injectFaults);
  return chain;
}
