/**
 * Scenario presets: named combinations of built-in effects, kept as JSON in
 * `scenarios/` (and a partner's own folder, SANDBOX_SCENARIOS). Validated at start-up;
 * a broken file stops it, naming the file and the field.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { StartupError } from '../base/startup-error.js';
import { builtIn, parseValue, SCENARIO_NAMES } from './catalogue.js';

export interface Effect {
  name: string;
  value?: number;
}

export interface Preset {
  name: string;
  description: string;
  effects: Effect[];
  source: string;
}

const PresetFile = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be kebab-case: a-z, 0-9 and -'),
  description: z.string().min(1),
  effects: z
    .array(
      z.strictObject({
        scenario: z.enum(SCENARIO_NAMES as [string, ...string[]]),
        value: z.union([z.number(), z.string()]).optional(),
      }),
    )
    .min(1),
});

export function loadPresets(dirs: readonly string[]): Map<string, Preset> {
  const presets = new Map<string, Preset>();
  for (const dir of dirs) {
    let files: string[];
    try {
      files = readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort();
    } catch (e) {
      throw new StartupError(`scenario presets folder ${dir} cannot be read: ${(e as Error).message}`);
    }
    for (const file of files) {
      const path = join(dir, file);
      const preset = parsePreset(path);
      if (builtIn(preset.name))
        throw new StartupError(`${path}: name "${preset.name}" is a built-in scenario`);
      if (presets.has(preset.name)) {
        throw new StartupError(
          `${path}: name "${preset.name}" is already defined by ${presets.get(preset.name)!.source}`,
        );
      }
      presets.set(preset.name, preset);
    }
  }
  return presets;
}

function parsePreset(path: string): Preset {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new StartupError(`${path}: not valid JSON (${(e as Error).message})`);
  }
  // Parsed once at start-up: zod's compiled fast path would cost more to build than it saves.
  const parsed = PresetFile.safeParse(json, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StartupError(`${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const effects = parsed.data.effects.map((e, i) => {
    const { value, error } = parseValue(builtIn(e.scenario)!, e.value);
    if (error) throw new StartupError(`${path}: effects.${i}.value: ${error}`);
    return value === undefined ? { name: e.scenario } : { name: e.scenario, value };
  });
  return { name: parsed.data.name, description: parsed.data.description, effects, source: path };
}
