/** The partners list, shared by the views that offer a partner or an account to pick. */
import type { PartnerListView } from '../../client/control-client.js';
import { control } from './control-call.js';

export type Partner = PartnerListView['partners'][number];
export type AccountSummary = Partner['accounts'][number] & { parent_account_id: string };

let partners: Partner[] = [];

export async function loadPartners(): Promise<Partner[]> {
  partners = (await control((c) => c.partners.list())).partners;
  return partners;
}

/** The partners as last loaded. */
export const knownPartners = (): readonly Partner[] => partners;

export const knownAccounts = (): AccountSummary[] =>
  partners.flatMap((p) => p.accounts.map((a) => ({ ...a, parent_account_id: p.parent_account_id })));
