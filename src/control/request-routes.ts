/** The request journal on the control plane (docs/control-plane.md, docs/parallel-tests.md): list, clear, count. */
import { Hono } from 'hono';
import { controlRoutes as op } from '../contract/control/control-routes.js';
import { isolationRoutes as iso } from '../contract/control/control-routes-isolation.js';
import { jsonTexts } from '../core/turns.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import type { Sandbox } from '../state/index.js';

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

  // By turns (core/turns.ts): with thousands of partners, other partners' calls are served meanwhile.
  bind(api, op.listRequests, async ({ query, partner }, c) => {
    const filter = own(partner, query);
    const requests = filter ? await jsonTexts(await s.journal.listInTurns(filter)) : [];
    // Written out by turns too (a thousand entries of 16 KiB bodies are 30 MB): what c.json would write.
    const text = `{"requests":[${requests.join(',')}],"max":${JSON.stringify(s.journal.max)}}`;
    return c.body(text, 200, { 'Content-Type': 'application/json' }) as never;
  });

  bind(api, op.clearRequests, (_call, c) => {
    s.journal.clear();
    return c.json({ cleared: true }, 200);
  });

  // "This call was made N times": the journal's filters plus a header and a body substring.
  bind(api, iso.countRequests, async (input, c) => {
    const sent = await input.body();
    const filter = own(input.partner, sent);
    const { count, cut } = filter ? await s.journal.countInTurns(filter) : { count: 0, cut: 0 };
    // body_contains searches what the journal kept of each body: say how many it could not search whole.
    if (sent.body_contains === undefined) return c.json({ count }, 200);
    return c.json({ count, bodies_truncated: cut }, 200);
  });
  return api;
}
