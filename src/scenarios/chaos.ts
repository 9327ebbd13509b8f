/**
 * Chaos profiles (docs/chaos.md): a share of a partner's calls fails with a transient
 * scenario, drawn from (seed, the partner's call position). The draw is one more source of
 * effects in the call's fault plan (fault-plan.ts): header, then armed, then chaos. This
 * module holds the profiles, each partner's position and what chaos failed; no HTTP.
 */
import { createHash } from 'node:crypto';
import { OWED_KEY_MAX, OWED_MAX } from '../contract/control/bundle.js';
import { own, setOwn } from '../domain/own.js';
import { BUILT_INS, builtIn, type ChaosCall } from './catalogue.js';
import type { Effect, Preset } from './presets.js';

export const CHAOS_HEADER = 'X-Sandbox-Chaos';

// OWED_MAX: how many operations a partner may be owed a pass at once (a bundle carries them):
// one per `METHOD path` failed, so only a client calling over a thousand paths reaches it; then
// the oldest owed pass is dropped. OWED_KEY_MAX: the longest owed operation a bundle carries.
// Both are the bundle format's bounds (contract/control/bundle.ts).
/**
 * How an operation is owed: itself, or when its path is longer than a bundle carries (a path ID
 * of thousands of characters, failed by chaos before its validation), its start and a digest of
 * the whole, which the same operation gives again and no other does.
 */
export function owedKey(operation: string): string {
  if (operation.length <= OWED_KEY_MAX) return operation;
  const digest = createHash('sha256').update(operation).digest('hex');
  return `${operation.slice(0, OWED_KEY_MAX - 80)} ... sha256:${digest}`;
}

/**
 * What a profile draws from when it names no scenarios (docs/chaos.md): the transient built-ins
 * their records mark `byDefault` (catalogue.ts).
 */
export const DEFAULT_CHAOS_SCENARIOS: readonly string[] = BUILT_INS.filter(
  (b) => b.chaos !== false && b.chaos.byDefault === true,
).map((b) => b.name);

export type { ChaosCall } from './catalogue.js';

/** A transient scenario's chaos rule (its record in catalogue.ts), or undefined. */
const transient = (name: string) => builtIn(name)?.chaos || undefined;

/** Not a failure, but harmless beside one: allowed in a preset a profile draws, never alone. */
const LATENCY = 'latency';

/**
 * Why a name cannot be drawn by a profile, or undefined when it can. Presets qualify when
 * every effect is transient (latency allowed beside a failure).
 */
export function chaosScenarioProblem(name: string, presets: ReadonlyMap<string, Preset>): string | undefined {
  if (transient(name)) return undefined;
  const preset = presets.get(name);
  if (preset) {
    const bad = preset.effects.find((e) => !transient(e.name) && e.name !== LATENCY);
    if (bad) return `preset "${name}" has ${bad.name}, which is not a transient failure a retry can get past`;
    if (!preset.effects.some((e) => transient(e.name))) return `preset "${name}" has no failure in it`;
    return undefined;
  }
  if (name === LATENCY)
    return 'latency is not a failure (a profile draws failures; use it in a preset beside one)';
  if (builtIn(name)) return `${name} is not a transient failure a retry can get past`;
  return `unknown scenario "${name}"`;
}

/** The effects a drawn name gives this call: a built-in's, or a preset's that apply here. */
function effectsFor(name: string, call: ChaosCall, presets: ReadonlyMap<string, Preset>): Effect[] {
  const rule = transient(name);
  if (rule) {
    if (!rule.where(call)) return [];
    return [rule.value === undefined ? { name } : { name, value: rule.value }];
  }
  const effects = presets.get(name)?.effects ?? [];
  const failures = effects.filter((e) => transient(e.name)?.where(call));
  return failures.length ? [...effects.filter((e) => e.name === LATENCY), ...failures] : [];
}

/**
 * A stateless draw in [0, 1) from (seed, call, stream): a few rounds of a 32-bit integer mix
 * (the finaliser of splitmix32 / murmur3). Ours rather than a dependency: ten lines, and its
 * sequence must never change under partners' recorded seeds with a library upgrade.
 */
function mix32(x: number): number {
  let h = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  h = Math.imul(h ^ (h >>> 15), 0x735a2d97);
  return (h ^ (h >>> 15)) >>> 0;
}
export function chaosRandom(seed: number, call: number, stream: number): number {
  const lo = seed >>> 0;
  const hi = Math.floor(seed / 2 ** 32) >>> 0;
  let h = mix32(lo ^ mix32(hi + 0x9e3779b9));
  h = mix32(h ^ mix32(call + 0x632be5ab));
  h = mix32(h ^ mix32(stream + 0x85ebca6b));
  return h / 2 ** 32;
}

export interface ChaosSettings {
  rate: number;
  seed: number;
  scenarios: string[];
}

/** One partner's place in a profile's sequences. */
export interface ChaosPosition {
  /** Its partnership calls seen since the profile was set: the last call's position n. */
  calls: number;
  /**
   * Its token calls, a sequence of their own (`token_call=<n>`): a rerun that first gets a
   * token does not move its partnership calls. Absent in positions saved before it: 0.
   */
  token_calls?: number;
  /** Operations (`METHOD path`) chaos failed whose next call must get through. */
  owed: string[];
}

/**
 * The call a profile counts (fault-plan.ts's FaultPlan): its endpoint and dry run, and what is
 * asked only when needed: its `METHOD path` (a partner owed a pass, a failure), and whether a
 * header or armed scenario leaves it to chaos (a failure drawn).
 */
export interface ChaosCandidate {
  readonly endpoint: ChaosCall['endpoint'];
  readonly dryRun: boolean;
  operation(): string;
  eligible(): boolean;
}

/** Whether `operation` is owed a pass: taken from `owed` if so. */
function owedPass(owed: string[], operation: string): boolean {
  const i = owed.indexOf(operation);
  if (i === -1) return false;
  owed.splice(i, 1);
  return true;
}

export interface ChaosProfile extends ChaosSettings {
  /** The partner it applies to; undefined: every partner (each with its own sequence). */
  parent_account_id?: string;
  /** The position of a partner's first partnership call under it (`from_call`, default 1). */
  from_call: number;
  set_at: string;
  /** By partner. */
  positions: Record<string, ChaosPosition>;
  /** Calls chaos failed, by scenario. */
  failed: Record<string, number>;
}

/** A call chaos failed, once an effect of it applied: the evidence it carries. */
export interface ChaosDraw {
  seed: number;
  /** The call's position, in the partnership calls' sequence or (`token_call`) the token calls'. */
  call: number;
  sequence: 'call' | 'token_call';
  scenario: string;
  effects: Effect[];
  /** Marks the call failed (counts, and owes the operation a pass); once. */
  commit(): void;
}

export class ChaosRegistry {
  #all: ChaosProfile | undefined;
  #partners = new Map<string, ChaosProfile>();
  readonly #presets: ReadonlyMap<string, Preset>;
  /** Told of every change (profiles set or ended, positions moved): a durable store saves them. */
  onChange: () => void = () => {};

  constructor(presets: ReadonlyMap<string, Preset>) {
    this.#presets = presets;
  }

  /**
   * Sets a profile for one partner or (no parent) every partner. A partner's next partnership
   * call is call `fromCall` (default 1: positions start at 0), unless `positions` says where.
   */
  set(
    settings: ChaosSettings,
    at: string,
    parent?: string,
    positions: Record<string, ChaosPosition> = {},
    fromCall = 1,
  ) {
    const profile: ChaosProfile = {
      rate: settings.rate,
      seed: settings.seed,
      scenarios: [...settings.scenarios],
      ...(parent === undefined ? {} : { parent_account_id: parent }),
      from_call: fromCall,
      set_at: at,
      positions,
      failed: {},
    };
    if (parent === undefined) this.#all = profile;
    else this.#partners.set(parent, profile);
    this.onChange();
    return profile;
  }

  /** Every profile in force: the one for every partner first. */
  list(): ChaosProfile[] {
    return [...(this.#all ? [this.#all] : []), ...this.#partners.values()];
  }

  /** The profile that applies to this partner's calls: its own, else the one for every partner. */
  of(parent: string): ChaosProfile | undefined {
    return this.#partners.get(parent) ?? this.#all;
  }

  /** Ends every profile, or one partner's own. */
  end(parent?: string): void {
    if (parent === undefined) {
      this.#all = undefined;
      this.#partners.clear();
    } else this.#partners.delete(parent);
    this.onChange();
  }

  /** A partner reset: its own profile ends, and its sequence under the shared one starts over. */
  forget(parent: string): void {
    this.#partners.delete(parent);
    if (this.#all && Object.hasOwn(this.#all.positions, parent)) delete this.#all.positions[parent];
    this.onChange();
  }

  /**
   * Counts this partner call and draws its failure. `call.eligible()` false (a header or armed
   * scenario meets it) counts it without drawing; it is asked only when the draw would fail
   * the call. A call that cannot fail (rate 0, or a draw at or above the rate) costs a count
   * and at most one hash: its `METHOD path` is written only when the partner is owed a pass
   * or the call fails, and a rate-0 profile draws nothing (every draw is at or above 0).
   */
  draw(parent: string, call: ChaosCandidate): ChaosDraw | undefined {
    const profile = this.of(parent);
    if (!profile) return undefined;
    let position = own(profile.positions, parent);
    if (position === undefined) {
      position = { calls: profile.from_call - 1, token_calls: 0, owed: [] };
      setOwn(profile.positions, parent, position);
    }
    // Token calls have a sequence of their own, drawn from streams of their own.
    const token = call.endpoint === 'token';
    if (token) position.token_calls = (position.token_calls ?? 0) + 1;
    else position.calls++;
    this.onChange();
    // Convergent: right after chaos failed this operation, its next call gets through.
    if (position.owed.length !== 0 && owedPass(position.owed, owedKey(call.operation()))) return undefined;
    const rate = profile.rate;
    if (rate === 0) return undefined;
    const n = token ? position.token_calls! : position.calls;
    if (chaosRandom(profile.seed, n, token ? 2 : 0) >= rate || !call.eligible()) return undefined;
    return this.#fail(profile, position, n, token, call);
  }

  /** The failure drawn for call `n` (its scenario picked by a second draw), or undefined when none applies. */
  #fail(
    profile: ChaosProfile,
    position: ChaosPosition,
    n: number,
    token: boolean,
    candidate: ChaosCandidate,
  ): ChaosDraw | undefined {
    const operation = owedKey(candidate.operation());
    const call: ChaosCall = { dryRun: candidate.dryRun, operation, endpoint: candidate.endpoint };
    const candidates = profile.scenarios
      .map((scenario) => ({ scenario, effects: effectsFor(scenario, call, this.#presets) }))
      .filter((c) => c.effects.length);
    if (!candidates.length) return undefined;
    const pick = candidates[Math.floor(chaosRandom(profile.seed, n, token ? 3 : 1) * candidates.length)]!;
    let done = false;
    return {
      seed: profile.seed,
      call: n,
      sequence: token ? 'token_call' : 'call',
      scenario: pick.scenario,
      effects: pick.effects,
      commit() {
        if (done) return;
        done = true;
        setOwn(profile.failed, pick.scenario, (own(profile.failed, pick.scenario) ?? 0) + 1);
        // Bounded: one entry per operation (a repeat is already owed), the oldest going first.
        if (!position.owed.includes(operation)) position.owed.push(operation);
        if (position.owed.length > OWED_MAX) position.owed.splice(0, position.owed.length - OWED_MAX);
      },
    };
  }

  /** A copy of every profile (a snapshot keeps one: positions move as calls come). */
  image(): ChaosProfile[] {
    return this.list().map((p) => structuredClone(p));
  }

  restore(image: readonly ChaosProfile[]): void {
    this.end();
    for (const p of image) {
      const copy = structuredClone(p);
      copy.from_call = copy.from_call ?? 1; // saved before from_call existed
      if (copy.parent_account_id === undefined) this.#all = copy;
      else this.#partners.set(copy.parent_account_id, copy);
    }
    this.onChange();
  }
}

/**
 * Reads `SANDBOX_CHAOS` / `--chaos`: `rate=0.1,seed=42` and optionally
 * `scenarios=server-error+rate-limited` (`+` between names: `,` separates the settings).
 * Throws an Error saying what is wrong; scenario names are checked against presets later.
 */
export function parseChaosSpec(text: string): ChaosSettings {
  const fields = new Map<string, string>();
  for (const part of text.split(',')) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    const name = eq === -1 ? item : item.slice(0, eq).trim();
    if (!['rate', 'seed', 'scenarios'].includes(name) || eq === -1) {
      throw new Error(`"${item}" is not rate=<0..1>, seed=<integer> or scenarios=<name+name>`);
    }
    if (fields.has(name)) throw new Error(`${name} is given more than once`);
    fields.set(name, item.slice(eq + 1).trim());
  }
  const rateText = fields.get('rate');
  const seedText = fields.get('seed');
  if (rateText === undefined) throw new Error('rate is missing (rate=0.1,seed=42)');
  if (seedText === undefined) throw new Error('seed is missing (rate=0.1,seed=42)');
  const rate = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(rateText) ? Number(rateText) : Number.NaN;
  if (!(rate >= 0 && rate <= 1)) throw new Error(`rate must be a number from 0 to 1; got "${rateText}"`);
  const seed = /^-?\d+$/.test(seedText) ? Number(seedText) : Number.NaN;
  if (!Number.isSafeInteger(seed)) throw new Error(`seed must be an integer; got "${seedText}"`);
  const list = fields.get('scenarios');
  const scenarios = list === undefined ? [...DEFAULT_CHAOS_SCENARIOS] : list.split('+').map((s) => s.trim());
  if (scenarios.some((s) => !s)) throw new Error(`scenarios must be names joined by +; got "${list}"`);
  return { rate, seed, scenarios };
}
