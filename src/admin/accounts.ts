/** Accounts and variants on the control plane (docs/control-plane.md): the internal view, variant edits. */

import type { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { type AccountDetail, VariantCreate, VariantPatch } from '../contract/admin.js';
import { ApiError, validationError } from '../contract/errors.js';
import { ids } from '../domain/ids.js';
import type { AppEnv } from '../http/env.js';
import type { Sandbox } from '../sandbox.js';
import { readControls } from '../services/controls.js';
import { lastStatusWrite, readStatus } from '../services/status.js';
import type { VariantRow } from '../store/accounts.js';
import { adminBody } from './body.js';
import { accountOr404 } from './lookup.js';

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
  };
}

export function accountRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();

  api.get('/__sandbox/accounts/:account_id', (c) => c.json(accountDetail(s, c.req.param('account_id'))));

  api.post('/__sandbox/accounts/:account_id/variants', async (c) => {
    accountOr404(s, c.req.param('account_id'));
    const body = await adminBody(c, VariantCreate);
    const account = accountOr404(s, c.req.param('account_id')); // again, after the await
    const page = s.store.accounts.page(body.page_id);
    if (!page || page.account_id !== account.account_id) {
      throw validationError([
        { field: 'page_id', message: `is not a page of account ${account.account_id}` },
      ]);
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
    return c.json(variantRecord(variant), 201);
  });

  api.patch('/__sandbox/variants/:variant_id', async (c) => {
    const variantId = c.req.param('variant_id');
    const body = await adminBody(c, VariantPatch);
    const current = s.store.accounts.variant(variantId);
    if (!current) throw new ApiError('not_found', `No variant ${variantId}.`);
    s.store.accounts.setVariants([
      {
        variant_id: variantId,
        enabled: body.enabled ?? current.enabled === 1,
        archived: body.archived ?? current.archived === 1,
      },
    ]);
    return c.json(variantRecord(s.store.accounts.variant(variantId)!));
  });
  return api;
}
