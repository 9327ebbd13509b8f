/**
 * The control plane (docs/control-plane.md, docs/parallel-tests.md): plain JSON in and out. Protected by
 * `Authorization: Bearer $SANDBOX_ADMIN_TOKEN` when that is set (health stays open).
 * Errors use the same error envelope as the partnership API. This file holds the guard,
 * health, the global reset and the report, and mounts one module per resource.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import { controlRoutes as op } from '../contract/control/control-routes.js';
import { buildReport, reportToJUnit } from '../core/report.js';
import type { Sandbox } from '../core/state.js';
import { probeWrite } from '../core/store-health.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import { parseBearer, requestHeader } from '../http/headers.js';
import { secretsEqual } from '../services/auth.js';
import { partnerOr404 } from '../services/lookup.js';
import { isUiShellPath, uiApi } from '../ui/index.js';
import { accountRoutes } from './accounts.js';
import { bundleRoutes } from './bundles.js';
import { chaosRoutes } from './chaos.js';
import { clockRoutes, clockView } from './clock.js';
import { sameSiteOnly } from './cross-site.js';
import { noDotSegments } from './dot-segments.js';
import { partnerRoutes } from './partners.js';
import { requestRoutes } from './requests.js';
import { scenarioRoutes } from './scenarios.js';
import { snapshotRoutes } from './snapshots.js';

export { accountDetail } from '../services/accounts.js';
export { clockView } from './clock.js';

function controlAuth(token: string | undefined): MiddlewareHandler<AppEnv> {
  return async function controlAuth(c, next) {
    // The dashboard shell (/__sandbox/ui and its JS and CSS) holds no data: served without the token.
    if (token && c.req.path !== op.health.path && !isUiShellPath(c.req.path)) {
      const sent = parseBearer(requestHeader(c, 'authorization'));
      if (!sent || !secretsEqual(sent, token)) {
        throw new ApiError(
          'unauthorized',
          'The control plane needs Authorization: Bearer <SANDBOX_ADMIN_TOKEN>.',
          {
            headers: { 'WWW-Authenticate': 'Bearer realm="sandbox-control-plane"' },
          },
        );
      }
    }
    await next();
  };
}

export function controlApi(sandbox: Sandbox) {
  const api = new Hono<AppEnv>();
  const s = sandbox;
  api.use('/__sandbox/*', sameSiteOnly(), controlAuth(s.config.adminToken), noDotSegments());

  // 200 even while the store refuses writes: a restart frees no disk space, and reads still work.
  bind(api, op.health, (_call, c) =>
    c.json(
      {
        status: 'ok' as const,
        ...(s.config.cell === undefined ? {} : { cell: s.config.cell }),
        store: s.storeHealth.view(() => probeWrite(s.store)),
      },
      200,
    ),
  );

  bind(api, op.reset, (_call, c) => {
    s.reset();
    return c.json({ reset: true, clock: clockView(s) }, 200);
  });

  bind(api, op.getReport, ({ query }, c) => {
    const { parent_account_id: parent, format = 'json' } = query;
    partnerOr404(s, parent);
    // The partner's own ring: the report reads entries filed under its parent only.
    const entries = s.journal.list({ parent_account_id: parent });
    const report = buildReport(parent, entries, s.clock.iso(parent), s.config.cell);
    if (format === 'junit')
      return c.body(reportToJUnit(report), 200, { 'Content-Type': 'application/xml; charset=utf-8' });
    return c.json(report, 200);
  });

  api.route('/', partnerRoutes(s));
  api.route('/', clockRoutes(s));
  api.route('/', accountRoutes(s));
  api.route('/', requestRoutes(s));
  api.route('/', snapshotRoutes(s));
  api.route('/', bundleRoutes(s));
  api.route('/', uiApi(s));
  api.route('/', scenarioRoutes(s));
  api.route('/', chaosRoutes(s));
  return api;
}
