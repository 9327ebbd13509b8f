/** The parent's vertical mapping as the partnership endpoints see it (the unseeded-mappings hook). */

import type { Drill } from '../scenarios/fault-plan.js';
import type { Sandbox } from '../state/index.js';
import type { MappingRow } from '../store/partners-table.js';

const UNSEEDED: readonly MappingRow[] = Object.freeze([]);

export function mappingFor(s: Sandbox, parent: string, unseeded?: Drill<void>): readonly MappingRow[] {
  if (unseeded) {
    unseeded.use();
    return UNSEEDED;
  }
  return s.store.partners.mappings(parent);
}
