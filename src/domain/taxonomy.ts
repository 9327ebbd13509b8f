/**
 * Taxonomy translation (spec §1.2, §2.1, §2.4, rule 2): partner (vertical, sub-vertical)
 * pairs to internal categories and back. Internal names never leave through the
 * translated view; only the partner's own IDs do.
 */

import { BoundedCache } from '../base/bounded-cache.js';
import type { InternalBlock } from './controls-list.js';

/** A partner vertical / sub-vertical pair as a controls write sends it. */
export interface PartnerPair {
  partnerVerticalId: number;
  partnerSubVerticalId: number;
}

export interface MappingEntry {
  partner_vertical_id: number;
  partner_vertical_name: string;
  partner_sub_vertical_id: number;
  partner_sub_vertical_name: string;
  vertical_name: string;
}

/** A taxonomy file (fixtures/taxonomy.json): verticals, each with its sub-verticals. */
export interface TaxonomyFileData {
  verticals: {
    partner_vertical_id: number;
    partner_vertical_name: string;
    sub_verticals: Omit<MappingEntry, 'partner_vertical_id' | 'partner_vertical_name'>[];
  }[];
}

/** A taxonomy file as mapping rows: one per sub-vertical, with its vertical's ID and name. */
export function flattenTaxonomy(taxonomy: TaxonomyFileData): MappingEntry[] {
  return taxonomy.verticals.flatMap((v) =>
    v.sub_verticals.map((s) => ({
      partner_vertical_id: v.partner_vertical_id,
      partner_vertical_name: v.partner_vertical_name,
      ...s,
    })),
  );
}

export interface TranslatedVertical {
  vertical_id: number;
  policy: 'Block' | 'Allow';
  position_1_policy: 'Block' | 'Allow';
}

/** Problems that make a mapping unusable, each naming the row; [] when it is fine. */
export function mappingProblems(entries: readonly MappingEntry[]): string[] {
  const problems: string[] = [];
  const subs = new Map<number, number>();
  const verticalNames = new Map<number, string>();
  entries.forEach((e, i) => {
    const previous = subs.get(e.partner_sub_vertical_id);
    if (previous !== undefined) {
      problems.push(
        `vertical_mappings[${i}].partner_sub_vertical_id: ${e.partner_sub_vertical_id} is already used by vertical_mappings[${previous}] (sub-vertical IDs identify the rows of translated_verticals, so they must be unique)`,
      );
    } else subs.set(e.partner_sub_vertical_id, i);
    const name = verticalNames.get(e.partner_vertical_id);
    if (name !== undefined && name !== e.partner_vertical_name) {
      problems.push(
        `vertical_mappings[${i}].partner_vertical_name: vertical ${e.partner_vertical_id} is named both "${name}" and "${e.partner_vertical_name}"`,
      );
    } else verticalNames.set(e.partner_vertical_id, e.partner_vertical_name);
  });
  return problems;
}

export function findPair(mapping: readonly MappingEntry[], verticalId: number, subVerticalId: number) {
  return mapping.find(
    (m) => m.partner_vertical_id === verticalId && m.partner_sub_vertical_id === subVerticalId,
  );
}

/**
 * Translates every pair, or reports every pair that is not mapped (rule 2: the whole
 * write is rejected and the message names each unmapped pair, not just the first).
 */
export function translatePairs(
  mapping: readonly MappingEntry[],
  pairs: readonly PartnerPair[],
): { blocks: InternalBlock[]; unmapped: PartnerPair[] } {
  const blocks: InternalBlock[] = [];
  const unmapped: PartnerPair[] = [];
  const seen = new Set<string>();
  for (const pair of pairs) {
    const entry = findPair(mapping, pair.partnerVerticalId, pair.partnerSubVerticalId);
    if (!entry) {
      unmapped.push({
        partnerVerticalId: pair.partnerVerticalId,
        partnerSubVerticalId: pair.partnerSubVerticalId,
      });
      continue;
    }
    if (seen.has(entry.vertical_name)) continue;
    seen.add(entry.vertical_name);
    blocks.push({ vertical_name: entry.vertical_name, policy: 'Block', position_1_policy: 'Block' });
  }
  return { blocks, unmapped };
}

/**
 * The entries of translated views, frozen and shared: one (vertical_id, 'Allow', 'Allow') and one
 * (vertical_id, 'Block', 'Block') a sub-vertical ID, whichever partner's it is (at most 4,096 IDs
 * at a time; a partner chooses its IDs). Views are frozen whole (services/controls.ts), and
 * nothing reads an entry's identity, only its fields.
 */
const translated = new BoundedCache<readonly [TranslatedVertical, TranslatedVertical], number>(4096);

function translatedEntry(vertical_id: number, block: InternalBlock | undefined): TranslatedVertical {
  if (block && (block.policy !== 'Block' || block.position_1_policy !== 'Block')) {
    return { vertical_id, policy: block.policy, position_1_policy: block.position_1_policy };
  }
  const pair = translated.get(vertical_id, () =>
    Object.freeze([
      Object.freeze({ vertical_id, policy: 'Allow', position_1_policy: 'Allow' } as const),
      Object.freeze({ vertical_id, policy: 'Block', position_1_policy: 'Block' } as const),
    ] as const),
  );
  return pair[block ? 1 : 0];
}

/**
 * The read view (spec §2.4): one entry per mapped sub-vertical, `vertical_id` being the
 * partner's SUB-vertical ID, with the effective policy of its internal category.
 */
export function translateBlocks(
  mapping: readonly MappingEntry[],
  blocks: readonly InternalBlock[],
): TranslatedVertical[] {
  const byName = new Map(blocks.map((b) => [b.vertical_name, b]));
  return mapping.map((m) => translatedEntry(m.partner_sub_vertical_id, byName.get(m.vertical_name)));
}
