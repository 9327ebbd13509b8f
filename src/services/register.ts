/**
 * Registration (endpoint 2): create or match an account on (parent, external_account_id),
 * translating the partner's vertical pair through the parent's mapping. A dry run
 * (spec §1.5) validates the same way and writes nothing: it answers the matched account
 * as it is, or the account that would be created, with IDs generated for the answer
 * only (the real register issues new ones).
 */
import { ApiError, validationError } from '../contract/api/errors.js';
import {
  dryRunRegisterWarning,
  mappingNotSeededMessage,
  registerUnmappedMessage,
} from '../contract/api/messages.js';
import type { RegisterData, RegisterRequest, Surface } from '../contract/api/schemas.js';
import { contentHash } from '../domain/controls-list.js';
import { ids } from '../domain/ids.js';
import { findPair } from '../domain/taxonomy.js';
import type { ServiceFaults } from '../scenarios/fault-plan.js';
import type { Sandbox } from '../state/index.js';
import type { AccountRow, LayoutRow, NewAccount, PageRow } from '../store/accounts-table.js';
import { mappingFor } from './mappings.js';

export interface RegisterResult {
  data: RegisterData;
  matched: boolean;
  warnings: string[];
}

/** A register call, as its call names it. */
export interface Registration {
  /** The parent account of the caller's token. */
  parent: string;
  body: RegisterRequest;
  dryRun: boolean;
  faults: ServiceFaults;
}

export function register(s: Sandbox, { parent, body, dryRun, faults }: Registration): RegisterResult {
  if (body.platform_parent_account_id !== parent) {
    throw validationError([
      {
        field: 'platform_parent_account_id',
        message: `must equal the X-Platform-Parent-Account-Id header ("${parent}")`,
      },
    ]);
  }
  const mapping = mappingFor(s, parent, faults.unseededMappings);
  if (mapping.length === 0) {
    throw new ApiError('vertical_mapping_not_seeded', mappingNotSeededMessage(parent), {
      details: { parent_account_id: parent },
    });
  }
  if (!findPair(mapping, body.vertical_id, body.sub_vertical_id)) {
    throw new ApiError(
      'vertical_not_mapped',
      registerUnmappedMessage(body.vertical_id, body.sub_vertical_id),
      {
        details: { vertical_id: body.vertical_id, sub_vertical_id: body.sub_vertical_id },
      },
    );
  }

  if (dryRun) {
    const existing = s.store.accounts.byExternal(parent, body.external_account_id);
    if (existing) return matchedResult(s, existing, body);
    // Nothing is created, so the propagation drill (a scenario of new accounts) is not taken.
    const would = newAccount(s, parent, body, 0);
    return {
      data: { account_id: would.account.account_id, pages: pagesView(would.pages, would.layouts) },
      matched: false,
      warnings: [dryRunRegisterWarning(body.pages ?? s.fixtures.defaultPages)],
    };
  }

  return s.store.tx(() => {
    const existing = s.store.accounts.byExternal(parent, body.external_account_id);
    // A match creates nothing: the propagation drill (of new accounts) is neither applied nor used up.
    if (existing) return matchedResult(s, existing, body);
    const propagation = faults.authPropagation?.use() ?? s.config.authPropagationSeconds;
    const created = newAccount(s, parent, body, propagation);
    insertAccount(s, created);
    return { data: accountView(s, created.account.account_id), matched: false, warnings: [] };
  });
}

/** The rows a registration writes (a Pact state `an account` names its own account ID). */
/** A new account written, with its controls list: the partnership preset's blocks (a register, a pact state). */
export function insertAccount(s: Sandbox, created: NewAccount): void {
  s.store.accounts.insert(created);
  const listId = ids.controlsList();
  const blocked = s.fixtures.preset.blocked;
  s.store.controls.put({
    account_id: created.account.account_id,
    list_id: listId,
    name: s.fixtures.preset.name,
    version: 0,
    content_hash: contentHash(listId, 0, blocked, []),
    blocked,
    domains: [],
    updated_at: created.account.created_at,
  });
}

export function newAccount(
  s: Sandbox,
  parent: string,
  body: RegisterRequest,
  propagationSeconds: number,
  accountId = ids.account(),
): NewAccount {
  const at = s.clock.iso(parent);
  const pages = body.pages ?? s.fixtures.defaultPages;
  const n: NewAccount = {
    account: {
      account_id: accountId,
      parent_account_id: parent,
      external_account_id: body.external_account_id,
      brand: body.brand,
      vertical_id: body.vertical_id,
      sub_vertical_id: body.sub_vertical_id,
      country_code: body.country_code,
      store_identifier: body.store_identifier,
      auth_ready_at: s.clock.now(parent) + propagationSeconds * 1000,
      created_at: at,
    },
    pages: [],
    layouts: [],
    variants: [],
  };
  for (const p of pages) {
    const pageId = ids.page();
    n.pages.push({
      page_id: pageId,
      account_id: accountId,
      surface: p.surface,
      page_identifier: ids.pageIdentifier(p.surface),
      created_at: at,
    });
    n.layouts.push({
      layout_id: ids.layout(),
      page_id: pageId,
      account_id: accountId,
      layout_type: p.layout_type,
      name: `${p.surface} layout`,
      updated_at: at,
    });
    n.variants.push({
      variant_id: ids.variant(),
      page_id: pageId,
      account_id: accountId,
      name: `${p.surface} default`,
      enabled: 1,
      archived: 0,
      created_at: at,
    });
  }
  return n;
}

function matchedResult(s: Sandbox, existing: AccountRow, body: RegisterRequest): RegisterResult {
  const differs = differingFields(s, existing, body);
  const warnings = differs.length
    ? [
        `external_account_id "${body.external_account_id}" matched existing account ${existing.account_id}; these fields differ from the stored account and were not applied: ${differs.join(', ')}`,
      ]
    : [];
  return { data: accountView(s, existing.account_id), matched: true, warnings };
}

type PageFields = Pick<PageRow, 'page_id' | 'surface' | 'page_identifier'>;
type LayoutFields = Pick<LayoutRow, 'page_id' | 'layout_id'>;

/** Spec §2.3 pages: one element per page with its (first) layout. */
function pagesView(pages: readonly PageFields[], layouts: readonly LayoutFields[]): RegisterData['pages'] {
  return pages.map((p) => ({
    surface: p.surface as Surface,
    page_id: p.page_id,
    layout_id: layouts.find((l) => l.page_id === p.page_id)?.layout_id ?? '',
    page_identifier: p.page_identifier,
  }));
}

/** The register response of a stored account. */
export function accountView(s: Sandbox, accountId: string): RegisterResult['data'] {
  return {
    account_id: accountId,
    pages: pagesView(s.store.accounts.pages(accountId), s.store.accounts.layouts(accountId)),
  };
}

function differingFields(s: Sandbox, existing: AccountRow, body: RegisterRequest): string[] {
  const fields = ['brand', 'vertical_id', 'sub_vertical_id', 'country_code', 'store_identifier'] as const;
  const out: string[] = fields.filter((f) => existing[f] !== body[f]);
  if (body.pages !== undefined) {
    const layouts = s.store.accounts.layouts(existing.account_id);
    const stored = s.store.accounts
      .pages(existing.account_id)
      .map((p) => `${p.surface}/${layouts.find((l) => l.page_id === p.page_id)?.layout_type}`);
    const sent = body.pages.map((p) => `${p.surface}/${p.layout_type}`);
    if (stored.sort().join() !== sent.sort().join()) out.push('pages');
  }
  return out;
}
