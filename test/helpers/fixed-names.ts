/**
 * Names fixed for partners (docs/control-plane.md, docs/fault-injection.md,
 * docs/configuration.md), written out here from the documents (not imported from
 * src/) so that a catalogue drifting from the contract fails the tests.
 */
export const BUILT_IN_NAMES = [
  'auth-propagation',
  'stale-content-hash',
  'status-partial-failure',
  'unseeded-mappings',
  'latency',
  'server-error',
  'rate-limited',
  'token-expired',
  'connection-reset',
  'additive-changes',
] as const;
