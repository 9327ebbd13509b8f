/** The parent's vertical mapping as the partnership endpoints see it (the unseeded-mappings hook). */
import type { Sandbox } from '../core/state.js';
import type { ScenarioContext } from '../scenarios/context.js';
import type { MappingRow } from '../store/partners.js';

const UNSEEDED: readonly MappingRow[] = Object.freeze([]);

export function mappingFor(s: Sandbox, scenarios: ScenarioContext, parent: string): readonly MappingRow[] {
  if (scenarios.take('unseeded-mappings')) return UNSEEDED;
  return s.store.partners.mappings(parent);
}
