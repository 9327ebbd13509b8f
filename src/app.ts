/**
 * createApp(sandbox): middleware order, the one error handler, not-found/405, mounts.
 * Tests call `app.request()` on it; main.ts serves it.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { ErrorHandler, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { docsApi } from './api/docs.js';
import { partnershipApi } from './api/partnership.js';
import { oauthApi } from './api/token-endpoint.js';
import { ApiError, storeNotWritable } from './contract/api/errors.js';
import { registerPartnershipExtras } from './contract/api/openapi.js';
import { controlApi } from './control/routes.js';
import { routePattern } from './domain/route-pattern.js';
import { errorResponse } from './http/answer-writer.js';
import type { AppEnv } from './http/env.js';
import { OneStepReads } from './http/one-step-reads.js';
import { answerCutOff, BodyCutOff } from './http/read-body.js';
import { requestContext, withRequestContext } from './http/request-context.js';
import type { Sandbox } from './state/index.js';

export function createApp(sandbox: Sandbox) {
  const onError = errorHandler(sandbox);
  // It reads the partnership calls' X-Sandbox-Scenario header too, and answers one it refuses.
  const context = requestContext(sandbox, errorResponse);
  // Hono's own router (SmartRouter: the RegExpRouter, else the TrieRouter), which hands a
  // partnership read to Hono as one handler with the request context (http/one-step-reads.ts).
  const router = new OneStepReads(
    new SmartRouter({ routers: [new RegExpRouter(), new TrieRouter()] }),
    context,
    (read) => withRequestContext(sandbox, errorResponse, read, onError),
  );
  const app = new OpenAPIHono<AppEnv>({ router });

  app.use('*', context);

  app.route('/', oauthApi());
  app.route('/', partnershipApi());
  app.route('/', controlApi(sandbox));
  registerPartnershipExtras(app);
  app.route('/', docsApi(app));

  app.notFound((c) => {
    const allowed = allowedMethods(app, c.req.path);
    // The router is strict (a trailing slash is another path), and so is this finder: a
    // path it serves with other methods is 405; Allow never lists the method used.
    if (allowed.length && !allowed.includes(c.req.method)) {
      return errorResponse(
        c,
        new ApiError(
          'method_not_allowed',
          `Method ${c.req.method} is not allowed on ${c.req.path}; allowed: ${allowed.join(', ')}.`,
          {
            headers: { Allow: allowed.join(', ') },
            details: { allowed },
          },
        ),
      );
    }
    return errorResponse(c, new ApiError('not_found', `No route for ${c.req.method} ${c.req.path}.`));
  });

  app.onError(onError);

  return app;
}

/** Methods the app serves for this path (for 405 and Allow), from its own route table. */
function allowedMethods(app: Hono<AppEnv>, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.method === 'ALL') continue;
    if (routePattern(route.path).test(path)) methods.add(route.method);
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** The one error handler: every error a handler or stage throws is answered here. */
function errorHandler(sandbox: Sandbox): ErrorHandler<AppEnv> {
  return (err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    if (err instanceof BodyCutOff) return answerCutOff(c, err);
    if (err instanceof HTTPException && err.status < 500) {
      const code =
        err.status === 413
          ? 'payload_too_large'
          : err.status === 415
            ? 'unsupported_media_type'
            : 'validation_error';
      return errorResponse(c, new ApiError(code, err.message || 'Bad request.', { status: err.status }));
    }
    // A write the store refused (a full disk): 503 naming SANDBOX_DB, logged once a minute.
    const refused = sandbox.storeHealth.refused(err);
    if (refused) return errorResponse(c, storeNotWritable(refused));
    sandbox.log.error('unhandled error', {
      request_id: c.get('requestId'),
      method: c.req.method,
      path: c.req.path,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    return errorResponse(
      c,
      new ApiError(
        'internal_error',
        `Internal error. Quote request_id ${c.get('requestId')} when you report it.`,
      ),
    );
  };
}
