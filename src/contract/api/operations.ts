/**
 * The seven partnership endpoints of spec §4, each declared once: its scenario endpoint
 * name, method, path, parameters, body, 200 answer and its pipeline needs. The route
 * contract (every documented response), the pipeline (src/http/pipeline.ts), the scenario
 * catalogue's endpoints (src/scenarios/catalogue.ts) and the binding (src/api/partnership.ts,
 * which adds only the handler) all follow from these (operation.ts).
 */
import { successEnvelope } from './envelope.js';
import { tokenRoute } from './oauth.js';
import { operation } from './operation.js';
import {
  AccountParams,
  ControlsData,
  ControlsWriteRequest,
  LayoutData,
  LayoutParams,
  LayoutPatchRequest,
  MappingsQuery,
  RegisterData,
  RegisterRequest,
  StatusData,
  StatusWriteRequest,
  VerticalMappingsData,
} from './schemas.js';

/** In the scenario catalogue's order (the token endpoint, src/api/token-endpoint.ts, comes after them). */
export const operations = {
  listVerticalMappings: operation({
    endpoint: 'mappings.get',
    method: 'get',
    path: '/v1/partnership/vertical-mappings',
    operationId: 'listVerticalMappings',
    summary: 'Vertical mapping of a parent account (endpoint 1)',
    description:
      "The parent account's partner taxonomy as mapped to the internal one (spec §2.1). An empty vertical_mappings means the taxonomy is not seeded: registration and controls writes then fail with 400.",
    needs: { parentQuery: true },
    query: MappingsQuery,
    ok: {
      description: 'The mapping; [] when not seeded.',
      schema: successEnvelope(VerticalMappingsData, 'VerticalMappingsEnvelope'),
    },
  }),
  registerAccount: operation({
    endpoint: 'register',
    method: 'post',
    path: '/v1/accounts/register/partnership',
    operationId: 'registerPartnershipAccount',
    summary: 'Register (create or match) a merchant account (endpoint 2)',
    description:
      'Idempotent on external_account_id: a repeated call matches the existing account. No Idempotency-Key is needed.',
    needs: { write: true, mapping: true },
    body: RegisterRequest,
    ok: {
      description: 'The new or matched account.',
      schema: successEnvelope(RegisterData, 'RegisterEnvelope'),
    },
  }),
  getControls: operation({
    endpoint: 'controls.get',
    method: 'get',
    path: '/v1/partnership/accounts/{account_id}/marketplacecontrolslists',
    operationId: 'getMarketplaceControlsList',
    summary: 'Read the marketplace controls list (endpoint 3)',
    description:
      'Blocked domains and the effective policy per partner sub-vertical (translated_verticals, in the partner taxonomy), with the content_hash to pass back as contentHash on the next PUT.',
    needs: { account: true, propagation: true },
    params: AccountParams,
    ok: {
      description: 'The list, translated to the partner taxonomy.',
      schema: successEnvelope(ControlsData, 'ControlsEnvelope'),
    },
  }),
  putControls: operation({
    endpoint: 'controls.put',
    method: 'put',
    path: '/v1/partnership/accounts/{account_id}/marketplacecontrolslists',
    operationId: 'replaceMarketplaceControlsList',
    summary: 'Replace the marketplace controls list (endpoint 4)',
    description:
      'Desired state: anything omitted becomes unblocked. Atomic: any unmapped pair rejects the whole write. A stale contentHash is 409 content_hash_mismatch: re-read, re-apply, retry (the same Idempotency-Key may be reused). A 409 idempotency_key_in_progress is different: the same request is still executing; wait Retry-After and send it again unchanged.',
    needs: {
      write: true,
      idempotent: true,
      account: true,
      propagation: true,
      mapping: true,
      contentHash: true,
    },
    params: AccountParams,
    body: ControlsWriteRequest,
    ok: {
      description: 'The stored list with a fresh content_hash (on a dry run: what would be written).',
      schema: successEnvelope(ControlsData, 'ControlsEnvelope'),
    },
  }),
  getStatus: operation({
    endpoint: 'status.get',
    method: 'get',
    path: '/v1/partnership/accounts/{account_id}/status',
    operationId: 'getPartnershipStatus',
    summary: 'Read the aggregate partnership status (endpoint 6)',
    description:
      'active when every non-archived variant is enabled, paused when every one is disabled or none exist, mixed otherwise (spec §3).',
    needs: { account: true, propagation: true },
    params: AccountParams,
    ok: {
      description: 'Aggregate status derived from the non-archived variants.',
      schema: successEnvelope(StatusData, 'StatusEnvelope'),
    },
  }),
  putStatus: operation({
    endpoint: 'status.put',
    method: 'put',
    path: '/v1/partnership/accounts/{account_id}/status',
    operationId: 'setPartnershipStatus',
    summary: 'Activate or pause the partnership (endpoint 5)',
    description:
      'Applies the body status to every non-archived page variant (no merge). If some variants fail to update, the answer is still 200, with error.code partial_failure: the failed variants kept their previous state, the aggregate is derived as always (mixed when variants now differ); keep request_id and contact support.',
    needs: { write: true, idempotent: true, account: true, propagation: true },
    params: AccountParams,
    body: StatusWriteRequest,
    ok: {
      description:
        'The resulting status and each variant after the call. A partial failure is also 200, with error.code partial_failure.',
      schema: successEnvelope(StatusData, 'StatusWriteEnvelope', { partial: true }),
    },
  }),
  patchLayout: operation({
    endpoint: 'layout.patch',
    method: 'patch',
    path: '/v1/partnership/accounts/{account_id}/layouts/{layout_id}',
    operationId: 'editLayout',
    summary: "Edit a layout (endpoint 7; request and response are the sandbox's assumption)",
    description:
      'The spec shows neither request nor response: the sandbox accepts {layout_type?, name?} (at least one) and answers the edited layout.',
    needs: { write: true, idempotent: true, account: true, notFound: ['layout_not_found'] },
    params: LayoutParams,
    body: LayoutPatchRequest,
    ok: { description: 'The edited layout.', schema: successEnvelope(LayoutData, 'LayoutEnvelope') },
  }),
} as const;

/**
 * Every route of the partner API, as method and path (OpenAPI's `{name}` segments): the
 * operations and the token endpoint. What a recording's reader (src/drift/api.ts) knows the
 * API's paths by.
 */
export const apiRoutes: readonly { method: string; path: string }[] = [
  ...Object.values(operations).map((o) => o.route),
  tokenRoute,
].map(({ method, path }) => ({ method: method.toUpperCase(), path }));
