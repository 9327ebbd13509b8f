/** Partners on the control plane (docs/control-plane.md, docs/parallel-tests.md): list, create, mappings, partner reset. */
import { Hono } from 'hono';
import { MappingSeed, PartnerCreate } from '../contract/admin.js';
import { validationError } from '../contract/errors.js';
import { ids } from '../domain/ids.js';
import { hashSecret } from '../domain/secrets.js';
import { mappingProblems } from '../domain/taxonomy.js';
import type { AppEnv } from '../http/env.js';
import type { Sandbox } from '../sandbox.js';
import { secretColumns } from '../store/partners.js';
import { adminBody } from './body.js';
import { partnerClockView } from './clock.js';
import { partnerOr404 } from './lookup.js';

export function partnerRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  api.get('/__sandbox/partners', (c) =>
    c.json({
      partners: s.store.partners.all().map((p) => ({
        parent_account_id: p.parent_account_id,
        name: p.name,
        client_id: p.client_id,
        seeded: s.store.partners.mappings(p.parent_account_id).length > 0,
        accounts: s.store.accounts.byParent(p.parent_account_id, 200).map((a) => ({
          account_id: a.account_id,
          external_account_id: a.external_account_id,
          brand: a.brand,
          created_at: a.created_at,
        })),
      })),
    }),
  );

  api.post('/__sandbox/partners', async (c) => {
    const body = await adminBody(c, PartnerCreate);
    const parent_account_id = body.parent_account_id ?? ids.parentAccount();
    const client_id = body.client_id ?? ids.clientId();
    const client_secret = body.client_secret ?? ids.clientSecret();
    const refuseTaken = () => {
      if (s.store.partners.byParent(parent_account_id) || s.store.partners.byClient(client_id)) {
        throw validationError([
          {
            field: 'parent_account_id',
            message: 'a partner with this parent_account_id or client_id exists already',
          },
        ]);
      }
    };
    refuseTaken();
    // Kept only as a salted hash (docs/parallel-tests.md): this answer is the one place it is shown.
    const secret = await hashSecret(client_secret);
    refuseTaken(); // again: another create may have come while it was hashed
    const partner = {
      parent_account_id,
      client_id,
      ...secretColumns(secret),
      name: body.name ?? 'Sandbox partner',
      created_at: s.clock.iso(),
    };
    s.store.partners.insert(partner);
    return c.json({ parent_account_id, client_id, client_secret }, 201);
  });

  api.put('/__sandbox/partners/:parent/vertical-mappings', async (c) => {
    const parent = c.req.param('parent');
    partnerOr404(s, parent);
    const { vertical_mappings } = await adminBody(c, MappingSeed);
    partnerOr404(s, parent); // again: a reset may have come while the body was read
    const problems = mappingProblems(vertical_mappings);
    if (problems.length) {
      throw validationError(
        problems.map((p) => ({ field: p.slice(0, p.indexOf(':')), message: p.slice(p.indexOf(':') + 2) })),
      );
    }
    const at = s.clock.iso(parent);
    s.store.partners.replaceMappings(
      parent,
      vertical_mappings.map((m) => ({ ...m, created_at: at })),
    );
    return c.json({ vertical_mappings: s.store.partners.mappings(parent) });
  });

  api.delete('/__sandbox/partners/:parent/vertical-mappings', (c) => {
    const parent = c.req.param('parent');
    partnerOr404(s, parent);
    s.store.partners.replaceMappings(parent, []);
    return c.json({ vertical_mappings: [] });
  });

  // docs/parallel-tests.md: everything of this partner goes but its credentials, mapping and tokens.
  api.post('/__sandbox/partners/:parent/reset', (c) => {
    const parent = c.req.param('parent');
    partnerOr404(s, parent);
    s.resetPartner(parent);
    return c.json({ reset: true, parent_account_id: parent, clock: partnerClockView(s, parent) });
  });

  return api;
}
