/** Partners as the control plane keeps them (docs/control-plane.md): list, create, seed or clear the mapping. */
import type { z } from 'zod';
import { validationError } from '../contract/api/errors.js';
import type { MappingSeed, PartnerCreate } from '../contract/control/control-schemas.js';
import { nextTurn, stretch } from '../core/turns.js';
import { ids } from '../domain/ids.js';
import { hashSecret } from '../domain/secrets.js';
import { mappingProblems } from '../domain/taxonomy.js';
import type { Sandbox } from '../state/index.js';
import { type MappingRow, type PartnerRow, secretColumns } from '../store/partners-table.js';

/** One partner as `GET /__sandbox/partners` lists it: whether its mapping is seeded, its accounts (at most 200). */
function partnerView(s: Sandbox, p: PartnerRow) {
  return {
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
  };
}

/**
 * Every partner, with whether its mapping is seeded and its accounts (at most 200 each), by turns
 * (core/turns.ts): two reads a partner, so 10,000 partners held every other call most of a
 * second when read at once. Each partner is read whole within one stretch; one
 * created while the list is read is not in it.
 */
export async function listPartnersInTurns(s: Sandbox) {
  const out: ReturnType<typeof partnerView>[] = [];
  const time = stretch();
  for (const p of s.store.partners.all()) {
    if (time.due()) {
      await nextTurn();
      time.restart();
    }
    out.push(partnerView(s, p));
  }
  return out;
}

/** Creates a partner (IDs and secret generated where not given); its credentials, the secret shown once. */
export async function createPartner(s: Sandbox, body: z.output<typeof PartnerCreate>) {
  const parent_account_id = body.parent_account_id ?? ids.parentAccount();
  const client_id = body.client_id ?? ids.clientId();
  const client_secret = body.client_secret ?? ids.clientSecret();
  // Names the field that is taken (both when both are), so a caller fixes the right one.
  const refuseTaken = () => {
    const taken = [
      ...(s.store.partners.byParent(parent_account_id) ? ['parent_account_id'] : []),
      ...(s.store.partners.byClient(client_id) ? ['client_id'] : []),
    ];
    if (taken.length) {
      throw validationError(
        taken.map((field) => ({ field, message: `a partner with this ${field} exists already` })),
      );
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
  return { parent_account_id, client_id, client_secret };
}

/** Replaces the partner's vertical mapping (checked first); the mapping as stored. */
export function seedMappings(
  s: Sandbox,
  parent: string,
  mappings: z.output<typeof MappingSeed>['vertical_mappings'],
): readonly MappingRow[] {
  const problems = mappingProblems(mappings);
  if (problems.length) {
    throw validationError(
      problems.map((p) => ({ field: p.slice(0, p.indexOf(':')), message: p.slice(p.indexOf(':') + 2) })),
    );
  }
  const at = s.clock.iso(parent);
  s.store.partners.replaceMappings(
    parent,
    mappings.map((m) => ({ ...m, created_at: at })),
  );
  return s.store.partners.mappings(parent);
}

/** Clears the partner's vertical mapping. */
export function clearMappings(s: Sandbox, parent: string): void {
  s.store.partners.replaceMappings(parent, []);
}
