/** Accounts and variants on the control plane (docs/control-plane.md): the internal view, variant edits. */
import { Hono } from 'hono';
import { controlRoutes as op } from '../contract/control-routes.js';
import type { Sandbox } from '../core/state.js';
import type { AppEnv } from '../http/env.js';
import { accountDetail, addVariant, patchVariant } from '../services/accounts.js';
import { accountOr404 } from '../services/lookup.js';
import { bind } from './bind.js';

export function accountRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  bind(api, op.getAccount, (c) => c.json(accountDetail(s, c.req.param('account_id')), 200));

  bind(api, op.addVariant, async (c, input) => {
    accountOr404(s, c.req.param('account_id'));
    const body = await input.body();
    // The account is looked up again, after the await.
    return c.json(addVariant(s, c.req.param('account_id'), body), 201);
  });

  bind(api, op.updateVariant, async (c, input) => {
    const body = await input.body();
    return c.json(patchVariant(s, c.req.param('variant_id'), body), 200);
  });
  return api;
}
