/**
 * The control plane (SANDBOX.md §6): plain JSON in and out. Protected by
 * `Authorization: Bearer $SANDBOX_ADMIN_TOKEN` when that is set (health stays open).
 * Errors use the same error envelope as the partnership API.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { ClockAdvance, MappingSeed, PartnerCreate, VariantCreate, VariantPatch } from '../contract/admin.js';
import { ApiError, validationError } from '../contract/errors.js';
import { accountNotFoundMessage } from '../contract/messages.js';
import { ids } from '../domain/ids.js';
import { mappingProblems } from '../domain/taxonomy.js';
import type { AppEnv } from '../http/env.js';
import { requestHeader } from '../http/headers.js';
import { buildReport, reportToJUnit } from '../report.js';
import { type Sandbox, saveClock } from '../sandbox.js';
import { secretsEqual } from '../services/auth.js';
import { readControls } from '../services/controls.js';
import { lastStatusWrite, readStatus } from '../services/status.js';
import { isUiShellPath, uiApi } from '../ui/index.js';
import { adminBody } from './body.js';
import { sameSiteOnly } from './cross-site.js';
import { scenarioRoutes } from './scenarios.js';

function adminAuth(token: string | undefined): MiddlewareHandler<AppEnv> {
  return async function adminAuth(c, next) {
    // The dashboard shell (/__sandbox/ui and its JS and CSS) holds no data: served without the token.
    if (token && c.req.path !== '/__sandbox/health' && !isUiShellPath(c.req.path)) {
      const sent = /^Bearer[ ]+(\S+)\s*$/i.exec(requestHeader(c, 'authorization') ?? '')?.[1];
      if (!sent || !secretsEqual(sent, token)) {
        throw new ApiError(
          'unauthorized',
          'The control plane needs Authorization: Bearer <SANDBOX_ADMIN_TOKEN>.',
          {
            headers: { 'WWW-Authenticate': 'Bearer realm="sandbox-control-plane"' },
          },
        );
      }
    }
    await next();
  };
}

function accountOr404(s: Sandbox, accountId: string) {
  const account = s.store.accounts.byId(accountId);
  if (!account) throw new ApiError('account_not_found', accountNotFoundMessage(accountId));
  return account;
}

function variantView(v: {
  variant_id: string;
  page_id: string;
  account_id: string;
  name: string;
  enabled: number;
  archived: number;
  created_at: string;
}) {
  return { ...v, enabled: v.enabled === 1, archived: v.archived === 1 };
}

export function clockView(s: Sandbox) {
  return { now: s.clock.iso(), offset_seconds: s.clock.offsetMs / 1000 };
}

export function accountDetail(s: Sandbox, accountId: string) {
  const account = accountOr404(s, accountId);
  const list = s.store.controls.get(accountId)!;
  return {
    account,
    propagation: {
      ready_at: new Date(account.auth_ready_at).toISOString(),
      pending: account.auth_ready_at > s.clock.now(),
    },
    pages: s.store.accounts.pages(accountId),
    layouts: s.store.accounts.layouts(accountId),
    variants: s.store.accounts.variants(accountId).map(variantView),
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

export function adminApi(sandbox: Sandbox) {
  const api = new Hono<AppEnv>();
  const s = sandbox;
  api.use('/__sandbox/*', sameSiteOnly(), adminAuth(s.config.adminToken));

  api.get('/__sandbox/health', (c) => c.json({ status: 'ok' }));

  api.post('/__sandbox/reset', (c) => {
    s.reset();
    return c.json({ reset: true, clock: clockView(s) });
  });

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
    const partner = {
      parent_account_id: body.parent_account_id ?? ids.parentAccount(),
      client_id: body.client_id ?? ids.clientId(),
      client_secret: body.client_secret ?? ids.clientSecret(),
      name: body.name ?? 'Sandbox partner',
      created_at: s.clock.iso(),
    };
    if (
      s.store.partners.byParent(partner.parent_account_id) ||
      s.store.partners.byClient(partner.client_id)
    ) {
      throw validationError([
        {
          field: 'parent_account_id',
          message: 'a partner with this parent_account_id or client_id exists already',
        },
      ]);
    }
    s.store.partners.insert(partner);
    const { parent_account_id, client_id, client_secret } = partner;
    return c.json({ parent_account_id, client_id, client_secret }, 201);
  });

  const partnerOr404 = (parent: string) => {
    if (!s.store.partners.byParent(parent)) {
      throw new ApiError('not_found', `No partner with parent_account_id ${parent}.`);
    }
  };

  api.put('/__sandbox/partners/:parent/vertical-mappings', async (c) => {
    const parent = c.req.param('parent');
    partnerOr404(parent);
    const { vertical_mappings } = await adminBody(c, MappingSeed);
    partnerOr404(parent); // again: a reset may have come while the body was read
    const problems = mappingProblems(vertical_mappings);
    if (problems.length) {
      throw validationError(
        problems.map((p) => ({ field: p.slice(0, p.indexOf(':')), message: p.slice(p.indexOf(':') + 2) })),
      );
    }
    const at = s.clock.iso();
    s.store.partners.replaceMappings(
      parent,
      vertical_mappings.map((m) => ({ ...m, created_at: at })),
    );
    return c.json({ vertical_mappings: s.store.partners.mappings(parent) });
  });

  api.delete('/__sandbox/partners/:parent/vertical-mappings', (c) => {
    const parent = c.req.param('parent');
    partnerOr404(parent);
    s.store.partners.replaceMappings(parent, []);
    return c.json({ vertical_mappings: [] });
  });

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
      created_at: s.clock.iso(),
    };
    s.store.accounts.insertVariant(variant);
    return c.json(variantView(variant), 201);
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
    return c.json(variantView(s.store.accounts.variant(variantId)!));
  });

  api.get('/__sandbox/clock', (c) => c.json(clockView(s)));
  api.post('/__sandbox/clock/advance', async (c) => {
    const { seconds } = await adminBody(c, ClockAdvance);
    if (seconds > s.clock.headroomSeconds) {
      throw validationError([
        {
          field: 'seconds',
          message: `would move the sandbox clock more than 100 years ahead in all; it can move ${s.clock.headroomSeconds} more seconds (POST /__sandbox/reset sets it back)`,
        },
      ]);
    }
    s.clock.advance(seconds);
    saveClock(s);
    return c.json(clockView(s));
  });

  api.get('/__sandbox/requests', (c) => {
    const q = c.req.query();
    const status = q.status === undefined ? undefined : Number(q.status);
    if (status !== undefined && !Number.isInteger(status)) {
      throw validationError([{ field: 'query.status', message: 'must be an integer HTTP status' }]);
    }
    const limit = q.limit === undefined ? undefined : Number(q.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
      throw validationError([{ field: 'query.limit', message: 'must be a positive integer' }]);
    }
    const requests = s.journal.list({
      account_id: q.account_id,
      parent_account_id: q.parent_account_id,
      method: q.method,
      path: q.path,
      status,
      since: q.since,
      limit,
    });
    return c.json({ requests, max: s.journal.max });
  });
  api.delete('/__sandbox/requests', (c) => {
    s.journal.clear();
    return c.json({ cleared: true });
  });

  api.get('/__sandbox/report', (c) => {
    const parent = c.req.query('parent_account_id');
    const format = c.req.query('format') ?? 'json';
    if (!parent) throw validationError([{ field: 'query.parent_account_id', message: 'is required' }]);
    if (format !== 'json' && format !== 'junit') {
      throw validationError([{ field: 'query.format', message: 'must be "json" or "junit"' }]);
    }
    partnerOr404(parent);
    const report = buildReport(parent, s.journal.list(), s.clock.iso());
    if (format === 'junit')
      return c.body(reportToJUnit(report), 200, { 'Content-Type': 'application/xml; charset=utf-8' });
    return c.json(report);
  });

  api.route('/', uiApi(s));
  api.route('/', scenarioRoutes(s));
  return api;
}
