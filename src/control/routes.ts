/**
 * The control plane (docs/control-plane.md, docs/parallel-tests.md): plain JSON in and out. Protected by
 * `Authorization: Bearer $SANDBOX_ADMIN_TOKEN` when that is set (health stays open), when a
 * partner's access token opens the routes declared for it, acting for that partner alone
 * (http/control-access.ts, docs/hosting.md).
 * Errors use the same error envelope as the partnership API. This file holds the caller's stage,
 * health, the global reset and the report, and mounts one module per resource.
 */
import { Hono } from 'hono';
import { accessOf } from '../contract/control/access.js';
import { controlRoutes as op } from '../contract/control/control-routes.js';
import { CONTROL_ROUTES } from '../contract/control/control-routes-all.js';
import { buildReport, reportToJUnit } from '../core/report.js';
import { probeWrite } from '../core/store-health.js';
import { bind } from '../http/bind.js';
import { controlCaller } from '../http/control-access.js';
import type { AppEnv } from '../http/env.js';
import { partnerOr404 } from '../services/lookup.js';
import type { Sandbox } from '../state/index.js';
import { isUiShellPath, uiApi } from '../ui/shell.js';
import { accountRoutes } from './account-routes.js';
import { bundleRoutes } from './bundle-routes.js';
import { chaosRoutes } from './chaos-routes.js';
import { clockRoutes, clockView } from './clock-routes.js';
import { sameSiteOnly } from './cross-site.js';
import { noDotSegments } from './dot-segments.js';
import { pactApi } from './pact-routes.js';
import { partnerRoutes } from './partner-routes.js';
import { requestRoutes } from './request-routes.js';
import { scenarioRoutes } from './scenario-routes.js';
import { snapshotRoutes } from './snapshot-routes.js';

export { accountDetail } from '../services/accounts.js';
export { clockView } from './clock-routes.js';

/** The paths served without a token: the declarations open to anyone (health), and the dashboard's shell. */
const OPEN_PATHS: ReadonlySet<string> = new Set(
  CONTROL_ROUTES.filter((route) => accessOf(route) === 'open').map((route) => route.path),
);
// The dashboard shell (/__sandbox/ui and its JS and CSS) holds no data: served without the token.
const isOpenPath = (path: string) => OPEN_PATHS.has(path) || isUiShellPath(path);

export function controlApi(sandbox: Sandbox) {
  const api = new Hono<AppEnv>();
  const s = sandbox;
  api.use('/__sandbox/*', sameSiteOnly(), controlCaller(s.config.adminToken, isOpenPath), noDotSegments());

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
  api.route('/', pactApi(s));
  return api;
}
