/** The request journal on the control plane (docs/control-plane.md, docs/parallel-tests.md): list, clear, count. */
import { Hono } from 'hono';
import { controlRoutes as op } from '../contract/control/control-routes.js';
import { isolationRoutes as iso } from '../contract/control/control-routes-isolation.js';
import type { Sandbox } from '../core/state.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';

/**
 * A journal filter narrowed to a partner's own calls (its token's: `partner`): its parent's, whatever
 * else it asks; null when it asks for another parent's, which match none of its calls.
 */
function own<F extends { parent_account_id?: string | undefined }>(partner: string | undefined, filter: F) {
  if (partner === undefined) return filter;
  if (filter.parent_account_id !== undefined && filter.parent_account_id !== partner) return null;
  return { ...filter, parent_account_id: partner };
}

export function requestRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  bind(api, op.listRequests, ({ query, partner }, c) => {
    const filter = own(partner, query);
    return c.json({ requests: filter ? s.journal.list(filter) : [], max: s.journal.max }, 200);
  });

  bind(api, op.clearRequests, (_call, c) => {
    s.journal.clear();
    return c.json({ cleared: true }, 200);
  });

  // "This call was made N times": the journal's filters plus a header and a body substring.
  bind(api, iso.countRequests, async (input, c) => {
    const sent = await input.body();
    const filter = own(input.partner, sent);
    const count = filter ? s.journal.count(filter) : 0;
    // body_contains searches what the journal kept of each body: say how many it could not search whole.
    if (sent.body_contains === undefined) return c.json({ count }, 200);
    return c.json({ count, bodies_truncated: filter ? s.journal.countCut(filter) : 0 }, 200);
  });
  return api;
}
