/** The request journal on the control plane (docs/control-plane.md, docs/parallel-tests.md): list, clear, count. */
import { Hono } from 'hono';
import { CountRequest, JournalQuery } from '../contract/admin.js';
import { controlRoutes as op } from '../contract/control-routes.js';
import { isolationRoutes as iso } from '../contract/control-routes-isolation.js';
import { validationError } from '../contract/errors.js';
import { issuesToFields } from '../contract/issues.js';
import type { Sandbox } from '../core/sandbox.js';
import type { AppEnv } from '../http/env.js';
import { bind } from './bind.js';
import { adminBody } from './body.js';

export function requestRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  bind(api, op.listRequests, (c) => {
    const parsed = JournalQuery.safeParse(c.req.query());
    if (!parsed.success) {
      throw validationError(
        issuesToFields(parsed.error.issues).map((f) => ({ ...f, field: `query.${f.field}` })),
      );
    }
    return c.json({ requests: s.journal.list(parsed.data), max: s.journal.max });
  });

  bind(api, op.clearRequests, (c) => {
    s.journal.clear();
    return c.json({ cleared: true });
  });

  // "This call was made N times": the journal's filters plus a header and a body substring.
  bind(api, iso.countRequests, async (c) => {
    const filter = await adminBody(c, CountRequest);
    const count = s.journal.count(filter);
    // body_contains searches what the journal kept of each body: say how many it could not search whole.
    if (filter.body_contains === undefined) return c.json({ count });
    return c.json({ count, bodies_truncated: s.journal.countCut(filter) });
  });
  return api;
}
