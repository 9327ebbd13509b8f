/**
 * The request path of each partnership route, in one place. Order:
 * endpoint → authenticate (401, token-expired; the partner known, its chaos profile draws
 * the call's failure, taken by the hooks below like any scenario) → parent header (422/403) → account (404)
 * → propagation (401/403) → JSON body (415/400) → idempotency (400/409/422, replay)
 * → injected faults → the route's zod validation (400) → a write's room (403) → handler
 * → idempotency settled, the partner's stored bytes counted.
 *
 * The stages are plain functions run in turn by one middleware per route (not one Hono
 * middleware each): a stage throws an ApiError to answer with an error, or returns a
 * Response to answer itself (an idempotent replay, a reset connection).
 */
import type { RouteConfig } from '@hono/zod-openapi';
import type { Context, Handler, MiddlewareHandler } from 'hono';
import type { Needs } from '../contract/api/operation.js';
import type { Endpoint } from '../scenarios/catalogue.js';
import { loadAccount, propagation } from './account.js';
import { authenticate } from './auth.js';
import { jsonBody } from './body.js';
import type { AppEnv } from './env.js';
import { injectFaults } from './faults.js';
import { claimKey, settleKey } from './idempotency.js';
import { parentHeader } from './parent.js';
import { room, roomUsed } from './room.js';
import { validateRequest } from './validation.js';

/** The stages a route runs follow from its declared needs (contract/api/operation.ts). */
export type PipelineOptions = Pick<Needs, 'write' | 'account' | 'propagation' | 'idempotent'>;

// biome-ignore lint/suspicious/noConfusingVoidType: a stage that lets the request through returns nothing, and void lets it say so without `return undefined`
type Stage = (c: Context<AppEnv>) => Response | undefined | void | Promise<Response | undefined | void>;

function begin(endpoint: Endpoint): Stage {
  return function begin(c) {
    const scenarios = c.get('faultPlan');
    scenarios.endpoint = endpoint;
  };
}

function stages(endpoint: Endpoint, route: RouteConfig, o: PipelineOptions): Stage[] {
  const list: Stage[] = [begin(endpoint), authenticate, parentHeader(o.write ? 'write' : 'read')];
  if (o.account) list.push(loadAccount);
  if (o.propagation) list.push(propagation);
  if (o.write) list.push(jsonBody);
  if (o.idempotent) list.push(claimKey);
  list.push(injectFaults, validateRequest(route.request));
  // Last: a write the partner has no room for (403) is refused once it is known to be valid.
  if (o.write) list.push(room);
  return list;
}

/**
 * A reset or restore (or a reset or bundle import of this request's partner) happened
 * while this request awaited (its body, a latency drill): what it read before is gone, so
 * it starts over against the new state. The body it read is kept; the key it reserved was
 * wiped with the rest.
 */
function startOver(c: Context<AppEnv>): void {
  c.set('principal', undefined);
  c.set('account', undefined);
  c.set('accountId', undefined);
  c.set('idempotencyKey', undefined);
  c.set('warnings', []);
  c.set('faultPlan', c.get('faultPlan').fresh());
}

/**
 * What runs a route's stages, then its handler: Hono's handlers for the route. The handler and the
 * stages after the last await run in one synchronous stretch, so a reset can only fall
 * between stages: the request then starts over, and sees the state before the reset or
 * after it, never a mix.
 *
 * A read (no write, no idempotency key: nothing to settle once answered) with its `handler`
 * is one function, the handler called at the end of its stages, and while no stage awaits
 * it runs without a promise of its own (the controls GET). A write settles its key and counts
 * its room from the answer, an error the handler threw included, so its handler stays
 * Hono's next step, whose errors the app's error handler has turned into that answer.
 */
export function pipeline(
  endpoint: Endpoint,
  route: RouteConfig,
  o: PipelineOptions,
  handler: Handler<AppEnv>,
): [MiddlewareHandler<AppEnv>] | [MiddlewareHandler<AppEnv>, Handler<AppEnv>] {
  const list = stages(endpoint, route, o);
  if (!o.write && !o.idempotent) {
    const serve = (c: Context<AppEnv>) => {
      // The scenarios its services hook, resolved once, in the handler's synchronous stretch.
      c.set('faults', c.get('faultPlan').serviceFaults());
      return handler(c, noNext);
    };
    const read: MiddlewareHandler<AppEnv> = function read(c) {
      const sandbox = c.get('sandbox');
      const epoch = sandbox.epoch;
      for (let i = 0; i < list.length; i++) {
        const out = list[i]!(c);
        const held = sandbox.gate.heldFor(c.get('principal')?.parent_account_id);
        if (out instanceof Promise || held || sandbox.epoch !== epoch)
          return runStages(c, list, i + 1, out, epoch).then((answer) => answer ?? serve(c));
        if (out) return out;
      }
      return serve(c);
    };
    oneStepReads.add(read);
    return [read];
  }
  const write: MiddlewareHandler<AppEnv> = async function pipeline(c, next) {
    let answer: Response | undefined;
    try {
      answer = await runStages(c, list, 0, undefined, c.get('sandbox').epoch);
      if (answer) return answer;
      c.set('faults', c.get('faultPlan').serviceFaults());
      await next();
      answer = c.res;
    } finally {
      const key = c.get('idempotencyKey') ?? null;
      const saved = o.idempotent ? settleKey(c, answer) : true;
      if (o.write) roomUsed(c, answer, saved ? key : undefined);
    }
  };
  return [write, handler];
}

/**
 * The reads' one handlers: each answers without a next step and, while no stage awaits,
 * at once, so the app may run it with the request context as one handler (http/one-step-reads.ts).
 */
export const oneStepReads = new WeakSet<MiddlewareHandler<AppEnv>>();

/** A read's handler has no next step: Hono's own would answer 404. */
const noNext = () => Promise.resolve();

/**
 * The stages from `from` on, `pending` what the stage before it returned (from 0: none ran
 * yet); the answer a stage gave, or undefined when every stage let the call through.
 */
async function runStages(
  c: Context<AppEnv>,
  list: readonly Stage[],
  from: number,
  pending: ReturnType<Stage>,
  since: number,
): Promise<Response | undefined> {
  const sandbox = c.get('sandbox');
  let epoch = since;
  let out = pending;
  let i = from;
  for (;;) {
    if (i > 0) {
      // After stage i - 1:
      if (out instanceof Promise) out = await out;
      // Its partner is being swapped in by a large import (state/bundles/swap-gate.ts): it waits, then
      // finds the new partner's state below.
      const held = sandbox.gate.heldFor(c.get('principal')?.parent_account_id);
      if (held) await held;
      if (sandbox.epoch !== epoch) {
        // A reset, restore or import came while it awaited: did it replace this request's state?
        const wiped = sandbox.wipedSince(epoch, c.get('principal')?.parent_account_id);
        epoch = sandbox.epoch;
        if (wiped) {
          startOver(c);
          i = 0;
          continue;
        }
      }
      if (out) return out;
    }
    if (i === list.length) return undefined;
    out = list[i]!(c);
    i++;
  }
}
