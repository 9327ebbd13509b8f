/**
 * The seven partnership endpoints: each binds its declaration (contract/operations.ts:
 * route, pipeline needs, scenario endpoint name) to a thin handler that calls one service
 * and writes the envelope.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { ApiError } from '../contract/errors.js';
import { partialFailureMessage, partialFailureWarning } from '../contract/messages.js';
import { operations } from '../contract/operations.js';
import type { AppEnv } from '../http/env.js';
import { envelope, json, ok } from '../http/envelope.js';
import { serve } from '../http/pipeline.js';
import { readControls, writeControls } from '../services/controls.js';
import { editLayout } from '../services/layouts.js';
import { mappingFor } from '../services/mappings.js';
import { register } from '../services/register.js';
import { readStatus, writeStatus } from '../services/status.js';

export function partnershipApi() {
  const api = new OpenAPIHono<AppEnv>();

  serve(api, operations.listVerticalMappings, (c) => {
    const parent = c.get('principal')!.parent_account_id;
    const asked = c.req.valid('query').parent_account_id;
    if (asked !== undefined && asked !== parent) {
      throw new ApiError(
        'forbidden',
        "parent_account_id is not the parent account of the access token's client.",
        {
          details: { field: 'parent_account_id' },
        },
      );
    }
    return ok(c, {
      vertical_mappings: [...mappingFor(c.get('sandbox'), parent, c.get('faults').unseededMappings)],
    });
  });

  serve(api, operations.registerAccount, (c) => {
    const result = register(
      c.get('sandbox'),
      c.get('faults'),
      c.get('principal')!.parent_account_id,
      c.req.valid('json'),
      c.get('dryRun'),
    );
    c.get('warnings').push(...result.warnings);
    // The journal files the call that created (or matched) the account under it.
    if (typeof result.data.account_id === 'string') c.set('accountId', result.data.account_id);
    return ok(c, result.data);
  });

  serve(api, operations.getControls, (c) => {
    const data = readControls(c.get('sandbox'), c.get('account')!, c.get('faults'));
    c.get('sandbox').diagnostics.hashShown(
      c.get('principal')!.client_id,
      data.marketplace_controls_list.content_hash,
    );
    return ok(c, data);
  });

  serve(api, operations.putControls, (c) => {
    const sandbox = c.get('sandbox');
    const principal = c.get('principal');
    const body = c.req.valid('json');
    const unseen = sandbox.diagnostics.hashSent(principal!.client_id, body.contentHash);
    if (unseen) c.get('warnings').push(unseen);
    const data = writeControls(sandbox, c.get('faults'), c.get('account')!, body, c.get('dryRun'));
    if (!c.get('dryRun'))
      sandbox.diagnostics.hashShown(principal!.client_id, data.marketplace_controls_list.content_hash);
    return ok(c, data);
  });

  serve(api, operations.getStatus, (c) => ok(c, readStatus(c.get('sandbox'), c.get('account')!)));

  serve(api, operations.putStatus, (c) => {
    const requested = c.req.valid('json').status;
    const result = writeStatus(
      c.get('sandbox'),
      c.get('faults'),
      c.get('account')!,
      requested,
      c.get('dryRun'),
      c.get('requestId'),
    );
    if (result.failed === 0) return ok(c, result.data);
    const failed = result.outcomes.filter((v) => v.result === 'failed');
    c.get('warnings').push(partialFailureWarning(failed));
    const message = partialFailureMessage(
      result.failed,
      result.total,
      requested,
      result.data.status,
      c.get('requestId'),
    );
    const body = {
      ...envelope(c, result.data, message),
      error: {
        code: 'partial_failure' as const,
        details: { failed_count: result.failed, variant_count: result.total },
      },
    };
    return json(c, body, 200);
  });

  serve(api, operations.patchLayout, (c) =>
    ok(
      c,
      editLayout(
        c.get('sandbox'),
        c.get('account')!,
        c.req.valid('param').layout_id,
        c.req.valid('json'),
        c.get('dryRun'),
      ),
    ),
  );

  return api;
}
