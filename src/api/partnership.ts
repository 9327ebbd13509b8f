/**
 * The seven partnership endpoints: each binds its declaration (contract/api/operations.ts:
 * route, pipeline needs, scenario endpoint name) to a thin handler that receives the typed
 * call its stages produced (http/bind.ts), calls one service and writes the envelope.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { ApiError } from '../contract/api/errors.js';
import { partialFailureMessage, partialFailureWarning } from '../contract/api/messages.js';
import { operations } from '../contract/api/operations.js';
import { envelope, json, ok } from '../http/answer-writer.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import { keepAnswer } from '../http/idempotency.js';
import { readControls, writeControls } from '../services/controls.js';
import { editLayout } from '../services/layouts.js';
import { mappingFor } from '../services/mappings.js';
import { register } from '../services/register.js';
import { readStatus, writeStatus } from '../services/status.js';

export function partnershipApi() {
  const api = new OpenAPIHono<AppEnv>();

  bind(api, operations.listVerticalMappings, ({ principal, query, faults }, c) => {
    const parent = principal.parent_account_id;
    const asked = query.parent_account_id;
    if (asked !== undefined && asked !== parent) {
      throw new ApiError(
        'forbidden',
        "parent_account_id is not the parent account of the access token's client.",
        {
          details: { field: 'parent_account_id' },
        },
      );
    }
    return ok(c, { vertical_mappings: [...mappingFor(c.get('sandbox'), parent, faults.unseededMappings)] });
  });

  bind(api, operations.registerAccount, ({ principal, body, dryRun, faults, warnings }, c) => {
    const parent = principal.parent_account_id;
    const result = register(c.get('sandbox'), { parent, body, dryRun, faults });
    warnings.push(...result.warnings);
    // The journal files the call that created (or matched) the account under it.
    if (typeof result.data.account_id === 'string') c.set('accountId', result.data.account_id);
    return ok(c, result.data);
  });

  bind(api, operations.getControls, ({ principal, account, faults }, c) => {
    const data = readControls(c.get('sandbox'), account, faults);
    c.get('sandbox').diagnostics.hashShown(principal.client_id, data.marketplace_controls_list.content_hash);
    return ok(c, data);
  });

  bind(api, operations.putControls, ({ principal, account, body, dryRun, faults, warnings }, c) => {
    const sandbox = c.get('sandbox');
    const unseen = sandbox.diagnostics.hashSent(principal.client_id, body.contentHash);
    if (unseen) warnings.push(unseen);
    // The list and the answer stored under the Idempotency-Key: one commit.
    let hash = '';
    const answer = writeControls(sandbox, { account, body, dryRun, faults }, ({ data, bytes }) => {
      c.set('storedBytes', bytes);
      hash = data.marketplace_controls_list.content_hash;
      return keepAnswer(c, ok(c, data));
    });
    if (!dryRun) sandbox.diagnostics.hashShown(principal.client_id, hash);
    return answer;
  });

  bind(api, operations.getStatus, ({ account }, c) => ok(c, readStatus(c.get('sandbox'), account)));

  bind(api, operations.putStatus, ({ account, body, dryRun, faults, requestId, warnings }, c) => {
    const requested = body.status;
    const result = writeStatus(c.get('sandbox'), { account, requested, dryRun, requestId, faults });
    if (result.failed === 0) return ok(c, result.data);
    const failed = result.outcomes.filter((v) => v.result === 'failed');
    warnings.push(partialFailureWarning(failed));
    const message = partialFailureMessage(
      result.failed,
      result.total,
      requested,
      result.data.status,
      requestId,
    );
    const answer = {
      ...envelope(c, result.data, message),
      error: {
        code: 'partial_failure' as const,
        details: { failed_count: result.failed, variant_count: result.total },
      },
    };
    return json(c, answer, 200);
  });

  bind(api, operations.patchLayout, ({ account, params, body, dryRun }, c) =>
    ok(c, editLayout(c.get('sandbox'), { account, layoutId: params.layout_id, edit: body, dryRun })),
  );

  return api;
}
