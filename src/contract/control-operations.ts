/**
 * Where each control-plane operation lives: its method and path, by operationId. The
 * declarations (control-routes.ts: params, body, answers, errors) take their method and path
 * from here, the control plane binds its handlers to those declarations, and the control
 * client (client/control.ts) builds its URLs from here. No import: the client stays free of
 * any dependency at run time (zod and hono are not loaded for it).
 */
export const CONTROL_OPERATIONS = {
  health: { method: 'get', path: '/__sandbox/health' },
  listPartners: { method: 'get', path: '/__sandbox/partners' },
  reset: { method: 'post', path: '/__sandbox/reset' },
  createPartner: { method: 'post', path: '/__sandbox/partners' },
  seedVerticalMappings: { method: 'put', path: '/__sandbox/partners/{parent_account_id}/vertical-mappings' },
  unseedVerticalMappings: {
    method: 'delete',
    path: '/__sandbox/partners/{parent_account_id}/vertical-mappings',
  },
  getAccount: { method: 'get', path: '/__sandbox/accounts/{account_id}' },
  addVariant: { method: 'post', path: '/__sandbox/accounts/{account_id}/variants' },
  updateVariant: { method: 'patch', path: '/__sandbox/variants/{variant_id}' },
  getClock: { method: 'get', path: '/__sandbox/clock' },
  advanceClock: { method: 'post', path: '/__sandbox/clock/advance' },
  listRequests: { method: 'get', path: '/__sandbox/requests' },
  clearRequests: { method: 'delete', path: '/__sandbox/requests' },
  listScenarios: { method: 'get', path: '/__sandbox/scenarios' },
  armScenario: { method: 'put', path: '/__sandbox/scenarios' },
  disarmScenarios: { method: 'delete', path: '/__sandbox/scenarios' },
  setChaos: { method: 'put', path: '/__sandbox/chaos' },
  getChaos: { method: 'get', path: '/__sandbox/chaos' },
  endChaos: { method: 'delete', path: '/__sandbox/chaos' },
  getReport: { method: 'get', path: '/__sandbox/report' },
  // Test isolation (docs/parallel-tests.md)
  resetPartner: { method: 'post', path: '/__sandbox/partners/{parent_account_id}/reset' },
  getPartnerClock: { method: 'get', path: '/__sandbox/partners/{parent_account_id}/clock' },
  advancePartnerClock: { method: 'post', path: '/__sandbox/partners/{parent_account_id}/clock/advance' },
  saveSnapshot: { method: 'post', path: '/__sandbox/snapshots' },
  listSnapshots: { method: 'get', path: '/__sandbox/snapshots' },
  restoreSnapshot: { method: 'post', path: '/__sandbox/snapshots/{name}/restore' },
  deleteSnapshot: { method: 'delete', path: '/__sandbox/snapshots/{name}' },
  countRequests: { method: 'post', path: '/__sandbox/requests/count' },
  exportBundle: { method: 'get', path: '/__sandbox/partners/{parent_account_id}/bundle' },
  importBundle: { method: 'post', path: '/__sandbox/bundles' },
} as const;

export type ControlOperationId = keyof typeof CONTROL_OPERATIONS;

/** The `{name}` parameters of a path template. */
export type PathParams<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? { [K in N | keyof PathParams<Rest>]: string }
  : Record<never, string>;

/** An operation's operationId, method and path: what its declaration starts with. */
export function operation<Id extends ControlOperationId>(
  id: Id,
): { operationId: Id } & (typeof CONTROL_OPERATIONS)[Id] {
  return { operationId: id, ...CONTROL_OPERATIONS[id] };
}

/** An operation's path with its parameters filled in, each encoded as one path segment. */
export function operationPath<Id extends ControlOperationId>(
  id: Id,
  params: PathParams<(typeof CONTROL_OPERATIONS)[Id]['path']>,
): string {
  const values = params as Record<string, string>;
  return CONTROL_OPERATIONS[id].path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(values[name] ?? ''),
  );
}
