/**
 * An account's record of its latest real status PUT (what it did to each variant), kept in a
 * meta row of the store: written by the status service (services/status.ts), shown by the
 * control plane, and carried by bundles (exported, imported, dropped with the account).
 */
import type { StatusData } from '../contract/api/schemas.js';
import type { RequestedStatus, VariantOutcome } from '../domain/aggregate-status.js';
import type { Sandbox } from './sandbox.js';

/** What the latest real status PUT did to each variant: sandbox detail for the control plane. */
export interface StatusWriteRecord {
  request_id: string;
  at: string;
  requested: RequestedStatus;
  status: StatusData['status'];
  variants: {
    variant_id: string;
    page_id: string;
    name: string;
    status: RequestedStatus;
    result: VariantOutcome;
  }[];
}

const recordKey = (accountId: string) => `last_status_write:${accountId}`;

/** The latest real status PUT of an account (dry runs and replays leave no record), or null. */
export function lastStatusWrite(s: Sandbox, accountId: string): StatusWriteRecord | null {
  const text = s.store.meta.get(recordKey(accountId));
  return text === undefined ? null : (JSON.parse(text) as StatusWriteRecord);
}

/** The meta row that keeps an account's latest status write (what putLastStatusWrite writes). */
export const lastStatusWriteMeta = (accountId: string, record: StatusWriteRecord) => ({
  key: recordKey(accountId),
  value: JSON.stringify(record),
});

/** Sets (a status PUT, a bundle import) or forgets (null) an account's record of its latest status PUT. */
export function putLastStatusWrite(s: Sandbox, accountId: string, record: StatusWriteRecord | null): void {
  if (record) {
    const row = lastStatusWriteMeta(accountId, record);
    s.store.meta.set(row.key, row.value);
  } else s.store.meta.delete(recordKey(accountId));
}
