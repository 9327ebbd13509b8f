/** Accounts and variants as the control plane sees them (docs/control-plane.md): the internal view, variant edits. */
import type { z } from '@hono/zod-openapi';
import { validationError } from '../contract/api/errors.js';
import type { AccountDetail } from '../contract/control/control-schemas.js';
import { ids } from '../domain/ids.js';
import { lastStatusWrite, type Sandbox } from '../state/index.js';
import type { VariantRow } from '../store/accounts-table.js';
import { readControls } from './controls.js';
import { accountOr404, variantNotFound } from './lookup.js';
import { readStatus } from './status.js';

function variantRecord(v: VariantRow) {
  return { ...v, enabled: v.enabled === 1, archived: v.archived === 1 };
}

export function accountDetail(s: Sandbox, accountId: string): z.output<typeof AccountDetail> {
  const account = accountOr404(s, accountId);
  const list = s.store.controls.get(accountId)!;
  return {
    account,
    propagation: {
      ready_at: new Date(account.auth_ready_at).toISOString(),
      pending: account.auth_ready_at > s.clock.now(account.parent_account_id),
    },
    pages: s.store.accounts.pages(accountId),
    layouts: s.store.accounts.layouts(accountId),
    variants: s.store.accounts.variants(accountId).map(variantRecord),
    status: readStatus(s, account).status,
    last_status_write: lastStatusWrite(s, accountId),
    controls: {
      list_id: list.list_id,
      name: list.name,
      version: list.version,
      content_hash: list.content_hash,
      blocked_internal: list.blocked,
      domains: list.domains,
      updated_at: list.updated_at,
      translated: readControls(s, account),
    },
    vertical_mappings: [...s.store.partners.mappings(account.parent_account_id)],
  };
}

/** Adds a variant on a page of the account; the variant as stored. */
export function addVariant(
  s: Sandbox,
  accountId: string,
  body: { page_id: string; name: string; enabled: boolean },
) {
  const account = accountOr404(s, accountId);
  const page = s.store.accounts.page(body.page_id);
  if (!page || page.account_id !== account.account_id) {
    throw validationError([{ field: 'page_id', message: `is not a page of account ${account.account_id}` }]);
  }
  const variant = {
    variant_id: ids.variant(),
    page_id: page.page_id,
    account_id: account.account_id,
    name: body.name,
    enabled: body.enabled ? 1 : 0,
    archived: 0,
    created_at: s.clock.iso(account.parent_account_id),
  };
  s.store.accounts.insertVariant(variant);
  return variantRecord(variant);
}

/** Enables, disables, archives or restores a variant; the variant as stored. */
export function patchVariant(s: Sandbox, variantId: string, body: { enabled?: boolean; archived?: boolean }) {
  const current = s.store.accounts.variant(variantId);
  if (!current) throw variantNotFound(variantId);
  s.store.accounts.setVariants([
    {
      variant_id: variantId,
      enabled: body.enabled ?? current.enabled === 1,
      archived: body.archived ?? current.archived === 1,
    },
  ]);
  return variantRecord(s.store.accounts.variant(variantId)!);
}
