/** Bundles on the control plane (docs/parallel-tests.md): one partner out, one partner in. */
import { Hono } from 'hono';
import { BUNDLE_LIMIT_BYTES } from '../contract/control/bundle.js';
import { isolationRoutes as iso } from '../contract/control/control-routes-isolation.js';
import type { Sandbox } from '../core/state.js';
import { bind } from '../http/bind.js';
import { controlJson } from '../http/control-body.js';
import type { AppEnv } from '../http/env.js';
import { exportBundle } from '../services/bundle-export.js';
import { importBundleInTurns } from '../services/bundles.js';

export function bundleRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  bind(api, iso.exportBundle, (call, c) => {
    const parent = call.params.parent_account_id;
    const bundle = exportBundle(s, parent);
    const file = `sandbox-bundle-${parent.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
    return c.json(bundle, 200, { 'Content-Disposition': `attachment; filename="${file}"` });
  });

  bind(api, iso.importBundle, async (_call, c) => {
    const json = await controlJson(c, BUNDLE_LIMIT_BYTES);
    return c.json({ imported: await importBundleInTurns(s, json) }, 200);
  });
  return api;
}
