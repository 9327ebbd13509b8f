/**
 * The control plane's operations (docs/control-plane.md), each declared once: method and path
 * (control-operations.ts), parameters, body, answers and the errors of its own. The
 * control-plane OpenAPI document is generated from these declarations (openapi-control.ts adds
 * the security, tags and errors common to every route), the control plane binds its handlers
 * to them (http/bind.ts), and the control client takes its paths from the same operations.
 * The test-isolation operations are in control-routes-isolation.ts.
 */
import { createRoute, type RouteConfig, z } from '@hono/zod-openapi';
import { ErrorEnvelope } from '../api/envelope.js';
import { header, json } from '../api/openapi-parts.js';
import { type ControlAccess, OPEN, partnerMay } from './access.js';
import {
  ArmAnswer,
  Catalogue,
  ChaosAnswer,
  ChaosList,
  DisarmAnswer,
  JournalAnswer,
  ReportAnswer,
  ReportQuery,
} from './control-journal.js';
import {
  AccountDetail,
  ArmRequest,
  ChaosEndQuery,
  ChaosRequest,
  ClearedAnswer,
  ClockAdvance,
  ClockView,
  Health,
  JournalQuery,
  MappingSeed,
  MappingsAnswer,
  PartnerCreate,
  PartnerCredentials,
  PartnerList,
  ResetAnswer,
  VariantAdmin,
  VariantCreate,
  VariantPatch,
} from './control-schemas.js';

export const err = (description: string) => ({
  description,
  headers: { 'X-Request-Id': header('XRequestId') },
  ...json(ErrorEnvelope),
});
export const ok = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  headers: { 'X-Request-Id': header('XRequestId') },
  ...json(schema),
});
export const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, ...json(schema) } });
export const param = <N extends string>(name: N, description: string, example: string) =>
  z.object({
    [name]: z.string().openapi({ param: { name, in: 'path' }, description, example }),
  }) as unknown as z.ZodObject<{ [K in N]: z.ZodString }>;
export const parentParam = param(
  'parent_account_id',
  'The parent account ID of a partner.',
  'pa_demo_platform',
);
export const accountParam = param(
  'account_id',
  'An account ID (as returned by register).',
  'acct_01jbx7k2m9q4r8s6t3v5',
);
export const snapshotParam = param('name', 'The name a snapshot was saved under.', 'seeded');
/** One control-plane operation as declared (its security, tags and common errors added by the document). */
export type ControlRoute = RouteConfig & {
  operationId: string;
  /** Who may call it when SANDBOX_ADMIN_TOKEN is set (access.ts); none: the admin token only. */
  access?: ControlAccess;
  /**
   * Its place in the MCP server's list of tools (mcp/tools.ts), when a coding agent may call it
   * as a tool of its operationId; none: not a tool. The journal, its count, the report, the
   * scenarios, chaos, a partner's reset, the clocks, the partners and accounts to find them are;
   * not the global reset, snapshots, bundles or the journal's clearing: those touch every partner
   * or move whole states.
   */
  tool?: number;
  summary: string;
  description: string;
  getRoutingPath(): string;
};

/**
 * Declarations by operationId: each route's key is its operationId (the control client calls
 * it by that name, the document lists it under it), written once.
 */
export function byOperationId<T extends Record<string, Omit<ControlRoute, 'operationId'>>>(
  routes: T,
): { [Id in keyof T]: T[Id] & { operationId: Id & string } } {
  for (const [id, route] of Object.entries(routes)) Object.assign(route, { operationId: id });
  return routes as { [Id in keyof T]: T[Id] & { operationId: Id & string } };
}

/** The control plane's operations but those of test isolation (control-routes-isolation.ts). */
export const controlRoutes = byOperationId({
  health: createRoute({
    access: OPEN,
    method: 'get',
    path: '/__sandbox/health',
    summary: 'Liveness and readiness',
    description:
      'Answers 200 once the server accepts traffic. Never needs the admin token. store.writable is false while the store (SANDBOX_DB) refuses writes (a full disk): still 200, because reads work, a restart would free no space and would lose the journal, and writes work again by themselves once space is freed.',
    responses: { 200: ok('Serving.', Health) },
  }),
  listPartners: createRoute({
    tool: 15,
    method: 'get',
    path: '/__sandbox/partners',
    summary: 'Partners and their most recent accounts (up to 200 each)',
    description:
      'Every parent account with its client_id, whether its mapping is seeded, and its newest accounts.',
    responses: { 200: ok('Partners.', PartnerList) },
  }),
  reset: createRoute({
    method: 'post',
    path: '/__sandbox/reset',
    summary: 'Wipe all state, load fixtures again, reset the clock',
    description: 'Atomic: a request in flight sees the state before or after, never a mix.',
    responses: { 200: ok('Reset.', ResetAnswer) },
  }),
  createPartner: createRoute({
    method: 'post',
    path: '/__sandbox/partners',
    summary: 'Create a parent account with client credentials (missing values generated)',
    description:
      'Answers the parent account ID, client_id and client_secret, generated where not given. This answer is the only place the secret is shown: the sandbox keeps it only as a salted hash (no view, report, snapshot or bundle shows it).',
    request: body(PartnerCreate),
    responses: {
      201: ok('The credentials.', PartnerCredentials),
      400: err('Invalid body or existing partner.'),
    },
  }),
  seedVerticalMappings: createRoute({
    access: partnerMay('parent'),
    method: 'put',
    path: '/__sandbox/partners/{parent_account_id}/vertical-mappings',
    summary: "Seed (replace) a parent's vertical mapping",
    description: "The operator's seeding (spec §1.2): the body replaces the whole mapping.",
    request: { params: parentParam, ...body(MappingSeed) },
    responses: {
      200: ok('The mapping.', MappingsAnswer),
      400: err('Invalid mapping.'),
      404: err('No such partner.'),
    },
  }),
  unseedVerticalMappings: createRoute({
    access: partnerMay('parent'),
    method: 'delete',
    path: '/__sandbox/partners/{parent_account_id}/vertical-mappings',
    summary: "Un-seed a parent's vertical mapping",
    description: 'Empties the mapping: registration and controls writes of that parent then fail with 400.',
    request: { params: parentParam },
    responses: {
      200: ok('Empty mapping.', MappingsAnswer),
      404: err('No such partner.'),
    },
  }),
  getAccount: createRoute({
    tool: 16,
    access: partnerMay('account'),
    method: 'get',
    path: '/__sandbox/accounts/{account_id}',
    summary: 'The whole internal view of an account',
    description:
      'Pages, layouts, variants (archived too, with their IDs), the controls list, the propagation deadline, and last_status_write: what the latest status PUT did to each variant (which ones a partial failure failed).',
    request: { params: accountParam },
    responses: {
      200: ok('The account.', AccountDetail),
      404: err('No such account.'),
    },
  }),
  addVariant: createRoute({
    access: partnerMay('account'),
    method: 'post',
    path: '/__sandbox/accounts/{account_id}/variants',
    summary: 'Add a page variant',
    description: 'A new variant of one of the account’s pages, enabled unless told otherwise.',
    request: { params: accountParam, ...body(VariantCreate) },
    responses: {
      201: ok('The variant.', VariantAdmin),
      400: err('Invalid body.'),
      404: err('No such account.'),
    },
  }),
  updateVariant: createRoute({
    access: partnerMay('variant'),
    method: 'patch',
    path: '/__sandbox/variants/{variant_id}',
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
  }),
  getClock: createRoute({
    tool: 11,
    method: 'get',
    path: '/__sandbox/clock',
    summary: 'The sandbox clock',
    description: 'Token expiry, the idempotency window and auth propagation follow this clock.',
    responses: { 200: ok('Now.', ClockView) },
  }),
  advanceClock: createRoute({
    tool: 12,
    method: 'post',
    path: '/__sandbox/clock/advance',
    summary: 'Advance the sandbox clock',
    description:
      'Moves every partner’s clock forward by the given seconds (one partner’s: POST /__sandbox/partners/{parent_account_id}/clock/advance).',
    request: body(ClockAdvance),
    responses: { 200: ok('Now.', ClockView), 400: err('Invalid seconds.') },
  }),
  listRequests: createRoute({
    tool: 1,
    access: partnerMay('own'),
    method: 'get',
    path: '/__sandbox/requests',
    summary: 'The request journal, newest first',
    description: 'Every partnership and token call, with secrets redacted; filterable.',
    request: { query: JournalQuery },
    responses: { 200: ok('Entries.', JournalAnswer), 400: err('Invalid filter.') },
  }),
  clearRequests: createRoute({
    method: 'delete',
    path: '/__sandbox/requests',
    summary: 'Clear the journal',
    description: 'Drops every journal entry.',
    responses: { 200: ok('Cleared.', ClearedAnswer) },
  }),
  listScenarios: createRoute({
    tool: 4,
    access: partnerMay('own'),
    method: 'get',
    path: '/__sandbox/scenarios',
    summary: 'The scenario catalogue: built-ins, presets, armed',
    description: 'Every scenario with its value and where it applies, the presets, and what is armed.',
    responses: { 200: ok('Catalogue.', Catalogue) },
  }),
  armScenario: createRoute({
    tool: 5,
    access: partnerMay('body'),
    method: 'put',
    path: '/__sandbox/scenarios',
    summary: 'Arm a scenario for a parent or an account',
    description:
      'For the next `times` requests it applies to, or until disarmed. Without parent_account_id or account_id it is armed for every partner. The scenarios, presets and their values: GET /__sandbox/scenarios (listScenarios).',
    request: body(ArmRequest),
    responses: {
      200: ok('Armed.', ArmAnswer),
      400: err('Unknown scenario or bad value.'),
      404: err('No such partner or account.'),
    },
  }),
  disarmScenarios: createRoute({
    tool: 6,
    access: partnerMay('own'),
    method: 'delete',
    path: '/__sandbox/scenarios',
    summary: 'Disarm all',
    description: 'Disarms every armed scenario, of every partner.',
    responses: { 200: ok('Disarmed.', DisarmAnswer) },
  }),
  // Chaos (docs/chaos.md)
  setChaos: createRoute({
    tool: 7,
    access: partnerMay('body'),
    method: 'put',
    path: '/__sandbox/chaos',
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
  }),
  getChaos: createRoute({
    tool: 8,
    access: partnerMay('own'),
    method: 'get',
    path: '/__sandbox/chaos',
    summary: 'The chaos profiles in force',
    description:
      'Each with the calls it saw and the calls it failed, by scenario, and each partner’s call position.',
    responses: { 200: ok('Profiles.', ChaosList) },
  }),
  endChaos: createRoute({
    tool: 9,
    access: partnerMay('query'),
    method: 'delete',
    path: '/__sandbox/chaos',
    summary: 'End chaos profiles',
    description: 'Ends every partner’s profile, or with parent_account_id that partner’s own only.',
    request: { query: ChaosEndQuery },
    responses: {
      200: ok('The profiles still in force.', ChaosList),
      400: err('Invalid query.'),
      404: err('No such partner.'),
    },
  }),
  getReport: createRoute({
    tool: 3,
    access: partnerMay('query'),
    method: 'get',
    path: '/__sandbox/report',
    summary: 'Integration report of a parent account (JSON, or JUnit XML with format=junit)',
    description: 'What the partner’s integration exercised, check by check.',
    request: { query: ReportQuery },
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
  }),
});
