/**
 * The seven partnership endpoints of spec §4 as route contracts: method, path,
 * parameters, body and every documented response. The HTTP layer (src/api) binds a
 * pipeline and a handler to each; the OpenAPI document is generated from these.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { errorBody, successEnvelope } from './envelope.js';
import type { ErrorCode } from './errors.js';
import type { HeaderComponent } from './headers.js';
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

/** The parent account of the default fixtures: examples that work against a fresh sandbox. */
export const DEMO_PARENT = 'pa_demo_platform';

const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });

/** A reusable response header (components.headers, registered in openapi.ts). */
const header = (name: HeaderComponent) => ({ $ref: `#/components/headers/${name}` });
/** On every answer: X-Request-Id, and in the sandbox document the X-Sandbox-* headers. */
const commonHeaders = {
  'X-Request-Id': header('XRequestId'),
  'X-Sandbox-Warning': header('XSandboxWarning'),
  'X-Sandbox-Scenario-Applied': header('XSandboxScenarioApplied'),
  'X-Sandbox-Chaos': header('XSandboxChaos'),
};

type Headers = Record<string, { $ref: string }>;
const success = <T extends z.ZodType>(description: string, schema: T, headers: Headers = {}) => ({
  description,
  headers: { ...commonHeaders, ...headers },
  ...json(schema),
});
const failure = (description: string, codes: readonly ErrorCode[], headers: Headers = {}) => ({
  description,
  headers: { ...commonHeaders, ...headers },
  ...json(errorBody(codes)),
});

/** Which checks a route's pipeline runs (src/http/pipeline.ts), so which errors it can answer. */
interface Errors {
  write?: boolean;
  idempotent?: boolean;
  propagation?: boolean;
  /** Translates partner verticals (register, controls PUT): 400 vertical_not_mapped / not seeded. */
  mapping?: boolean;
  /** Takes a parent_account_id query (mappings GET): 403 forbidden. */
  parentQuery?: boolean;
  /** 404s it can answer. */
  notFound?: ErrorCode[];
  /** 409 content_hash_mismatch (controls PUT). */
  contentHash?: boolean;
}

/** Every error response of a route, each with the error codes it can carry and its headers. */
function errors(o: Errors) {
  const badRequest: ErrorCode[] = ['validation_error'];
  if (o.write) badRequest.push('malformed_json');
  if (o.idempotent) badRequest.push('missing_idempotency_key');
  if (o.mapping) badRequest.push('vertical_not_mapped', 'vertical_mapping_not_seeded');
  // Node's HTTP parser refuses a malformed request (a repeated Content-Length, a bad header) before any route.
  badRequest.push('unknown_scenario', 'malformed_request');
  const unauthorized: ErrorCode[] = ['unauthorized', 'token_expired'];
  const forbidden: ErrorCode[] = ['parent_account_mismatch'];
  if (o.parentQuery) forbidden.push('forbidden');
  if (o.propagation) {
    unauthorized.push('auth_propagation_pending');
    forbidden.push('auth_propagation_pending');
  }
  const propagationNote = o.propagation
    ? ' For a newly registered account: token authentication that has not propagated yet (auth_propagation_pending; retry every 15 to 30 s for up to 2 minutes).'
    : '';
  return {
    400: failure(
      o.write
        ? 'Validation error naming the field, malformed JSON, a missing Idempotency-Key, or an unmapped partner vertical.'
        : 'Validation error naming the query or path parameter.',
      badRequest,
    ),
    401: failure(`Missing, invalid or expired bearer token.${propagationNote}`, unauthorized, {
      'WWW-Authenticate': header('WWWAuthenticate'),
    }),
    403: failure(
      `X-Platform-Parent-Account-Id (or the parent_account_id query) names another parent than the token's.${propagationNote}`,
      forbidden,
    ),
    ...(o.notFound
      ? {
          404: failure(
            o.notFound.includes('layout_not_found')
              ? "No such account for this parent account (another parent's account is answered the same), or no such layout on this account."
              : "No such account for this parent account (another parent's account is answered the same).",
            o.notFound,
          ),
        }
      : {}),
    405: failure(
      'The path does not serve this method: Allow names the ones it serves.',
      ['method_not_allowed'],
      {
        Allow: header('Allow'),
      },
    ),
    ...(o.idempotent
      ? {
          409: failure(
            o.contentHash
              ? 'content_hash_mismatch: contentHash no longer matches the stored list (re-read, re-apply your change, retry with the new content_hash). idempotency_key_in_progress: the same Idempotency-Key is still executing (wait Retry-After, then send the same request with the same key).'
              : 'idempotency_key_in_progress: the same Idempotency-Key is still executing (wait Retry-After, then send the same request with the same key).',
            o.contentHash
              ? ['content_hash_mismatch', 'idempotency_key_in_progress']
              : ['idempotency_key_in_progress'],
            { 'Retry-After': header('RetryAfter') },
          ),
        }
      : {}),
    ...(o.write
      ? {
          413: failure('Request body larger than the limit.', ['payload_too_large']),
          415: failure('Content-Type is not application/json.', ['unsupported_media_type']),
          422: failure(
            o.idempotent
              ? 'X-Platform-Parent-Account-Id missing; or an Idempotency-Key first used on another operation (or, in strict mode, with another payload).'
              : 'X-Platform-Parent-Account-Id missing.',
            o.idempotent
              ? ['missing_parent_account_header', 'idempotency_key_reused']
              : ['missing_parent_account_header'],
          ),
        }
      : {}),
    429: failure('Too many requests: wait Retry-After seconds; nothing was applied.', ['rate_limited'], {
      'Retry-After': header('RetryAfter'),
    }),
    500: failure('Internal error: quote request_id.', ['internal_error']),
    502: failure('Bad gateway; nothing was applied.', ['bad_gateway']),
    503: o.write
      ? failure(
          "Service unavailable; nothing was applied. store_not_writable (sandbox only): the sandbox's store (SANDBOX_DB) cannot take writes (a full disk, a read-only store, an I/O error); nothing was written and the Idempotency-Key stays free.",
          ['service_unavailable', 'store_not_writable'],
        )
      : failure('Service unavailable; nothing was applied.', ['service_unavailable']),
  };
}

const scenarioHeader = z.string().optional().openapi({
  description:
    'Sandbox only: fault-injection scenarios, comma separated, each name or name=value (GET /__sandbox/scenarios lists them). Only in the sandbox document (/openapi.sandbox.json).',
  example: 'latency=100',
});

const parentHeader = (required: boolean) =>
  z.object({
    'x-sandbox-scenario': scenarioHeader,
    'x-platform-parent-account-id': required
      ? z.string().openapi({
          description: "The partner platform's parent account ID. Required on every write; missing: 422.",
          example: DEMO_PARENT,
        })
      : z.string().optional().openapi({
          description: "The partner platform's parent account ID (recommended on reads).",
          example: DEMO_PARENT,
        }),
  });
const writeHeaders = (idempotent: boolean) =>
  idempotent
    ? parentHeader(true).extend({
        'idempotency-key': z.string().openapi({
          description:
            'A fresh UUID per logical retry group (retries of one write reuse it; a new write, or the real write after a dry run, takes a fresh one). Missing: 400.',
          example: '5f0c6a2e-8d1b-4f3a-9c7e-2b4d6f8a1c3e',
        }),
      })
    : parentHeader(true);

/** Idempotent writes' 2xx: Idempotent-Replayed: true when the stored answer was replayed. */
const replayed = { 'Idempotent-Replayed': header('IdempotentReplayed') };

export const security = [{ bearerAuth: [] }];

export const routes = {
  listVerticalMappings: createRoute({
    method: 'get',
    path: '/v1/partnership/vertical-mappings',
    operationId: 'listVerticalMappings',
    tags: ['Partnership'],
    summary: 'Vertical mapping of a parent account (endpoint 1)',
    description:
      "The parent account's partner taxonomy as mapped to the internal one (spec §2.1). An empty vertical_mappings means the taxonomy is not seeded: registration and controls writes then fail with 400.",
    security,
    request: { query: MappingsQuery, headers: parentHeader(false) },
    responses: {
      200: success(
        'The mapping; [] when not seeded.',
        successEnvelope(VerticalMappingsData, 'VerticalMappingsEnvelope'),
      ),
      ...errors({ parentQuery: true }),
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
      200: success('The new or matched account.', successEnvelope(RegisterData, 'RegisterEnvelope')),
      ...errors({ write: true, mapping: true }),
    },
  }),
  getControls: createRoute({
    method: 'get',
    path: '/v1/partnership/accounts/{account_id}/marketplacecontrolslists',
    operationId: 'getMarketplaceControlsList',
    tags: ['Partnership'],
    summary: 'Read the marketplace controls list (endpoint 3)',
    description:
      'Blocked domains and the effective policy per partner sub-vertical (translated_verticals, in the partner taxonomy), with the content_hash to pass back as contentHash on the next PUT.',
    security,
    request: { params: AccountParams, headers: parentHeader(false) },
    responses: {
      200: success(
        'The list, translated to the partner taxonomy.',
        successEnvelope(ControlsData, 'ControlsEnvelope'),
      ),
      ...errors({ propagation: true, notFound: ['account_not_found'] }),
    },
  }),
  putControls: createRoute({
    method: 'put',
    path: '/v1/partnership/accounts/{account_id}/marketplacecontrolslists',
    operationId: 'replaceMarketplaceControlsList',
    tags: ['Partnership'],
    summary: 'Replace the marketplace controls list (endpoint 4)',
    description:
      'Desired state: anything omitted becomes unblocked. Atomic: any unmapped pair rejects the whole write. A stale contentHash is 409 content_hash_mismatch: re-read, re-apply, retry (the same Idempotency-Key may be reused). A 409 idempotency_key_in_progress is different: the same request is still executing; wait Retry-After and send it again unchanged.',
    security,
    request: {
      params: AccountParams,
      query: DryRunQuery,
      headers: writeHeaders(true),
      body: { required: true, ...json(ControlsWriteRequest) },
    },
    responses: {
      200: success(
        'The stored list with a fresh content_hash (on a dry run: what would be written).',
        successEnvelope(ControlsData, 'ControlsEnvelope'),
        replayed,
      ),
      ...errors({
        write: true,
        idempotent: true,
        propagation: true,
        mapping: true,
        notFound: ['account_not_found'],
        contentHash: true,
      }),
    },
  }),
  putStatus: createRoute({
    method: 'put',
    path: '/v1/partnership/accounts/{account_id}/status',
    operationId: 'setPartnershipStatus',
    tags: ['Partnership'],
    summary: 'Activate or pause the partnership (endpoint 5)',
    description:
      'Applies the body status to every non-archived page variant (no merge). If some variants fail to update, the answer is still 200, with error.code partial_failure: the failed variants kept their previous state, the aggregate is derived as always (mixed when variants now differ); keep request_id and contact support.',
    security,
    request: {
      params: AccountParams,
      query: DryRunQuery,
      headers: writeHeaders(true),
      body: { required: true, ...json(StatusWriteRequest) },
    },
    responses: {
      200: success(
        'The resulting status and each variant after the call. A partial failure is also 200, with error.code partial_failure.',
        successEnvelope(StatusData, 'StatusWriteEnvelope', { partial: true }),
        replayed,
      ),
      ...errors({ write: true, idempotent: true, propagation: true, notFound: ['account_not_found'] }),
    },
  }),
  getStatus: createRoute({
    method: 'get',
    path: '/v1/partnership/accounts/{account_id}/status',
    operationId: 'getPartnershipStatus',
    tags: ['Partnership'],
    summary: 'Read the aggregate partnership status (endpoint 6)',
    description:
      'active when every non-archived variant is enabled, paused when every one is disabled or none exist, mixed otherwise (spec §3).',
    security,
    request: { params: AccountParams, headers: parentHeader(false) },
    responses: {
      200: success(
        'Aggregate status derived from the non-archived variants.',
        successEnvelope(StatusData, 'StatusEnvelope'),
      ),
      ...errors({ propagation: true, notFound: ['account_not_found'] }),
    },
  }),
  patchLayout: createRoute({
    method: 'patch',
    path: '/v1/partnership/accounts/{account_id}/layouts/{layout_id}',
    operationId: 'editLayout',
    tags: ['Partnership'],
    summary: "Edit a layout (endpoint 7; request and response are the sandbox's assumption)",
    description:
      'The spec shows neither request nor response: the sandbox accepts {layout_type?, name?} (at least one) and answers the edited layout.',
    security,
    request: {
      params: LayoutParams,
      query: DryRunQuery,
      headers: writeHeaders(true),
      body: { required: true, ...json(LayoutPatchRequest) },
    },
    responses: {
      200: success('The edited layout.', successEnvelope(LayoutData, 'LayoutEnvelope'), replayed),
      ...errors({ write: true, idempotent: true, notFound: ['account_not_found', 'layout_not_found'] }),
    },
  }),
} as const;
