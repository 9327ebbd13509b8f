/**
 * The built-in fault catalogue (docs/fault-injection.md), one record per scenario: its name,
 * its value, the endpoints it applies to, the point of the request path where it hooks in,
 * and whether it is a transient failure a chaos profile may draw (docs/chaos.md), with the
 * value chaos draws it with and the calls it may fail. Where chaos fails a call is read here.
 * Names are fixed: partners script against them.
 */
import { operations } from '../contract/api/operations.js';

/** The partnership endpoints by the names their declarations give them (contract/api/operations.ts). */
type PartnershipEndpoint = (typeof operations)[keyof typeof operations]['endpoint'];
export type Endpoint = PartnershipEndpoint | 'token';
/** Every endpoint a scenario can apply to: the partnership ones in their declarations' order, then the token endpoint. */
export const ENDPOINTS: readonly Endpoint[] = [...Object.values(operations).map((o) => o.endpoint), 'token'];

const ALL: readonly Endpoint[] = ENDPOINTS;
/** The partnership endpoints: everything but the token endpoint. */
const PARTNERSHIP: readonly Endpoint[] = ENDPOINTS.filter((e) => e !== 'token');
const CONTROLS_AND_STATUS: readonly Endpoint[] = ['controls.get', 'controls.put', 'status.get', 'status.put'];

/** The call as chaos sees it: where it goes and whether it is a dry run. */
export interface ChaosCall {
  endpoint: Endpoint;
  dryRun: boolean;
  /** `METHOD path` (no query): what "the next call with the same method and path" compares. */
  operation: string;
}

/**
 * Where a scenario hooks into the request path (src/http/pipeline.ts): `authenticate` once
 * the token is checked, `account` where a new account's propagation is checked, `faults` the
 * injected-faults stage (after idempotency, before validation), `service` the rule it bends
 * inside its service (which receives it as a typed flag: src/scenarios/fault-plan.ts), `answer` the
 * one writer of answers (src/http/answer-writer.ts `send`), which reshapes what it writes.
 */
export type Hook = 'authenticate' | 'account' | 'faults' | 'service' | 'answer';

/**
 * A transient failure a chaos profile may draw: the value it is drawn with and where it may
 * fail a call (narrower than where it applies: auth-propagation is the one-call 401/403 only).
 */
export interface ChaosRule {
  value?: number;
  where: (call: ChaosCall) => boolean;
  /**
   * true: in what a profile draws from when it names no scenarios (docs/chaos.md names these
   * five); false (or absent): drawn only when a profile names it.
   */
  byDefault?: boolean;
}

export type ValueSpec =
  | { kind: 'none' }
  | { kind: 'int'; min: number; max: number; default?: number; unit: string }
  | { kind: 'choice'; allowed: readonly number[]; default?: number };

export interface BuiltIn {
  name: string;
  description: string;
  value: ValueSpec;
  appliesTo: readonly Endpoint[];
  hooks: readonly Hook[];
  /** Drawable by chaos (a transient failure a retry can get past), or false. */
  chaos: ChaosRule | false;
}

const everywhere = () => true;

export const BUILT_INS = [
  {
    name: 'auth-propagation',
    description:
      "On register: the new account's controls and status calls answer 401 or 403 (alternating) until that many sandbox-clock seconds have passed. On a controls or status call: that call answers the propagation 401 now.",
    value: { kind: 'int', min: 1, max: 86_400, default: 90, unit: 'seconds' },
    appliesTo: ['register', ...CONTROLS_AND_STATUS],
    hooks: ['account', 'service'],
    chaos: { where: (call) => CONTROLS_AND_STATUS.includes(call.endpoint), byDefault: true },
  },
  {
    name: 'stale-content-hash',
    description:
      'On a controls PUT: a concurrent writer changes the stored list first (new content_hash), so this write gets the 409; a re-read shows the new hash and a retry succeeds.',
    value: { kind: 'none' },
    appliesTo: ['controls.put'],
    hooks: ['service'],
    chaos: { where: (call) => call.endpoint === 'controls.put' && !call.dryRun, byDefault: true },
  },
  {
    name: 'status-partial-failure',
    description:
      'On a status PUT: that many non-archived variants (default half, at least 1; at most all of them) are not updated and keep their state; the aggregate is derived as always (mixed when some updated and some failed).',
    value: { kind: 'int', min: 1, max: 1000, unit: 'variants' },
    appliesTo: ['status.put'],
    hooks: ['service'],
    chaos: false,
  },
  {
    name: 'unseeded-mappings',
    description:
      "The caller's parent is treated as having an empty vertical mapping: the mappings GET returns [], the controls GET translates no vertical (translated_verticals is []), register and controls writes answer 400.",
    value: { kind: 'none' },
    appliesTo: ['mappings.get', 'register', 'controls.get', 'controls.put'],
    hooks: ['service'],
    chaos: false,
  },
  {
    name: 'latency',
    description: 'The response is delayed by that many milliseconds.',
    value: { kind: 'int', min: 0, max: 60_000, default: 1000, unit: 'milliseconds' },
    appliesTo: ALL,
    hooks: ['faults'],
    // Not a failure: allowed beside one in a preset a profile draws, never alone (scenarios/chaos.ts).
    chaos: false,
  },
  {
    name: 'server-error',
    description: 'The call fails with that status (500, 502 or 503) in the envelope; nothing is applied.',
    value: { kind: 'choice', allowed: [500, 502, 503], default: 500 },
    appliesTo: ALL,
    hooks: ['faults'],
    chaos: { value: 503, where: everywhere, byDefault: true },
  },
  {
    name: 'rate-limited',
    description: 'The call answers 429 with Retry-After (that many seconds); nothing is applied.',
    value: { kind: 'int', min: 1, max: 3600, default: 1, unit: 'seconds' },
    appliesTo: ALL,
    hooks: ['faults'],
    chaos: { value: 1, where: everywhere, byDefault: true },
  },
  {
    name: 'token-expired',
    description:
      'The call answers 401 as if the bearer token had expired (WWW-Authenticate: Bearer error="invalid_token").',
    value: { kind: 'none' },
    appliesTo: PARTNERSHIP,
    hooks: ['authenticate'],
    chaos: false,
  },
  {
    name: 'connection-reset',
    description: 'The socket is closed without a response.',
    value: { kind: 'none' },
    appliesTo: ALL,
    hooks: ['faults'],
    chaos: { where: everywhere, byDefault: true },
  },
  {
    name: 'additive-changes',
    description:
      'The answer as usual plus what a compatible release of the API could add: fields unknown to the spec in the envelope (the token answer: at its top) and in each object of data, the known fields in another order, and an unknown response header. Known fields keep their values. The additions are drawn from the value (a seed: the same seed, the same additions), under chaos from the profile seed and the call.',
    value: { kind: 'int', min: 0, max: 2_147_483_647, default: 1, unit: 'seed' },
    appliesTo: ALL,
    hooks: ['answer'],
    // Not a failure: drawn by a profile that names it, never by default (docs/chaos.md's default list).
    chaos: { where: everywhere, byDefault: false },
  },
] as const satisfies readonly BuiltIn[];

export type ScenarioName = (typeof BUILT_INS)[number]['name'];
export const SCENARIO_NAMES = BUILT_INS.map((b) => b.name) as ScenarioName[];
const byName = new Map<string, BuiltIn>(BUILT_INS.map((b) => [b.name, b]));

export function builtIn(name: string): BuiltIn | undefined {
  return byName.get(name);
}

export function describeValue(spec: ValueSpec): string {
  switch (spec.kind) {
    case 'none':
      return 'no value';
    case 'int':
      return `an integer ${spec.min} to ${spec.max} (${spec.unit})${spec.default === undefined ? '' : `, default ${spec.default}`}`;
    case 'choice':
      return `one of ${spec.allowed.join(', ')}${spec.default === undefined ? '' : `, default ${spec.default}`}`;
  }
}

/** Parses a scenario value (a string from the header, or a JSON number or string when armed). */
export function parseValue(
  def: BuiltIn,
  raw: string | number | undefined,
): { value?: number; error?: string } {
  const spec = def.value;
  if (raw === undefined) {
    return spec.kind === 'none' || spec.default === undefined ? {} : { value: spec.default };
  }
  if (spec.kind === 'none') return { error: `${def.name} takes no value` };
  // A string is digits only: "name=" with nothing after it, or " 5", is a typo, not the default.
  const text = String(raw);
  if (!/^\d+$/.test(text)) return { error: `${def.name} takes ${describeValue(spec)}; got "${raw}"` };
  const n = Number(text);
  if (spec.kind === 'int' && (n < spec.min || n > spec.max)) {
    return { error: `${def.name} takes ${describeValue(spec)}; got ${n}` };
  }
  if (spec.kind === 'choice' && !spec.allowed.includes(n)) {
    return { error: `${def.name} takes ${describeValue(spec)}; got ${n}` };
  }
  return { value: n };
}
