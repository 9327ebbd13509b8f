/** The `X-Sandbox-Scenario` header: its effects (presets expanded), or the 400 naming the problem. */
import { ApiError } from '../contract/api/errors.js';
import { builtIn, describeValue, parseValue, SCENARIO_NAMES } from './catalogue.js';
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

/**
 * The 400 of an unknown scenario, listing the known ones. `source` names what carried the name:
 * the header on a partnership call, the body's field on the control plane (whose caller, a
 * script or a coding agent, never sent the header).
 */
export function scenarioError(
  problem: string,
  presets: ReadonlyMap<string, Preset>,
  source: string = SCENARIO_HEADER,
): ApiError {
  const accepted = SCENARIO_NAMES.map((n) => `${n} (${describeValue(builtIn(n)!.value)})`);
  const presetNames = [...presets.keys()];
  return new ApiError(
    'unknown_scenario',
    `${source}: ${problem}. Known scenarios: ${accepted.join('; ')}.${
      presetNames.length ? ` Presets: ${presetNames.join(', ')}.` : ''
    }`,
    { details: { known_scenarios: SCENARIO_NAMES, presets: presetNames } },
  );
}
