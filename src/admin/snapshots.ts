/** Snapshots on the control plane (docs/parallel-tests.md): save, list, restore, delete. */
import { Hono } from 'hono';
import { SnapshotSave } from '../contract/admin.js';
import type { Sandbox } from '../core/sandbox.js';
import type { AppEnv } from '../http/env.js';
import { MAX_SNAPSHOTS } from '../services/snapshots.js';
import { adminBody } from './body.js';
import { clockView } from './clock.js';

export function snapshotRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  api.post('/__sandbox/snapshots', async (c) => {
    const { name } = await adminBody(c, SnapshotSave);
    const saved = s.snapshots.save(name);
    return c.json(saved, saved.replaced ? 200 : 201);
  });

  api.get('/__sandbox/snapshots', (c) => c.json({ snapshots: s.snapshots.list(), max: MAX_SNAPSHOTS }));

  api.post('/__sandbox/snapshots/:name/restore', (c) => {
    const restored = s.snapshots.restore(c.req.param('name'));
    return c.json({ restored, clock: clockView(s) });
  });

  api.delete('/__sandbox/snapshots/:name', (c) =>
    c.json({ deleted: s.snapshots.delete(c.req.param('name')) }),
  );
  return api;
}
