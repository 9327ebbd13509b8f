/**
 * The OpenAPI 3.1 documents, generated from the same zod schemas that validate
 * requests: the partnership API (the seven endpoints and the token endpoint) and the
 * control plane. Generated once, on first request.
 */
import { OpenAPIHono, z } from '@hono/zod-openapi';
import {
  AccountDetail,
  Armed,
  ArmRequest,
  Bundle,
  BundleImported,
  Catalogue,
  ClockAdvance,
  ClockView,
  CountAnswer,
  CountRequest,
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
  SnapshotInfo,
  SnapshotList,
  SnapshotRestored,
  SnapshotSave,
  SnapshotSaved,
  VariantAdmin,
  VariantCreate,
  VariantPatch,
} from './admin.js';
import { ErrorEnvelope } from './envelope.js';
import { OAuthErrorBody, TokenRequest, TokenResponse } from './oauth.js';

const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });
const VERSION = '1.0.0';

/** Adds the token endpoint and the security schemes to the partnership app's registry. */
export function registerPartnershipExtras(app: Pick<OpenAPIHono, 'openAPIRegistry'>): void {
  const registry = app.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An access token from POST /oauth/token (client credentials).',
  });
  registry.registerPath({
    method: 'post',
    path: '/oauth/token',
    operationId: 'requestAccessToken',
    tags: ['Authentication'],
    summary: 'OAuth 2.0 client-credentials grant (RFC 6749 §4.4)',
    description:
      'Form-encoded or JSON body; client credentials in the body or with HTTP Basic. Errors are RFC 6749 §5.2 bodies, not the envelope.',
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
      200: { description: 'An access token.', ...json(TokenResponse) },
      400: {
        description: 'invalid_request, unsupported_grant_type or invalid_scope.',
        ...json(OAuthErrorBody),
      },
      401: {
        description:
          'invalid_client; WWW-Authenticate: Basic when the client used HTTP Basic or sent no credentials.',
        ...json(OAuthErrorBody),
      },
      413: { description: 'Body over the size limit (invalid_request).', ...json(OAuthErrorBody) },
      429: {
        description: 'temporarily_unavailable, with Retry-After (sandbox scenario rate-limited).',
        ...json(OAuthErrorBody),
      },
      500: { description: 'server_error (sandbox scenario server-error=500).', ...json(OAuthErrorBody) },
      502: { description: 'server_error (sandbox scenario server-error=502).', ...json(OAuthErrorBody) },
      503: {
        description: 'temporarily_unavailable (sandbox scenario server-error=503).',
        ...json(OAuthErrorBody),
      },
    },
  });
}

export function partnershipDocument(app: Pick<OpenAPIHono, 'getOpenAPI31Document'>, origin: string) {
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Partnership Accounts API (sandbox)',
      version: VERSION,
      description:
        'The partner-facing Partnership Accounts API as replayed by the sandbox. Every response of the seven partnership endpoints is the envelope {status, error, message, request_id, data}. Fault injection: X-Sandbox-Scenario (see /__sandbox/scenarios). Control plane: /__sandbox/openapi.json.',
    },
    servers: [{ url: origin }],
    tags: [
      { name: 'Partnership', description: 'The seven endpoints of the spec.' },
      {
        name: 'Authentication',
        description: 'Token exchange (the sandbox contract; the spec leaves it open).',
      },
    ],
  });
}

const err = (description: string) => ({ description, ...json(ErrorEnvelope) });
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, ...json(schema) } });
const param = (name: string) =>
  z.object({ [name]: z.string().openapi({ param: { name, in: 'path' } }) }) as z.ZodObject<
    Record<string, z.ZodString>
  >;

export function controlPlaneDocument(origin: string) {
  const doc = new OpenAPIHono();
  const r = doc.openAPIRegistry;
  r.registerComponent('securitySchemes', 'adminToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'SANDBOX_ADMIN_TOKEN, when set (every route but health then requires it).',
  });
  const security = [{ adminToken: [] }];
  const tags = ['Control plane'];
  const common = {
    401: err('SANDBOX_ADMIN_TOKEN is set and was not sent.'),
    403: err('A cross-site browser request (by its Origin or Sec-Fetch-Site): refused.'),
  };
  const paths: Parameters<typeof r.registerPath>[0][] = [
    {
      method: 'get',
      path: '/__sandbox/health',
      summary: 'Liveness and readiness',
      responses: { 200: { description: 'Serving.', ...json(Health) } },
    },
    {
      method: 'get',
      path: '/__sandbox/partners',
      summary: 'Partners and their most recent accounts (up to 200 each)',
      responses: { 200: { description: 'Partners.', ...json(PartnerList) } },
    },
    {
      method: 'post',
      path: '/__sandbox/reset',
      summary: 'Wipe all state, load fixtures again, reset the clock',
      responses: {
        200: { description: 'Reset.', ...json(z.object({ reset: z.literal(true), clock: ClockView })) },
      },
    },
    {
      method: 'post',
      path: '/__sandbox/partners',
      summary: 'Create a parent account with client credentials (missing values generated)',
      request: body(PartnerCreate),
      responses: {
        201: { description: 'The credentials.', ...json(PartnerCredentials) },
        400: err('Invalid body or existing partner.'),
      },
    },
    {
      method: 'put',
      path: '/__sandbox/partners/{parent_account_id}/vertical-mappings',
      summary: "Seed (replace) a parent's vertical mapping",
      request: { params: param('parent_account_id'), ...body(MappingSeed) },
      responses: {
        200: { description: 'The mapping.', ...json(MappingsAnswer) },
        400: err('Invalid mapping.'),
        404: err('No such partner.'),
      },
    },
    {
      method: 'delete',
      path: '/__sandbox/partners/{parent_account_id}/vertical-mappings',
      summary: "Un-seed a parent's vertical mapping",
      request: { params: param('parent_account_id') },
      responses: {
        200: { description: 'Empty mapping.', ...json(MappingsAnswer) },
        404: err('No such partner.'),
      },
    },
    {
      method: 'get',
      path: '/__sandbox/accounts/{account_id}',
      summary: 'The whole internal view of an account',
      request: { params: param('account_id') },
      responses: {
        200: { description: 'The account.', ...json(AccountDetail) },
        404: err('No such account.'),
      },
    },
    {
      method: 'post',
      path: '/__sandbox/accounts/{account_id}/variants',
      summary: 'Add a page variant',
      request: { params: param('account_id'), ...body(VariantCreate) },
      responses: {
        201: { description: 'The variant.', ...json(VariantAdmin) },
        400: err('Invalid body.'),
        404: err('No such account.'),
      },
    },
    {
      method: 'patch',
      path: '/__sandbox/variants/{variant_id}',
      summary: 'Enable, disable or archive a variant',
      request: { params: param('variant_id'), ...body(VariantPatch) },
      responses: {
        200: { description: 'The variant.', ...json(VariantAdmin) },
        400: err('Invalid body.'),
        404: err('No such variant.'),
      },
    },
    {
      method: 'get',
      path: '/__sandbox/clock',
      summary: 'The sandbox clock',
      responses: { 200: { description: 'Now.', ...json(ClockView) } },
    },
    {
      method: 'post',
      path: '/__sandbox/clock/advance',
      summary: 'Advance the sandbox clock',
      request: body(ClockAdvance),
      responses: { 200: { description: 'Now.', ...json(ClockView) }, 400: err('Invalid seconds.') },
    },
    {
      method: 'get',
      path: '/__sandbox/requests',
      summary: 'The request journal, newest first',
      request: {
        query: z.object({
          account_id: z.string().optional(),
          parent_account_id: z.string().optional(),
          method: z.string().optional(),
          path: z.string().optional(),
          status: z.string().optional(),
          since: z.string().optional(),
          limit: z.string().optional(),
        }),
      },
      responses: { 200: { description: 'Entries.', ...json(JournalAnswer) }, 400: err('Invalid filter.') },
    },
    {
      method: 'delete',
      path: '/__sandbox/requests',
      summary: 'Clear the journal',
      responses: { 200: { description: 'Cleared.', ...json(z.object({ cleared: z.literal(true) })) } },
    },
    {
      method: 'get',
      path: '/__sandbox/scenarios',
      summary: 'The scenario catalogue: built-ins, presets, armed',
      responses: { 200: { description: 'Catalogue.', ...json(Catalogue) } },
    },
    {
      method: 'put',
      path: '/__sandbox/scenarios',
      summary: 'Arm a scenario for a parent or an account',
      request: body(ArmRequest),
      responses: {
        200: { description: 'Armed.', ...json(z.object({ armed: Armed })) },
        400: err('Unknown scenario or bad value.'),
        404: err('No such partner or account.'),
      },
    },
    {
      method: 'delete',
      path: '/__sandbox/scenarios',
      summary: 'Disarm all',
      responses: { 200: { description: 'Disarmed.', ...json(z.object({ armed: z.array(Armed) })) } },
    },
    {
      method: 'get',
      path: '/__sandbox/report',
      summary: 'Integration report of a parent account (JSON, or JUnit XML with format=junit)',
      request: {
        query: z.object({ parent_account_id: z.string(), format: z.enum(['json', 'junit']).optional() }),
      },
      responses: {
        200: {
          description: 'The report.',
          content: {
            'application/json': { schema: ReportAnswer },
            'application/xml': { schema: z.string() },
          },
        },
        400: err('Missing parent_account_id or bad format.'),
        404: err('No such partner.'),
      },
    },
    // Test isolation (SANDBOX.md §10)
    {
      method: 'post',
      path: '/__sandbox/partners/{parent_account_id}/reset',
      summary:
        "Wipe one partner's accounts, keys, journal entries, armed scenarios and clock offset; its credentials, mapping and tokens stay",
      request: { params: param('parent_account_id') },
      responses: {
        200: { description: 'Reset.', ...json(PartnerResetAnswer) },
        404: err('No such partner.'),
      },
    },
    {
      method: 'get',
      path: '/__sandbox/partners/{parent_account_id}/clock',
      summary: "A partner's clock (the global clock plus its own offset)",
      request: { params: param('parent_account_id') },
      responses: {
        200: { description: "The partner's time.", ...json(PartnerClockView) },
        404: err('No such partner.'),
      },
    },
    {
      method: 'post',
      path: '/__sandbox/partners/{parent_account_id}/clock/advance',
      summary: "Advance one partner's clock only",
      request: { params: param('parent_account_id'), ...body(ClockAdvance) },
      responses: {
        200: { description: "The partner's time.", ...json(PartnerClockView) },
        400: err('Invalid seconds.'),
        404: err('No such partner.'),
      },
    },
    {
      method: 'post',
      path: '/__sandbox/snapshots',
      summary: 'Save the whole state (store, clocks, armed scenarios, journal) under a name',
      request: body(SnapshotSave),
      responses: {
        200: { description: 'Saved, replacing a snapshot of that name.', ...json(SnapshotSaved) },
        201: { description: 'Saved.', ...json(SnapshotSaved) },
        400: err('Invalid name, or too many snapshots.'),
      },
    },
    {
      method: 'get',
      path: '/__sandbox/snapshots',
      summary: 'The saved snapshots, with size and time',
      responses: { 200: { description: 'Snapshots.', ...json(SnapshotList) } },
    },
    {
      method: 'post',
      path: '/__sandbox/snapshots/{name}/restore',
      summary: 'Put the whole sandbox back to a snapshot (atomic with respect to requests)',
      request: { params: param('name') },
      responses: {
        200: { description: 'Restored.', ...json(SnapshotRestored) },
        404: err('No such snapshot.'),
      },
    },
    {
      method: 'delete',
      path: '/__sandbox/snapshots/{name}',
      summary: 'Drop a snapshot',
      request: { params: param('name') },
      responses: {
        200: { description: 'Dropped.', ...json(z.object({ deleted: SnapshotInfo })) },
        404: err('No such snapshot.'),
      },
    },
    {
      method: 'post',
      path: '/__sandbox/requests/count',
      summary: 'How many journaled calls match: the journal filters plus a header and a body substring',
      request: body(CountRequest),
      responses: { 200: { description: 'The count.', ...json(CountAnswer) }, 400: err('Invalid filter.') },
    },
    {
      method: 'get',
      path: '/__sandbox/partners/{parent_account_id}/bundle',
      summary: "One partner's whole state, journal, clock and armed scenarios as one JSON file",
      request: { params: param('parent_account_id') },
      responses: {
        200: { description: 'The bundle.', ...json(Bundle) },
        404: err('No such partner.'),
      },
    },
    {
      method: 'post',
      path: '/__sandbox/bundles',
      summary:
        'Load a bundle (the partner is replaced if it exists); nothing is loaded unless all of it is valid',
      request: body(Bundle),
      responses: {
        200: { description: 'Loaded.', ...json(BundleImported) },
        400: err('Invalid, inconsistent or foreign bundle: the field is named; nothing was loaded.'),
        413: err('Bundle larger than the limit (32 MiB).'),
        415: err('Not application/json.'),
      },
    },
  ];
  for (const p of paths) {
    const isHealth = p.path === '/__sandbox/health';
    r.registerPath({
      ...p,
      tags,
      ...(isHealth ? {} : { security }),
      responses: { ...p.responses, ...(isHealth ? {} : common) },
    });
  }
  return doc.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Partnership sandbox control plane',
      version: VERSION,
      description: 'SANDBOX.md §6: plain JSON in and out; errors use the partnership error envelope.',
    },
    servers: [{ url: origin }],
  });
}
