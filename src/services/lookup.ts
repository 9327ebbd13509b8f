/** Lookups that answer 404 in the envelope when the partner or account is missing. */
import { accountNotFound, partnerNotFound } from '../contract/api/errors.js';
import type { Sandbox } from '../state/index.js';

export { accountNotFound, partnerNotFound, variantNotFound } from '../contract/api/errors.js';

export function partnerOr404(s: Sandbox, parent: string) {
  const partner = s.store.partners.byParent(parent);
  if (!partner) throw partnerNotFound(parent);
  return partner;
}

export function accountOr404(s: Sandbox, accountId: string) {
  const account = s.store.accounts.byId(accountId);
  if (!account) throw accountNotFound(accountId);
  return account;
}
