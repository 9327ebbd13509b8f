/** Accounts and variants on the control plane (docs/control-plane.md): the internal view, variant edits. */
import { Hono } from 'hono';
import { controlRoutes as op } from '../contract/control/control-routes.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import { controlWrite } from '../http/room.js';
import { accountDetail, addVariant, patchVariant } from '../services/accounts.js';
import { accountOr404 } from '../services/lookup.js';
import type { Sandbox } from '../state/index.js';

export function accountRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  bind(api, op.getAccount, (call, c) => c.json(accountDetail(s, call.params.account_id), 200));

  bind(api, op.addVariant, async (input, c) => {
    accountOr404(s, input.params.account_id);
    const body = await input.body();
    // The account is looked up again, after the await; the variant counts in its partner's room.
    const parent = accountOr404(s, input.params.account_id).parent_account_id;
    return c.json(
      controlWrite(c, parent, () => addVariant(s, input.params.account_id, body)),
      201,
    );
  });

  bind(api, op.updateVariant, async (input, c) => {
    const body = await input.body();
    return c.json(patchVariant(s, input.params.variant_id, body), 200);
  });
  return api;
}
