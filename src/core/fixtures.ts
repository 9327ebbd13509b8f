/**
 * Fixtures (docs/configuration.md#fixtures): what the operator would set up. Validated with zod at load;
 * a broken file stops start-up naming the file and the field.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { StartupError } from '../base/startup-error.js';
import { LAYOUT_TYPES, SURFACES } from '../contract/api/schemas.js';
import { pathSegment } from '../contract/control/control-schemas.js';
import { flattenTaxonomy, type MappingEntry, mappingProblems } from '../domain/taxonomy.js';
import type { InternalBlock } from '../store/controls-table.js';

const PartnersFile = z.strictObject({
  partners: z
    .array(
      z.strictObject({
        // IDs in URL paths: the control plane's rule (no "." or "..", which URLs resolve away).
        parent_account_id: pathSegment,
        name: z.string().min(1),
        client_id: pathSegment,
        client_secret: z.string().min(8),
        taxonomy: z.string().min(1).optional(),
      }),
    )
    .min(1),
});

const TaxonomyFile = z.strictObject({
  verticals: z.array(
    z.strictObject({
      partner_vertical_id: z.int().nonnegative(),
      partner_vertical_name: z.string().min(1),
      sub_verticals: z
        .array(
          z.strictObject({
            partner_sub_vertical_id: z.int().nonnegative(),
            partner_sub_vertical_name: z.string().min(1),
            vertical_name: z.string().min(1),
          }),
        )
        .min(1),
    }),
  ),
});

const PresetFile = z.strictObject({
  name: z.string().min(1),
  blocked_verticals: z.array(
    z.strictObject({
      vertical_name: z.string().min(1),
      policy: z.literal('Block'),
      position_1_policy: z.literal('Block'),
    }),
  ),
});

const PagesFile = z.strictObject({
  default_pages: z.array(z.strictObject({ surface: z.enum(SURFACES), layout_type: z.enum(LAYOUT_TYPES) })),
});

export interface FixturePartner {
  parent_account_id: string;
  name: string;
  client_id: string;
  client_secret: string;
  mapping: MappingEntry[];
}

export interface Fixtures {
  dir: string;
  partners: FixturePartner[];
  preset: { name: string; blocked: InternalBlock[] };
  defaultPages: { surface: (typeof SURFACES)[number]; layout_type: (typeof LAYOUT_TYPES)[number] }[];
}

function readJson<T>(dir: string, file: string, schema: z.ZodType<T>): T {
  const path = join(dir, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new StartupError(
      `fixture ${path} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new StartupError(`fixture ${path}: not valid JSON (${(e as Error).message})`);
  }
  // Parsed once at start-up: zod's compiled fast path would cost more to build than it saves.
  const parsed = schema.safeParse(json, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StartupError(`fixture ${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

export function loadFixtures(dir: string): Fixtures {
  const { partners } = readJson(dir, 'partners.json', PartnersFile);
  const taxonomies = new Map<string, MappingEntry[]>();
  const loaded = partners.map((p, i) => {
    let mapping: MappingEntry[] = [];
    if (p.taxonomy) {
      mapping = taxonomies.get(p.taxonomy) ?? flattenTaxonomy(readJson(dir, p.taxonomy, TaxonomyFile));
      const problems = mappingProblems(mapping);
      if (problems.length) throw new StartupError(`fixture ${join(dir, p.taxonomy)}: ${problems[0]}`);
      taxonomies.set(p.taxonomy, mapping);
    }
    const duplicate = partners.findIndex(
      (q, j) => j < i && (q.parent_account_id === p.parent_account_id || q.client_id === p.client_id),
    );
    if (duplicate !== -1) {
      throw new StartupError(
        `fixture ${join(dir, 'partners.json')}: partners.${i}: parent_account_id or client_id repeats partners.${duplicate}`,
      );
    }
    const { taxonomy: _taxonomy, ...partner } = p;
    return { ...partner, mapping };
  });
  const preset = readJson(dir, 'preset.json', PresetFile);
  const pages = readJson(dir, 'pages.json', PagesFile);
  return {
    dir,
    partners: loaded,
    preset: { name: preset.name, blocked: preset.blocked_verticals },
    defaultPages: pages.default_pages,
  };
}
