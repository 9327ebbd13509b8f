/** Snapshots on the control plane (docs/parallel-tests.md): save, list, restore, delete. */
import { Hono } from 'hono';
import { isolationRoutes as iso } from '../contract/control/control-routes-isolation.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import type { Sandbox } from '../state/index.js';
import { MAX_SNAPSHOTS } from '../state/index.js';
import { clockView } from './clock-routes.js';

export function snapshotRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  bind(api, iso.saveSnapshot, async (input, c) => {
    const { name } = await input.body();
    const saved = s.snapshots.save(name);
    return c.json(saved, saved.replaced ? 200 : 201);
  });

  bind(api, iso.listSnapshots, (_call, c) =>
    c.json({ snapshots: s.snapshots.list(), max: MAX_SNAPSHOTS }, 200),
  );

  bind(api, iso.restoreSnapshot, (call, c) => {
    const restored = s.snapshots.restore(call.params.name);
    return c.json({ restored, clock: clockView(s) }, 200);
  });

  bind(api, iso.deleteSnapshot, (call, c) => c.json({ deleted: s.snapshots.delete(call.params.name) }, 200));
  return api;
}
