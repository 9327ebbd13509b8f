/**
 * Scenario resolution for one request: the header's effects first, then armed for the
 * account, then armed for the parent, then what a chaos profile drew for the call. Hooks
 * ask `take(name)`; an effect counts as applied (and an armed entry's `times` as used, a
 * chaos failure as counted) only when the hook's endpoint is one the scenario applies to.
 */
import { ApiError } from '../contract/errors.js';
import type { Armed, ArmedRegistry } from './armed.js';
import {
  builtIn,
  describeValue,
  type Endpoint,
  parseValue,
  SCENARIO_NAMES,
  type ScenarioName,
} from './catalogue.js';
import type { ChaosCall, ChaosDraw, ChaosRegistry } from './chaos.js';
import type { Effect, Preset } from './presets.js';

export const SCENARIO_HEADER = 'X-Sandbox-Scenario';
export const APPLIED_HEADER = 'X-Sandbox-Scenario-Applied';

/** Parses `X-Sandbox-Scenario`: names or name=value, comma separated; presets expand. */
export function parseScenarioHeader(
  header: string | undefined,
  presets: ReadonlyMap<string, Preset>,
): Effect[] {
  if (!header) return [];
  const effects: Effect[] = [];
  for (const part of header.split(',')) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf('=');
    const name = (eq === -1 ? item : item.slice(0, eq)).trim();
    const raw = eq === -1 ? undefined : item.slice(eq + 1).trim();
    const preset = presets.get(name);
    if (preset) {
      if (raw !== undefined) throw scenarioError(`preset "${name}" takes no value`, presets);
      effects.push(...preset.effects);
      continue;
    }
    const def = builtIn(name);
    if (!def) throw scenarioError(`unknown scenario "${name}"`, presets);
    const { value, error } = parseValue(def, raw);
    if (error) throw scenarioError(error, presets);
    effects.push(value === undefined ? { name } : { name, value });
  }
  // One value per scenario: "latency=5,latency=6" (or a preset and a name that overlap) is ambiguous.
  const names = effects.map((e) => e.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw scenarioError(`${twice} is given more than once (directly or through a preset)`, presets);
  return effects;
}

export function scenarioError(problem: string, presets: ReadonlyMap<string, Preset>): ApiError {
  const accepted = SCENARIO_NAMES.map((n) => `${n} (${describeValue(builtIn(n)!.value)})`);
  const presetNames = [...presets.keys()];
  return new ApiError(
    'unknown_scenario',
    `${SCENARIO_HEADER}: ${problem}. Known scenarios: ${accepted.join('; ')}.${
      presetNames.length ? ` Presets: ${presetNames.join(', ')}.` : ''
    }`,
    { details: { known_scenarios: SCENARIO_NAMES, presets: presetNames } },
  );
}

export class ScenarioContext {
  endpoint: Endpoint | undefined;
  parentId: string | undefined;
  accountId: string | undefined;
  readonly applied: string[] = [];
  /** The chaos failure that applied to this request (its evidence), if one did. */
  chaos: ChaosDraw | undefined;
  readonly #header: Effect[];
  readonly #armed: ArmedRegistry;
  readonly #chaos: ChaosRegistry | undefined;
  readonly #consumed = new Set<Armed>();
  /** What chaos drew for this call; drawn once, when the partner is known. */
  #drawn: ChaosDraw | undefined;
  #counted = false;

  constructor(header: Effect[], armed: ArmedRegistry, chaos?: ChaosRegistry) {
    this.#header = header;
    this.#armed = armed;
    this.#chaos = chaos;
  }

  /** The same header's effects, nothing taken yet (a request that starts over); its draw stays. */
  fresh(): ScenarioContext {
    const next = new ScenarioContext(this.#header, this.#armed, this.#chaos);
    next.endpoint = this.endpoint;
    next.#drawn = this.#drawn;
    next.#counted = this.#counted;
    return next;
  }

  /**
   * The partner is known (parentId, and accountId where the path names one): counts the call
   * in its chaos sequence and draws its failure, unless a header or armed scenario meets it.
   * Once per request, even when it starts over.
   */
  drawChaos(call: Omit<ChaosCall, 'endpoint'>): void {
    if (this.#counted || !this.#chaos || !this.parentId || !this.endpoint) return;
    this.#counted = true;
    const endpoint = this.endpoint;
    const { accountId, parentId } = this;
    // asked only when the draw would fail the call (rarely at a low rate, never at rate 0)
    const eligible = () => this.#header.length === 0 && !this.#armed.meets(endpoint, accountId, parentId);
    this.#drawn = this.#chaos.draw(parentId, { ...call, endpoint }, eligible);
  }

  /** The effect, if one is requested for this request and applies to its endpoint. */
  take(name: ScenarioName): Effect | undefined {
    const def = builtIn(name);
    if (!def || !this.endpoint || !def.appliesTo.includes(this.endpoint)) return undefined;
    let effect = this.#header.find((e) => e.name === name) ?? this.#fromConsumed(name);
    if (!effect) {
      const found = this.#armed.find(name, this.accountId, this.parentId);
      if (found) {
        effect = found.effect;
        if (!this.#consumed.has(found.armed)) {
          this.#consumed.add(found.armed);
          this.#armed.consume(found.armed);
        }
      }
    }
    if (!effect && this.#drawn) {
      effect = this.#drawn.effects.find((e) => e.name === name);
      if (effect) {
        this.chaos = this.#drawn;
        this.#drawn.commit();
      }
    }
    if (effect) {
      const label = effect.value === undefined ? name : `${name}=${effect.value}`;
      if (!this.applied.includes(label)) this.applied.push(label);
    }
    return effect;
  }

  /**
   * An armed entry this request already counted applies all its effects to it (a preset's
   * latency and its 503 on the same request), without counting the request again.
   */
  #fromConsumed(name: ScenarioName): Effect | undefined {
    for (const armed of this.#consumed) {
      const effect = armed.effects.find((e) => e.name === name);
      if (effect) return effect;
    }
    return undefined;
  }
}
