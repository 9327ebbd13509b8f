/**
 * Marketplace controls rules that are not about taxonomy: the content hash and when a
 * sent `contentHash` is current (spec rule 3; docs/where-the-spec-is-silent.md).
 */
import { hash } from 'node:crypto';

/** A block on an internal category (the mapping's `vertical_name`). */
export interface InternalBlock {
  vertical_name: string;
  policy: 'Block';
  position_1_policy: 'Block';
}

export interface DomainRuleRow {
  domain: string;
  policy: 'Block';
}

/** One account's marketplace controls list, as the rules see it and the store keeps it. */
export interface ControlsListRow {
  account_id: string;
  list_id: string;
  name: string;
  version: number;
  content_hash: string;
  blocked: InternalBlock[];
  domains: DomainRuleRow[];
  updated_at: string;
}

/**
 * A hash that changes on every accepted write (the version is part of it) and that a
 * dry run can predict exactly: the same list, version and content give the same hash.
 */
export function contentHash(
  listId: string,
  version: number,
  blocked: InternalBlock[],
  domains: DomainRuleRow[],
) {
  // One call (no Hash object): the same digest.
  return hash('sha256', JSON.stringify([listId, version, blocked, domains])).slice(0, 40);
}

/**
 * docs/where-the-spec-is-silent.md: the first write to a fresh list (version 0) accepts null or the hash a
 * GET showed; after any accepted write only the latest hash is current.
 */
export function isCurrentHash(
  stored: Pick<ControlsListRow, 'version' | 'content_hash'>,
  sent: string | null,
) {
  if (sent === null) return stored.version === 0;
  return sent === stored.content_hash;
}

/** The next version of a list: what a write stores, or what a dry run shows. */
export function nextList(
  current: ControlsListRow,
  change: { name?: string | undefined; blocked: InternalBlock[]; domains: DomainRuleRow[]; at: string },
): ControlsListRow {
  const version = current.version + 1;
  return {
    ...current,
    name: change.name ?? current.name,
    version,
    blocked: change.blocked,
    domains: change.domains,
    content_hash: contentHash(current.list_id, version, change.blocked, change.domains),
    updated_at: change.at,
  };
}
