/** The request journal on the control plane (SANDBOX.md §6, §10): list, clear, count. */
import { Hono } from 'hono';
import { CountRequest } from '../contract/admin.js';
import { validationError } from '../contract/errors.js';
import type { AppEnv } from '../http/env.js';
import type { Sandbox } from '../sandbox.js';
import { adminBody } from './body.js';

export function requestRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  api.get('/__sandbox/requests', (c) => {
    const q = c.req.query();
    const status = q.status === undefined ? undefined : Number(q.status);
    if (status !== undefined && !Number.isInteger(status)) {
      throw validationError([{ field: 'query.status', message: 'must be an integer HTTP status' }]);
    }
    const limit = q.limit === undefined ? undefined : Number(q.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw validationError([{ field: 'query.limit', message: 'must be a positive integer' }]);
    }
    const requests = s.journal.list({
      account_id: q.account_id,
      parent_account_id: q.parent_account_id,
      method: q.method,
      path: q.path,
      status,
      since: q.since,
      limit,
    });
    return c.json({ requests, max: s.journal.max });
  });

  api.delete('/__sandbox/requests', (c) => {
    s.journal.clear();
    return c.json({ cleared: true });
  });

  // "This call was made N times": the journal's filters plus a header and a body substring.
  api.post('/__sandbox/requests/count', async (c) => {
    const filter = await adminBody(c, CountRequest);
    return c.json({ count: s.journal.count(filter) });
  });
  return api;
}
