/** Partners on the control plane (docs/control-plane.md, docs/parallel-tests.md): list, create, mappings, partner reset. */
import { Hono } from 'hono';
import { controlRoutes as op } from '../contract/control/control-routes.js';
import { isolationRoutes as iso } from '../contract/control/control-routes-isolation.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import { mappingWrite } from '../http/room.js';
import { partnerOr404 } from '../services/lookup.js';
import { clearMappings, createPartner, listPartnersInTurns, seedMappings } from '../services/partners.js';
import type { Sandbox } from '../state/index.js';
import { partnerClockView } from './clock-routes.js';

export function partnerRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  bind(api, op.listPartners, async (_call, c) => c.json({ partners: await listPartnersInTurns(s) }, 200));

  bind(api, op.createPartner, async (input, c) => {
    const body = await input.body();
    return c.json(await createPartner(s, body), 201);
  });

  bind(api, op.seedVerticalMappings, async (input, c) => {
    const parent = input.params.parent_account_id;
    partnerOr404(s, parent);
    const { vertical_mappings } = await input.body();
    partnerOr404(s, parent); // again: a reset may have come while the body was read
    // The mapping counts in the partner's room (docs/hosting.md).
    const seeded = mappingWrite(c, parent, vertical_mappings, () =>
      seedMappings(s, parent, vertical_mappings),
    );
    return c.json({ vertical_mappings: [...seeded] }, 200);
  });

  bind(api, op.unseedVerticalMappings, (call, c) => {
    const parent = call.params.parent_account_id;
    partnerOr404(s, parent);
    clearMappings(s, parent);
    s.store.sizes.forget(parent);
    return c.json({ vertical_mappings: [] }, 200);
  });

  // docs/parallel-tests.md: everything of this partner goes but its credentials, mapping and tokens.
  bind(api, iso.resetPartner, (call, c) => {
    const parent = call.params.parent_account_id;
    partnerOr404(s, parent);
    s.resetPartner(parent);
    return c.json(
      { reset: true as const, parent_account_id: parent, clock: partnerClockView(s, parent) },
      200,
    );
  });

  return api;
}
