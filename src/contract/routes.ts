/**
 * The seven partnership endpoints of spec §4 as route contracts: method, path,
 * parameters, body and every documented response. The HTTP layer (src/api) binds a
 * pipeline and a handler to each; the OpenAPI document is generated from these.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { ErrorEnvelope, successEnvelope } from './envelope.js';
import {
  AccountParams,
  ControlsData,
  ControlsWriteRequest,
  DryRunQuery,
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

const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, ...json(ErrorEnvelope) });

const authErrors = {
  401: error(
    'Missing, invalid or expired bearer token; or, for a newly registered account, token authentication that has not propagated yet (retry every 15 to 30 s for up to 2 minutes).',
  ),
  403: error(
    "X-Platform-Parent-Account-Id differs from the token's parent; or the propagation race on a new account.",
  ),
  429: error('Rate limited (sandbox scenario rate-limited); see Retry-After.'),
  500: error('Internal error (or the server-error scenario).'),
  502: error('Bad gateway (server-error scenario).'),
  503: error('Service unavailable (server-error scenario).'),
};
const badRequest = error(
  'Validation error naming the field, malformed JSON, missing Idempotency-Key, or an unknown X-Sandbox-Scenario.',
);
const writeErrors = {
  400: badRequest,
  ...authErrors,
  413: error('Request body larger than the limit.'),
  415: error('Content-Type is not application/json.'),
  422: error(
    'X-Platform-Parent-Account-Id missing on a write; or, in strict idempotency mode, a reused Idempotency-Key with a different payload.',
  ),
};
const notFound = {
  404: error("No such account for this parent account (another parent's account is answered the same)."),
};

const scenarioHeader = z.string().optional().openapi({
  description:
    'Sandbox only: fault-injection scenarios, comma separated, each name or name=value (GET /__sandbox/scenarios lists them).',
});

const parentHeader = (required: boolean) =>
  z.object({
    'x-sandbox-scenario': scenarioHeader,
    'x-platform-parent-account-id': required
      ? z.string().openapi({
          description: "The partner platform's parent account ID. Required on every write; missing: 422.",
        })
      : z
          .string()
          .optional()
          .openapi({ description: "The partner platform's parent account ID (recommended on reads)." }),
  });
const writeHeaders = (idempotent: boolean) =>
  idempotent
    ? parentHeader(true).extend({
        'idempotency-key': z
          .string()
          .openapi({ description: 'A fresh UUID per logical retry group; missing: 400.' }),
      })
    : parentHeader(true);

export const security = [{ bearerAuth: [] }];

export const routes = {
  listVerticalMappings: createRoute({
    method: 'get',
    path: '/v1/partnership/vertical-mappings',
    operationId: 'listVerticalMappings',
    tags: ['Partnership'],
    summary: 'Vertical mapping of a parent account (endpoint 1)',
    security,
    request: { query: MappingsQuery, headers: parentHeader(false) },
    responses: {
      200: {
        description: 'The mapping; [] when not seeded.',
        ...json(successEnvelope(VerticalMappingsData, 'VerticalMappingsEnvelope')),
      },
      400: badRequest,
      ...authErrors,
    },
  }),
  registerAccount: createRoute({
    method: 'post',
    path: '/v1/accounts/register/partnership',
    operationId: 'registerPartnershipAccount',
    tags: ['Partnership'],
    summary: 'Register (create or match) a merchant account (endpoint 2)',
    description:
      'Idempotent on external_account_id: a repeated call matches the existing account. No Idempotency-Key is needed.',
    security,
    request: {
      query: DryRunQuery,
      headers: writeHeaders(false),
      body: { required: true, ...json(RegisterRequest) },
    },
    responses: {
      200: {
        description: 'The new or matched account.',
        ...json(successEnvelope(RegisterData, 'RegisterEnvelope')),
      },
      ...writeErrors,
    },
  }),
  getControls: createRoute({
    method: 'get',
    path: '/v1/partnership/accounts/{account_id}/marketplacecontrolslists',
    operationId: 'getMarketplaceControlsList',
    tags: ['Partnership'],
    summary: 'Read the marketplace controls list (endpoint 3)',
    security,
    request: { params: AccountParams, headers: parentHeader(false) },
    responses: {
      200: {
        description: 'The list, translated to the partner taxonomy.',
        ...json(successEnvelope(ControlsData, 'ControlsEnvelope')),
      },
      400: badRequest,
      ...authErrors,
      ...notFound,
    },
  }),
  putControls: createRoute({
    method: 'put',
    path: '/v1/partnership/accounts/{account_id}/marketplacecontrolslists',
    operationId: 'replaceMarketplaceControlsList',
    tags: ['Partnership'],
    summary: 'Replace the marketplace controls list (endpoint 4)',
    description:
      'Desired state: anything omitted becomes unblocked. Atomic: any unmapped pair rejects the whole write.',
    security,
    request: {
      params: AccountParams,
      query: DryRunQuery,
      headers: writeHeaders(true),
      body: { required: true, ...json(ControlsWriteRequest) },
    },
    responses: {
      200: {
        description: 'The stored list with a fresh content_hash (on a dry run: what would be written).',
        ...json(successEnvelope(ControlsData, 'ControlsEnvelope')),
      },
      ...writeErrors,
      ...notFound,
      409: error(
        'contentHash no longer matches the stored list (re-read and retry); or the Idempotency-Key is still in progress.',
      ),
    },
  }),
  putStatus: createRoute({
    method: 'put',
    path: '/v1/partnership/accounts/{account_id}/status',
    operationId: 'setPartnershipStatus',
    tags: ['Partnership'],
    summary: 'Activate or pause the partnership (endpoint 5)',
    security,
    request: {
      params: AccountParams,
      query: DryRunQuery,
      headers: writeHeaders(true),
      body: { required: true, ...json(StatusWriteRequest) },
    },
    responses: {
      200: {
        description:
          'The resulting status and per-variant outcome. A partial failure is also 200, with error.code partial_failure and status mixed.',
        ...json(successEnvelope(StatusData, 'StatusWriteEnvelope', { partial: true })),
      },
      ...writeErrors,
      ...notFound,
      409: error('The Idempotency-Key is still in progress.'),
    },
  }),
  getStatus: createRoute({
    method: 'get',
    path: '/v1/partnership/accounts/{account_id}/status',
    operationId: 'getPartnershipStatus',
    tags: ['Partnership'],
    summary: 'Read the aggregate partnership status (endpoint 6)',
    security,
    request: { params: AccountParams, headers: parentHeader(false) },
    responses: {
      200: {
        description: 'Aggregate status derived from the non-archived variants.',
        ...json(successEnvelope(StatusData, 'StatusEnvelope')),
      },
      400: badRequest,
      ...authErrors,
      ...notFound,
    },
  }),
  patchLayout: createRoute({
    method: 'patch',
    path: '/v1/partnership/accounts/{account_id}/layouts/{layout_id}',
    operationId: 'editLayout',
    tags: ['Partnership'],
    summary: "Edit a layout (endpoint 7; request and response are the sandbox's assumption)",
    security,
    request: {
      params: LayoutParams,
      query: DryRunQuery,
      headers: writeHeaders(true),
      body: { required: true, ...json(LayoutPatchRequest) },
    },
    responses: {
      200: { description: 'The edited layout.', ...json(successEnvelope(LayoutData, 'LayoutEnvelope')) },
      ...writeErrors,
      404: error('No such account, or no such layout on this account.'),
      409: error('The Idempotency-Key is still in progress.'),
    },
  }),
} as const;
