/**
 * Marketplace controls (endpoints 3 and 4): read in the partner's taxonomy; replace as
 * desired state, atomically, guarded by the content hash.
 */
import { ApiError } from '../contract/api/errors.js';
import {
  mappingNotSeededMessage,
  STALE_CONTENT_HASH_MESSAGE,
  unmappedPairsEmptyMappingMessage,
  unmappedPairsMessage,
} from '../contract/api/messages.js';
import type { ControlsData, ControlsWriteRequest } from '../contract/api/schemas.js';
import { isCurrentHash, nextList } from '../domain/controls-list.js';
import { translateBlocks, translatePairs } from '../domain/taxonomy.js';
import type { ServiceFaults } from '../scenarios/fault-plan.js';
import type { Sandbox } from '../state/index.js';
import type { AccountRow } from '../store/accounts-table.js';
import type { ControlsListRow } from '../store/controls-table.js';
import type { MappingRow } from '../store/partners-table.js';
import { mappingFor } from './mappings.js';

/**
 * Read views already translated, by list row. A stored list and a parent's mapping are
 * replaced, never changed in place, so a view is reused only while both are the same
 * objects; views are frozen, as they are shared by every read of that list.
 */
const views = new WeakMap<ControlsListRow, { mapping: readonly MappingRow[]; data: ControlsData }>();

function view(
  s: Sandbox,
  account: AccountRow,
  list: ControlsListRow,
  mapping: readonly MappingRow[] = s.store.partners.mappings(account.parent_account_id),
): ControlsData {
  const hit = views.get(list);
  if (hit && hit.mapping === mapping) return hit.data;
  const data: ControlsData = deepFreeze({
    account_id: account.account_id,
    marketplace_controls_list: {
      marketplace_controls_list_id: list.list_id,
      domains: list.domains.map((d) => ({ domain: d.domain, policy: d.policy })),
      content_hash: list.content_hash,
    },
    translated_verticals: translateBlocks(mapping, list.blocked),
  });
  views.set(list, { mapping, data });
  return data;
}

/** Freezes the value and every object in it (a view: plain objects, arrays and primitives). */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  // No array of values made to walk them: a controls PUT freezes a new view each time.
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  else for (const key in value) deepFreeze(value[key]);
  return value;
}

function storedList(s: Sandbox, account: AccountRow): ControlsListRow {
  const list = s.store.controls.get(account.account_id);
  if (!list) throw new Error(`account ${account.account_id} has no controls list`);
  return list;
}

/** The list in the partner's taxonomy; with the request's scenarios, as the partner sees it (unseeded-mappings). */
export function readControls(s: Sandbox, account: AccountRow, faults?: ServiceFaults): ControlsData {
  const list = storedList(s, account);
  return faults
    ? view(s, account, list, mappingFor(s, account.parent_account_id, faults.unseededMappings))
    : view(s, account, list);
}

/** The stale-content-hash hook: another writer replaces the list first (same content, new hash). */
function concurrentWrite(s: Sandbox, account: AccountRow): void {
  s.store.tx(() => {
    const current = storedList(s, account);
    s.store.controls.put(
      nextList(current, {
        blocked: current.blocked,
        domains: current.domains,
        at: s.clock.iso(account.parent_account_id),
      }),
    );
  });
}

/** A controls PUT, as its call names it. */
export interface ControlsWrite {
  account: AccountRow;
  body: ControlsWriteRequest;
  dryRun: boolean;
  faults: ServiceFaults;
}

/** What a controls write leaves: the list as the partner sees it now, and the bytes its row takes. */
export interface ControlsWritten {
  data: ControlsData;
  /** What its stored row takes in the partner's room (store/sizes.ts; 0 for a dry run, which stores nothing). */
  bytes: number;
}

/**
 * Replaces the list (a dry run only checks and shows it); `answer` runs in the write's
 * transaction with what it wrote, so what it stores (the answer kept under an Idempotency-Key)
 * commits with the list or not at all.
 */
export function writeControls<T>(
  s: Sandbox,
  { account, body, dryRun, faults }: ControlsWrite,
  answer: (written: ControlsWritten) => T,
): T {
  const parent = account.parent_account_id;
  const mapping = mappingFor(s, parent, faults.unseededMappings);
  const { blocks, unmapped } = translatePairs(mapping, body.blockedVerticals);
  if (mapping.length === 0) {
    // Spec §1.2: until the mapping is seeded, controls writes fail with 400. Every pair
    // is unmapped, so they are all listed as spec §7 says; a write naming no pair has no
    // unmapped pair, and gets the not-seeded message alone.
    const message = unmapped.length
      ? unmappedPairsEmptyMappingMessage(unmapped, parent)
      : mappingNotSeededMessage(parent);
    throw new ApiError('vertical_mapping_not_seeded', message, {
      details: { parent_account_id: parent, unmapped_pairs: unmapped },
    });
  }
  if (unmapped.length > 0) {
    throw new ApiError('vertical_not_mapped', unmappedPairsMessage(unmapped), {
      details: { unmapped_pairs: unmapped },
    });
  }
  const domains = body.domains.map((d) => ({ domain: d.domain.toLowerCase(), policy: 'Block' as const }));

  // A dry run shows the clean result: the drill would change stored state, so it is not applied.
  if (!dryRun && faults.staleContentHash) {
    faults.staleContentHash.use();
    concurrentWrite(s, account);
  }

  return s.store.tx(() => {
    const current = storedList(s, account);
    if (!isCurrentHash(current, body.contentHash)) {
      throw new ApiError('content_hash_mismatch', STALE_CONTENT_HASH_MESSAGE, {
        details: { sent_content_hash: body.contentHash },
      });
    }
    const next = nextList(current, { name: body.name, blocked: blocks, domains, at: s.clock.iso(parent) });
    const bytes = dryRun ? 0 : s.store.controls.put(next);
    // Once committed (a caller's transaction could still roll it back): the next read of this
    // list, a GET or the next PUT's check, takes this row and its view.
    if (!dryRun) s.store.committed(() => s.store.controls.remember(next));
    return answer({ data: view(s, account, next), bytes });
  });
}
