/**
 * The replay's partner (docs/drift.md, "Set-up"): one with the recording's client_id and parent
 * account ID (new ones, mapped, when those are taken there), its taxonomy from the first
 * vertical-mappings answer recorded (the default fixtures' when there is none).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultFixturesDir } from '../base/package-dir.js';
import { type ControlClient, ControlPlaneError } from '../client/control-client.js';
import { flattenTaxonomy, type TaxonomyFileData } from '../domain/taxonomy.js';
import { APPLIED_HEADER, SCENARIO_HEADER, TOKEN_PATH } from './api.js';
import { headerValue, type ReadEntry, RecordingError } from './har.js';
import type { IdMap } from './id-map.js';
import type { Plan } from './replay-plan.js';

export interface Credentials {
  parent_account_id: string;
  client_id: string;
  client_secret: string;
}

const NAME = 'Replay of a recording (verify)';

/** Creates the partner and seeds its taxonomy; the recorded partner's values are mapped to it in `ids`. */
export async function createPartner(
  plan: Plan,
  control: ControlClient,
  base: string,
  ids: IdMap,
): Promise<Credentials> {
  const recorded = recordedPartner(plan);
  let partner: Credentials;
  try {
    partner = await control.partners.create({
      ...(recorded.parent ? { parent_account_id: recorded.parent } : {}),
      ...(recorded.clientIds[0] ? { client_id: recorded.clientIds[0] } : {}),
      name: NAME,
    });
  } catch (err) {
    if (!(err instanceof ControlPlaneError) || err.status !== 400) throw setUpError(base, err);
    // Taken there (the default fixtures' demo partner, or an earlier replay): new ones, mapped.
    partner = await control.partners
      .create({ name: NAME })
      .catch((e: unknown) => Promise.reject(setUpError(base, e)));
  }
  if (recorded.parent) ids.set(recorded.parent, partner.parent_account_id);
  for (const id of recorded.clientIds) ids.set(id, partner.client_id);
  for (const secret of recorded.secrets) ids.set(secret, partner.client_secret);
  const pair = `${encodeURIComponent(partner.client_id)}:${encodeURIComponent(partner.client_secret)}`;
  for (const basic of recorded.basics) ids.set(basic, Buffer.from(pair).toString('base64'));
  const taxonomy = recordedTaxonomy(plan) ?? defaultTaxonomy();
  if (taxonomy.length) {
    await control.partners
      .seedMappings(partner.parent_account_id, taxonomy)
      .catch((e: unknown) =>
        Promise.reject(new RecordingError(`cannot seed the recorded taxonomy at ${base}: ${describe(e)}`)),
      );
  }
  return partner;
}

function setUpError(base: string, err: unknown): Error {
  return new RecordingError(`cannot create the replay's partner at ${base}: ${describe(err)}`);
}

/** A control-plane failure in a few words (the status and the start of the body, or the network error). */
export function describe(err: unknown): string {
  // status 0: no answer at all (nothing listens there); its message says so and names the URL
  if (err instanceof ControlPlaneError && err.status !== 0)
    return `${err.status} ${String(JSON.stringify(err.body)).slice(0, 300)}`;
  const cause = (err as { cause?: { code?: string } }).cause?.code;
  return cause ? `${(err as Error).message} (${cause})` : String((err as Error).message ?? err);
}

/** The recording's partner: parent account ID, client_id, and the placeholders of its secret. */
function recordedPartner(plan: Plan): {
  parent?: string;
  clientIds: string[];
  secrets: string[];
  basics: string[];
} {
  let parent: string | undefined;
  for (const { entry, path } of plan.api) {
    parent ??= headerValue(entry.requestHeaders, 'X-Platform-Parent-Account-Id');
    if (!parent && path.startsWith('/v1/accounts/register/')) {
      const body = parseObject(entry.requestBody);
      if (typeof body?.platform_parent_account_id === 'string') parent = body.platform_parent_account_id;
    }
    if (!parent && path.startsWith('/v1/partnership/vertical-mappings?')) {
      parent = new URLSearchParams(path.split('?')[1]).get('parent_account_id') ?? undefined;
    }
    if (parent) break;
  }
  // The partner's credentials: the values its token calls sent, but for those the service only
  // ever refused (a drill with a wrong secret stays wrong in the replay).
  const accepted = { clientIds: new Set<string>(), secrets: new Set<string>(), basics: new Set<string>() };
  for (const { entry, path } of plan.api) {
    if (path.split('?')[0] !== TOKEN_PATH) continue;
    const refused =
      /invalid_client/.test(entry.responseBody ?? '') && (entry.status === 401 || entry.status === 400);
    if (refused) continue;
    const fields = tokenFields(entry);
    if (fields.client_id) accepted.clientIds.add(fields.client_id);
    if (fields.client_secret) accepted.secrets.add(fields.client_secret);
    const basic = /^\s*basic\s+(\S+)/i.exec(headerValue(entry.requestHeaders, 'authorization') ?? '')?.[1];
    if (basic) accepted.basics.add(basic);
  }
  return {
    ...(parent ? { parent } : {}),
    clientIds: [...accepted.clientIds],
    secrets: [...accepted.secrets],
    basics: [...accepted.basics],
  };
}

function tokenFields(entry: ReadEntry): Record<string, string | undefined> {
  const text = entry.requestBody ?? '';
  const json = parseObject(text);
  if (json) {
    return {
      client_id: typeof json.client_id === 'string' ? json.client_id : undefined,
      client_secret: typeof json.client_secret === 'string' ? json.client_secret : undefined,
    };
  }
  const form = new URLSearchParams(text);
  return {
    client_id: form.get('client_id') ?? undefined,
    client_secret: form.get('client_secret') ?? undefined,
  };
}

interface MappingSeedEntry {
  partner_vertical_id: number;
  partner_vertical_name: string;
  partner_sub_vertical_id: number;
  partner_sub_vertical_name: string;
  vertical_name: string;
}

/**
 * The first vertical-mappings answer recorded (not one a scenario made), as a seed: its rows that
 * are rows (an object with the five fields, ids integers, names strings). Any other (a `null`, a
 * field missing) is left out of the seed, so the answer's comparison shows it as a difference.
 */
function recordedTaxonomy(plan: Plan): MappingSeedEntry[] | undefined {
  for (const { entry, path } of plan.api) {
    if (path.split('?')[0] !== '/v1/partnership/vertical-mappings' || entry.status !== 200) continue;
    if (
      headerValue(entry.requestHeaders, SCENARIO_HEADER) ||
      headerValue(entry.responseHeaders, APPLIED_HEADER)
    ) {
      continue;
    }
    const rows = (parseObject(entry.responseBody)?.data as { vertical_mappings?: unknown } | undefined)
      ?.vertical_mappings;
    if (!Array.isArray(rows)) continue;
    return rows.filter(isSeedRow).map((row) => ({
      partner_vertical_id: row.partner_vertical_id,
      partner_vertical_name: row.partner_vertical_name,
      partner_sub_vertical_id: row.partner_sub_vertical_id,
      partner_sub_vertical_name: row.partner_sub_vertical_name,
      vertical_name: row.vertical_name,
    }));
  }
  return undefined;
}

function isSeedRow(row: unknown): row is MappingSeedEntry {
  if (row === null || typeof row !== 'object' || Array.isArray(row)) return false;
  const r = row as Record<string, unknown>;
  return (
    Number.isInteger(r.partner_vertical_id) &&
    Number.isInteger(r.partner_sub_vertical_id) &&
    typeof r.partner_vertical_name === 'string' &&
    typeof r.partner_sub_vertical_name === 'string' &&
    typeof r.vertical_name === 'string'
  );
}

/** The default fixtures' taxonomy (the package's fixtures/taxonomy.json), flattened. */
function defaultTaxonomy(): MappingSeedEntry[] {
  const file = readFileSync(join(defaultFixturesDir, 'taxonomy.json'), 'utf8');
  return flattenTaxonomy(JSON.parse(file) as TaxonomyFileData);
}

export function parseObject(text: string | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
