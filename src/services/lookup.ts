/** Lookups that answer 404 in the envelope when the partner or account is missing. */
import { ApiError } from '../contract/api/errors.js';
import { accountNotFoundMessage } from '../contract/api/messages.js';
import type { Sandbox } from '../core/state.js';

export const partnerNotFound = (parent: string) =>
  new ApiError('not_found', `No partner with parent_account_id ${parent}.`);

export const accountNotFound = (accountId: string) =>
  new ApiError('account_not_found', accountNotFoundMessage(accountId));

export const variantNotFound = (variantId: string) => new ApiError('not_found', `No variant ${variantId}.`);

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
