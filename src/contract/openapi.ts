/**
 * The OpenAPI documents, generated from the same zod schemas that validate requests:
 *
 * - the sandbox document (`/openapi.sandbox.json`): the partnership API (the seven
 *   endpoints and the token endpoint) with the sandbox's own additions: the
 *   X-Sandbox-Scenario parameter and the X-Sandbox-* response headers;
 * - the partner document (`/openapi.json`): the same without any sandbox-only item, so
 *   clients generated from it are production clients;
 * - the partner document rendered as OpenAPI 3.0.3 (`/openapi-3.0.json`), by code
 *   (openapi-30.ts), for generators that read no 3.1;
 * - the control plane (`/__sandbox/openapi.json`).
 *
 * Generated once per origin, on first request.
 */
import { OpenAPIHono, z } from '@hono/zod-openapi';
import {
  AccountDetail,
  ArmAnswer,
  ArmRequest,
  Bundle,
  BundleImported,
  Catalogue,
  ChaosAnswer,
  ChaosList,
  ChaosRequest,
  ClearedAnswer,
  ClockAdvance,
  ClockView,
  CountAnswer,
  CountRequest,
  DisarmAnswer,
  Health,
  JournalAnswer,
  MappingSeed,
  MappingsAnswer,
  PartnerClockView,
  PartnerCreate,
  PartnerCredentials,
  PartnerList,
  PartnerResetAnswer,
  ReportAnswer,
  ResetAnswer,
  SnapshotInfo,
  SnapshotList,
  SnapshotRestored,
  SnapshotSave,
  SnapshotSaved,
  VariantAdmin,
  VariantCreate,
  VariantPatch,
} from './admin.js';
import { ErrorEnvelope, errorBody } from './envelope.js';
import type { ErrorCode } from './errors.js';
import { headerComponents, SANDBOX_HEADER_COMPONENTS, SANDBOX_PARAMETER } from './headers.js';
import { OAuthErrorBody, TokenRequest, TokenResponse } from './oauth.js';
import { toOpenApi30 } from './openapi-30.js';

const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });
const VERSION = '1.0.0';
const header = (name: keyof typeof headerComponents) => ({ $ref: `#/components/headers/${name}` });

/** A JSON document, walked and rewritten as plain data. */
// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are walked as plain JSON
export type OpenApiDocument = Record<string, any>;

/**
 * The package's license (LICENSE, package.json), by its SPDX identifier as OpenAPI 3.1 asks
 * (swagger-parser and Redocly require `identifier` or `url`). The 3.0.3 rendering has no
 * `identifier` field: it names the license's SPDX page as its url (openapi-30.ts).
 */
const LICENSE = { name: 'Apache-2.0', identifier: 'Apache-2.0' };
const CONTACT = { name: 'Partnership sandbox maintainers' };

/**
 * `{base_url}` as in the spec's conventions table, its default the origin the document
 * was fetched from: generators and "Try it out" use the default, a partner can point the
 * same document at its own sandbox.
 */
const servers = (origin: string) => [
  {
    url: '{base_url}',
    description:
      'The sandbox that served this document; base_url is the base address of the API (spec: {base_url}).',
    // No description on the variable: swagger-parser's 3.1 schema refuses one there
    // ("must NOT have unevaluated properties"), so the server's description says it.
    variables: { base_url: { default: origin } },
  },
];

/** Adds the token endpoint, the security schemes and the response headers to the partnership app's registry. */
export function registerPartnershipExtras(app: Pick<OpenAPIHono, 'openAPIRegistry'>): void {
  const registry = app.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An access token from POST /oauth/token (client credentials).',
  });
  registry.registerComponent('securitySchemes', 'clientSecretBasic', {
    type: 'http',
    scheme: 'basic',
    description:
      'client_secret_basic (RFC 6749 §2.3.1): client_id and client_secret, each form-urlencoded, as HTTP Basic credentials. The alternative, client_secret_post, sends them as client_id and client_secret in the body (the empty security requirement of POST /oauth/token).',
  });
  for (const [name, component] of Object.entries(headerComponents)) {
    registry.registerComponent('headers', name, component as never);
  }
  const common = {
    'X-Request-Id': header('XRequestId'),
    'X-Sandbox-Warning': header('XSandboxWarning'),
    'X-Sandbox-Scenario-Applied': header('XSandboxScenarioApplied'),
    'X-Sandbox-Chaos': header('XSandboxChaos'),
  };
  const envelopeError = (description: string, codes: ErrorCode[], extra = {}) => ({
    description,
    headers: { ...common, ...extra },
    ...json(errorBody(codes)),
  });
  const oauthError = (description: string, extra = {}) => ({
    description,
    headers: { ...common, ...extra },
    ...json(OAuthErrorBody),
  });
  registry.registerPath({
    method: 'post',
    path: '/oauth/token',
    operationId: 'requestAccessToken',
    tags: ['Authentication'],
    summary: 'OAuth 2.0 client-credentials grant (RFC 6749 §4.4)',
    description:
      'Form-encoded or JSON body. Client authentication: client_secret_basic (HTTP Basic) or client_secret_post (client_id and client_secret in the body), not both. Errors are RFC 6749 §5.2 bodies, not the envelope.',
    security: [{ clientSecretBasic: [] }, {}],
    request: {
      body: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': { schema: TokenRequest },
          'application/json': { schema: TokenRequest },
        },
      },
    },
    responses: {
      200: { description: 'An access token.', headers: common, ...json(TokenResponse) },
      400: {
        description: 'invalid_request, unsupported_grant_type or invalid_scope.',
        headers: common,
        ...json(OAuthErrorBody),
      },
      401: {
        description:
          'invalid_client: unknown client or wrong secret. WWW-Authenticate: Basic only when the client used HTTP Basic or sent no credentials (RFC 6749 §5.2); a client that authenticated in the body gets none.',
        headers: { ...common, 'WWW-Authenticate': header('WWWAuthenticateBasic') },
        ...json(OAuthErrorBody),
      },
      405: envelopeError('The token endpoint serves POST only.', ['method_not_allowed'], {
        Allow: header('Allow'),
      }),
      413: oauthError('invalid_request: the body is over the size limit.'),
      429: oauthError('temporarily_unavailable, with Retry-After (sandbox scenario rate-limited).', {
        'Retry-After': header('RetryAfter'),
      }),
      500: oauthError('server_error (sandbox scenario server-error=500).'),
      502: oauthError('server_error (sandbox scenario server-error=502).'),
      503: oauthError(
        "temporarily_unavailable (sandbox scenario server-error=503, or the sandbox's store, SANDBOX_DB, cannot take writes: a full disk, a read-only store, an I/O error).",
      ),
    },
  });
}

const INFO_DESCRIPTION =
  'The partner-facing Partnership Accounts API. Every response of the seven partnership endpoints is the envelope {status, error, message, request_id, data} (plus dry_run: true when dry_run=true was sent); error is {code, details?}, one schema per code.';

/**
 * The partnership documents: the sandbox one (generated), the partner one (the sandbox
 * one without its sandbox-only parameter and headers) and the partner one in OpenAPI 3.0.3.
 */
export function partnershipDocuments(app: Pick<OpenAPIHono, 'getOpenAPI31Document'>, origin: string) {
  const generated = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Partnership Accounts API (sandbox)',
      version: VERSION,
      description: `${INFO_DESCRIPTION} This is the sandbox document: it adds the sandbox-only X-Sandbox-Scenario parameter (fault injection, see GET /__sandbox/scenarios) and the X-Sandbox-Warning and X-Sandbox-Scenario-Applied response headers. The partner document without them: /openapi.json (OpenAPI 3.0.3: /openapi-3.0.json). Control plane: /__sandbox/openapi.json.`,
      contact: CONTACT,
      license: LICENSE,
    },
    servers: servers(origin),
    tags: [
      {
        name: 'Authentication',
        description: 'Token exchange (the sandbox contract; the spec leaves it open).',
      },
      { name: 'Partnership', description: 'The seven endpoints of the spec.' },
    ],
  }) as OpenApiDocument;
  const sandbox = finish(generated);
  const partner = withoutSandboxItems(sandbox);
  return { sandbox, partner, partner30: toOpenApi30(partner) };
}

/** What the generator leaves to tidy: the empty webhooks object. */
function finish(doc: OpenApiDocument): OpenApiDocument {
  const out = structuredClone(doc);
  if (out.webhooks && Object.keys(out.webhooks).length === 0) delete out.webhooks;
  for (const [kind, map] of Object.entries(out.components ?? {})) {
    if (map && typeof map === 'object' && Object.keys(map).length === 0) delete out.components[kind];
  }
  return out;
}

/** The partner document: no X-Sandbox-Scenario parameter, no X-Sandbox-* header, partner wording. */
export function withoutSandboxItems(doc: OpenApiDocument): OpenApiDocument {
  const out = structuredClone(doc);
  out.info.title = 'Partnership Accounts API';
  out.info.description = `${INFO_DESCRIPTION} Served by the sandbox; the sandbox document (with its fault-injection parameter and headers) is /openapi.sandbox.json, the same in OpenAPI 3.0.3 /openapi-3.0.json.`;
  const sandboxRefs = new Set(SANDBOX_HEADER_COMPONENTS.map((n) => `#/components/headers/${n}`));
  for (const item of Object.values(out.paths ?? {}) as OpenApiDocument[]) {
    for (const op of Object.values(item) as OpenApiDocument[]) {
      if (Array.isArray(op.parameters)) {
        op.parameters = op.parameters.filter(
          (p: OpenApiDocument) => !(p.in === 'header' && String(p.name).toLowerCase() === SANDBOX_PARAMETER),
        );
      }
      for (const response of Object.values(op.responses ?? {}) as OpenApiDocument[]) {
        for (const [name, h] of Object.entries(response.headers ?? {}) as [string, OpenApiDocument][]) {
          if (sandboxRefs.has(h.$ref)) delete response.headers[name];
        }
      }
    }
  }
  for (const name of SANDBOX_HEADER_COMPONENTS) delete out.components?.headers?.[name];
  return out;
}

const err = (description: string) => ({
  description,
  headers: { 'X-Request-Id': header('XRequestId') },
  ...json(ErrorEnvelope),
});
const ok = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  headers: { 'X-Request-Id': header('XRequestId') },
  ...json(schema),
});
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, ...json(schema) } });
const param = (name: string, description: string, example: string) =>
  z.object({
    [name]: z.string().openapi({ param: { name, in: 'path' }, description, example }),
  }) as z.ZodObject<Record<string, z.ZodString>>;
const parentParam = param('parent_account_id', 'The parent account ID of a partner.', 'pa_demo_platform');
const accountParam = param(
  'account_id',
  'An account ID (as returned by register).',
  'acct_01jbx7k2m9q4r8s6t3v5',
);
const snapshotParam = param('name', 'The name a snapshot was saved under.', 'seeded');
const query = (description: string, example?: string) =>
  z
    .string()
    .optional()
    .openapi({ description, ...(example === undefined ? {} : { example }) });

export function controlPlaneDocument(origin: string) {
  const doc = new OpenAPIHono();
  const r = doc.openAPIRegistry;
  r.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'SANDBOX_ADMIN_TOKEN, when set (every route but health then requires it).',
  });
  r.registerComponent('headers', 'XRequestId', headerComponents.XRequestId as never);
  r.registerComponent('headers', 'Allow', headerComponents.Allow as never);
  const security = [{ adminToken: [] }];
  const tags = ['Control plane'];
  r.registerComponent('headers', 'WWWAuthenticate', {
    description: 'The Bearer challenge of the control plane.',
    required: true,
    schema: { type: 'string' },
    example: 'Bearer realm="sandbox-control-plane"',
  });
  const common = {
    401: {
      ...err('SANDBOX_ADMIN_TOKEN is set and was not sent.'),
      headers: { 'X-Request-Id': header('XRequestId'), 'WWW-Authenticate': header('WWWAuthenticate') },
    },
    403: {
      ...err('A cross-site browser request (by its Origin or Sec-Fetch-Site): refused.'),
      headers: { 'X-Request-Id': header('XRequestId') },
    },
    405: {
      ...err('The path does not serve this method: Allow names the ones it serves.'),
      headers: { 'X-Request-Id': header('XRequestId'), Allow: header('Allow') },
    },
  };
  type PathConfig = Parameters<typeof r.registerPath>[0];
  const paths: (Omit<PathConfig, 'description' | 'operationId'> & {
    operationId: string;
    description: string;
  })[] = [
    {
      method: 'get',
      path: '/__sandbox/health',
      operationId: 'health',
      summary: 'Liveness and readiness',
      description:
        'Answers 200 once the server accepts traffic. Never needs the admin token. store.writable is false while the store (SANDBOX_DB) refuses writes (a full disk): still 200, because reads work, a restart would free no space and would lose the journal, and writes work again by themselves once space is freed.',
      responses: { 200: ok('Serving.', Health) },
    },
    {
      method: 'get',
      path: '/__sandbox/partners',
      operationId: 'listPartners',
      summary: 'Partners and their most recent accounts (up to 200 each)',
      description:
        'Every parent account with its client_id, whether its mapping is seeded, and its newest accounts.',
      responses: { 200: ok('Partners.', PartnerList) },
    },
    {
      method: 'post',
      path: '/__sandbox/reset',
      operationId: 'reset',
      summary: 'Wipe all state, load fixtures again, reset the clock',
      description: 'Atomic: a request in flight sees the state before or after, never a mix.',
      responses: { 200: ok('Reset.', ResetAnswer) },
    },
    {
      method: 'post',
      path: '/__sandbox/partners',
      operationId: 'createPartner',
      summary: 'Create a parent account with client credentials (missing values generated)',
      description:
        'Answers the parent account ID, client_id and client_secret, generated where not given. This answer is the only place the secret is shown: the sandbox keeps it only as a salted hash (no view, report, snapshot or bundle shows it).',
      request: body(PartnerCreate),
      responses: {
        201: ok('The credentials.', PartnerCredentials),
        400: err('Invalid body or existing partner.'),
      },
    },
    {
      method: 'put',
      path: '/__sandbox/partners/{parent_account_id}/vertical-mappings',
      operationId: 'seedVerticalMappings',
      summary: "Seed (replace) a parent's vertical mapping",
      description: "The operator's seeding (spec §1.2): the body replaces the whole mapping.",
      request: { params: parentParam, ...body(MappingSeed) },
      responses: {
        200: ok('The mapping.', MappingsAnswer),
        400: err('Invalid mapping.'),
        404: err('No such partner.'),
      },
    },
    {
      method: 'delete',
      path: '/__sandbox/partners/{parent_account_id}/vertical-mappings',
      operationId: 'unseedVerticalMappings',
      summary: "Un-seed a parent's vertical mapping",
      description: 'Empties the mapping: registration and controls writes of that parent then fail with 400.',
      request: { params: parentParam },
      responses: {
        200: ok('Empty mapping.', MappingsAnswer),
        404: err('No such partner.'),
      },
    },
    {
      method: 'get',
      path: '/__sandbox/accounts/{account_id}',
      operationId: 'getAccount',
      summary: 'The whole internal view of an account',
      description:
        'Pages, layouts, variants (archived too, with their IDs), the controls list, the propagation deadline, and last_status_write: what the latest status PUT did to each variant (which ones a partial failure failed).',
      request: { params: accountParam },
      responses: {
        200: ok('The account.', AccountDetail),
        404: err('No such account.'),
      },
    },
    {
      method: 'post',
      path: '/__sandbox/accounts/{account_id}/variants',
      operationId: 'addVariant',
      summary: 'Add a page variant',
      description: 'A new variant of one of the account’s pages, enabled unless told otherwise.',
      request: { params: accountParam, ...body(VariantCreate) },
      responses: {
        201: ok('The variant.', VariantAdmin),
        400: err('Invalid body.'),
        404: err('No such account.'),
      },
    },
    {
      method: 'patch',
      path: '/__sandbox/variants/{variant_id}',
      operationId: 'updateVariant',
      summary: 'Enable, disable or archive a variant',
      description: 'Sets enabled, archived or both.',
      request: {
        params: param(
          'variant_id',
          'A variant ID (GET /__sandbox/accounts/{account_id} lists them).',
          '01936b2e-7c4a-7d21-9f3e-4b5c6d7e8f90',
        ),
        ...body(VariantPatch),
      },
      responses: {
        200: ok('The variant.', VariantAdmin),
        400: err('Invalid body.'),
        404: err('No such variant.'),
      },
    },
    {
      method: 'get',
      path: '/__sandbox/clock',
      operationId: 'getClock',
      summary: 'The sandbox clock',
      description: 'Token expiry, the idempotency window and auth propagation follow this clock.',
      responses: { 200: ok('Now.', ClockView) },
    },
    {
      method: 'post',
      path: '/__sandbox/clock/advance',
      operationId: 'advanceClock',
      summary: 'Advance the sandbox clock',
      description: 'Moves every partner’s clock forward by the given seconds.',
      request: body(ClockAdvance),
      responses: { 200: ok('Now.', ClockView), 400: err('Invalid seconds.') },
    },
    {
      method: 'get',
      path: '/__sandbox/requests',
      operationId: 'listRequests',
      summary: 'The request journal, newest first',
      description: 'Every partnership and token call, with secrets redacted; filterable.',
      request: {
        query: z.object({
          account_id: query('Only calls about this account.'),
          parent_account_id: query('Only calls of this parent account.', 'pa_demo_platform'),
          method: query('Only calls with this HTTP method.', 'PUT'),
          path: query('Only calls to this path.'),
          status: query('Only answers with this HTTP status.', '409'),
          since: query('Only calls at or after this time (ISO 8601).'),
          limit: query('At most this many entries.', '50'),
        }),
      },
      responses: { 200: ok('Entries.', JournalAnswer), 400: err('Invalid filter.') },
    },
    {
      method: 'delete',
      path: '/__sandbox/requests',
      operationId: 'clearRequests',
      summary: 'Clear the journal',
      description: 'Drops every journal entry.',
      responses: { 200: ok('Cleared.', ClearedAnswer) },
    },
    {
      method: 'get',
      path: '/__sandbox/scenarios',
      operationId: 'listScenarios',
      summary: 'The scenario catalogue: built-ins, presets, armed',
      description: 'Every scenario with its value and where it applies, the presets, and what is armed.',
      responses: { 200: ok('Catalogue.', Catalogue) },
    },
    {
      method: 'put',
      path: '/__sandbox/scenarios',
      operationId: 'armScenario',
      summary: 'Arm a scenario for a parent or an account',
      description: 'For the next `times` requests it applies to, or until disarmed.',
      request: body(ArmRequest),
      responses: {
        200: ok('Armed.', ArmAnswer),
        400: err('Unknown scenario or bad value.'),
        404: err('No such partner or account.'),
      },
    },
    {
      method: 'delete',
      path: '/__sandbox/scenarios',
      operationId: 'disarmScenarios',
      summary: 'Disarm all',
      description: 'Disarms every armed scenario.',
      responses: { 200: ok('Disarmed.', DisarmAnswer) },
    },
    // Chaos (docs/chaos.md)
    {
      method: 'put',
      path: '/__sandbox/chaos',
      operationId: 'setChaos',
      summary: 'Set a chaos profile for a partner or every partner',
      description:
        "From now on each call of that partner (of every partner without parent_account_id: each partner its own sequence) fails with probability `rate` with one of `scenarios`, drawn from `seed` and the call's position. Replaces that partner's previous profile; positions start at 0.",
      request: body(ChaosRequest),
      responses: {
        200: ok('The profile.', ChaosAnswer),
        400: err(
          'A bad rate or seed, or a scenario that is unknown or not a transient failure: the field is named.',
        ),
        404: err('No such partner.'),
      },
    },
    {
      method: 'get',
      path: '/__sandbox/chaos',
      operationId: 'getChaos',
      summary: 'The chaos profiles in force',
      description:
        'Each with the calls it saw and the calls it failed, by scenario, and each partner’s call position.',
      responses: { 200: ok('Profiles.', ChaosList) },
    },
    {
      method: 'delete',
      path: '/__sandbox/chaos',
      operationId: 'endChaos',
      summary: 'End chaos profiles',
      description: 'Ends every profile, or with parent_account_id that partner’s own only.',
      request: {
        query: z.object({
          parent_account_id: query('End only this partner’s own profile.', 'pa_demo_platform'),
        }),
      },
      responses: {
        200: ok('The profiles still in force.', ChaosList),
        400: err('Invalid query.'),
        404: err('No such partner.'),
      },
    },
    {
      method: 'get',
      path: '/__sandbox/report',
      operationId: 'getReport',
      summary: 'Integration report of a parent account (JSON, or JUnit XML with format=junit)',
      description: 'What the partner’s integration exercised, check by check.',
      request: {
        query: z.object({
          parent_account_id: z
            .string()
            .openapi({ description: 'The partner to report on.', example: 'pa_demo_platform' }),
          format: z
            .enum(['json', 'junit'])
            .optional()
            .openapi({ description: 'json (default) or junit.', example: 'json' }),
        }),
      },
      responses: {
        200: {
          description: 'The report.',
          headers: { 'X-Request-Id': header('XRequestId') },
          content: {
            'application/json': { schema: ReportAnswer },
            'application/xml': { schema: z.string() },
          },
        },
        400: err('Missing parent_account_id or bad format.'),
        404: err('No such partner.'),
      },
    },
    // Test isolation (docs/parallel-tests.md)
    {
      method: 'post',
      path: '/__sandbox/partners/{parent_account_id}/reset',
      operationId: 'resetPartner',
      summary: 'Wipe one partner',
      description:
        "Wipes that partner's accounts (pages, layouts, variants, controls lists), idempotency keys, journal entries, armed scenarios and clock offset; its credentials, mapping and tokens stay; no other partner is touched.",
      request: { params: parentParam },
      responses: { 200: ok('Reset.', PartnerResetAnswer), 404: err('No such partner.') },
    },
    {
      method: 'get',
      path: '/__sandbox/partners/{parent_account_id}/clock',
      operationId: 'getPartnerClock',
      summary: "A partner's clock",
      description: "The global clock plus this partner's own offset.",
      request: { params: parentParam },
      responses: { 200: ok("The partner's time.", PartnerClockView), 404: err('No such partner.') },
    },
    {
      method: 'post',
      path: '/__sandbox/partners/{parent_account_id}/clock/advance',
      operationId: 'advancePartnerClock',
      summary: "Advance one partner's clock",
      description:
        'Token expiry, the idempotency window, propagation and timestamps of its calls follow it; other partners are untouched.',
      request: { params: parentParam, ...body(ClockAdvance) },
      responses: {
        200: ok("The partner's time.", PartnerClockView),
        400: err('Invalid seconds.'),
        404: err('No such partner.'),
      },
    },
    {
      method: 'post',
      path: '/__sandbox/snapshots',
      operationId: 'saveSnapshot',
      summary: 'Save the whole state under a name',
      description:
        'Store, clocks, armed scenarios and journal, in memory; saving a name again replaces it (200).',
      request: body(SnapshotSave),
      responses: {
        200: ok('Saved, replacing a snapshot of that name.', SnapshotSaved),
        201: ok('Saved.', SnapshotSaved),
        400: err('Invalid name, or too many snapshots.'),
      },
    },
    {
      method: 'get',
      path: '/__sandbox/snapshots',
      operationId: 'listSnapshots',
      summary: 'The saved snapshots',
      description: 'Each with its size and time.',
      responses: { 200: ok('Snapshots.', SnapshotList) },
    },
    {
      method: 'post',
      path: '/__sandbox/snapshots/{name}/restore',
      operationId: 'restoreSnapshot',
      summary: 'Put the whole sandbox back to a snapshot',
      description: 'Atomic with respect to requests: a request in flight sees the state before or after it.',
      request: { params: snapshotParam },
      responses: { 200: ok('Restored.', SnapshotRestored), 404: err('No such snapshot.') },
    },
    {
      method: 'delete',
      path: '/__sandbox/snapshots/{name}',
      operationId: 'deleteSnapshot',
      summary: 'Drop a snapshot',
      description: 'Frees its memory (or its file, for a file store).',
      request: { params: snapshotParam },
      responses: {
        200: ok('Dropped.', z.object({ deleted: SnapshotInfo })),
        404: err('No such snapshot.'),
      },
    },
    {
      method: 'post',
      path: '/__sandbox/requests/count',
      operationId: 'countRequests',
      summary: 'How many journaled calls match',
      description:
        "The journal's filters plus a header (by name, and value as sent) and a substring of the request body as the journal shows it (redacted). body_contains searches only what the journal kept of each body (SANDBOX_JOURNAL_BODY_BYTES, default 16 KiB): a match past the cut is not counted, and the answer's bodies_truncated says how many of the entries the other filters match were cut.",
      request: body(CountRequest),
      responses: { 200: ok('The count.', CountAnswer), 400: err('Invalid filter.') },
    },
    {
      method: 'get',
      path: '/__sandbox/partners/{parent_account_id}/bundle',
      operationId: 'exportBundle',
      summary: 'One partner as one JSON file',
      description: 'Its whole state, journal, clock and armed scenarios: what a failed CI job uploads.',
      request: { params: parentParam },
      responses: { 200: ok('The bundle.', Bundle), 404: err('No such partner.') },
    },
    {
      method: 'post',
      path: '/__sandbox/bundles',
      operationId: 'importBundle',
      summary: 'Load a bundle',
      description:
        'The partner is replaced if it exists; nothing is loaded unless all of the bundle is valid.',
      request: body(Bundle),
      responses: {
        200: ok('Loaded.', BundleImported),
        400: err('Invalid, inconsistent or foreign bundle: the field is named; nothing was loaded.'),
        413: err('Bundle larger than the limit (32 MiB).'),
      },
    },
  ];
  // Every route that reads a JSON body refuses another media type and an oversized body.
  const bodyErrors = {
    413: err('Body larger than the limit (SANDBOX_BODY_LIMIT_BYTES).'),
    415: err('Not application/json, or a charset other than UTF-8.'),
  };
  // Every route that writes to the store may find it unable to take the write (the journal,
  // armed scenarios and dropping a snapshot live in memory and never do).
  const inMemoryOnly = new Set(['/__sandbox/requests', '/__sandbox/requests/count', '/__sandbox/scenarios']);
  const writesStore = (p: { method: string; path: string }) =>
    p.method !== 'get' &&
    !inMemoryOnly.has(p.path) &&
    !(p.method === 'delete' && p.path.startsWith('/__sandbox/snapshots/'));
  const storeErrors = {
    503: err(
      "store_not_writable: the sandbox's store (SANDBOX_DB) cannot take writes (a full disk, a read-only store, an I/O error); nothing was written.",
    ),
  };
  for (const p of paths) {
    const isHealth = p.path === '/__sandbox/health';
    r.registerPath({
      ...p,
      tags,
      // Health is open even when SANDBOX_ADMIN_TOKEN is set: an empty requirement list.
      security: isHealth ? [] : security,
      responses: {
        ...(p.request?.body ? bodyErrors : {}),
        ...(writesStore(p) ? storeErrors : {}),
        ...p.responses,
        ...(isHealth ? { 405: common[405] } : common),
      },
    });
  }
  const out = doc.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Partnership sandbox control plane',
      version: VERSION,
      description: 'docs/control-plane.md: plain JSON in and out; errors use the partnership error envelope.',
      contact: CONTACT,
      license: LICENSE,
    },
    servers: servers(origin),
    tags: [{ name: 'Control plane', description: 'The sandbox control interface (docs/control-plane.md).' }],
  }) as OpenApiDocument;
  return finish(out);
}
