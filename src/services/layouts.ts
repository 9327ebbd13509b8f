/** Layout edit (endpoint 7; the request and response are the sandbox's assumption, docs/where-the-spec-is-silent.md). */
import { ApiError } from '../contract/api/errors.js';
import { layoutNotFoundMessage } from '../contract/api/messages.js';
import type { Sandbox } from '../state/index.js';
import type { AccountRow } from '../store/accounts-table.js';

export interface LayoutEdit {
  layout_type?: 'Overlay' | 'Embedded' | undefined;
  name?: string | undefined;
}

/** A layout PATCH, as its call names it. */
export interface LayoutPatch {
  account: AccountRow;
  layoutId: string;
  edit: LayoutEdit;
  dryRun: boolean;
}

export function editLayout(s: Sandbox, { account, layoutId, edit, dryRun }: LayoutPatch) {
  return s.store.tx(() => {
    const layout = s.store.accounts.layout(layoutId);
    // Another account's layout is answered as if it did not exist.
    if (!layout || layout.account_id !== account.account_id) {
      throw new ApiError('layout_not_found', layoutNotFoundMessage(layoutId), {
        details: { layout_id: layoutId },
      });
    }
    const page = s.store.accounts.page(layout.page_id)!;
    const next = {
      layout_type: edit.layout_type ?? layout.layout_type,
      name: edit.name ?? layout.name,
      updated_at: s.clock.iso(account.parent_account_id),
    };
    if (!dryRun) s.store.accounts.updateLayout(layoutId, next.layout_type, next.name, next.updated_at);
    return {
      layout_id: layout.layout_id,
      page_id: layout.page_id,
      surface: page.surface,
      layout_type: next.layout_type,
    };
  });
}
