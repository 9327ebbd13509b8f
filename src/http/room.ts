/**
 * A partner's room (docs/guarantees-and-limits.md): what a partner holds is bounded so that its
 * bundle always imports (docs/parallel-tests.md: "nothing a client sends makes a partner's bundle
 * larger than the import accepts"). The last stage of every write: a write that could take the
 * partner past PARTNER_ROOM_BYTES is a 403 partner_storage_full, nothing written (its
 * Idempotency-Key freed as for any error); a write that went through grows the partner's count
 * by what its account's rows and its stored answer now take (store/sizes.ts `written`). The control plane's writes that add to a
 * partner's rows (a variant, a mapping, a Pact provider state's account or mapping) are held to
 * the same room (controlWrite, mappingWrite, rowsWrite).
 */
import type { Context } from 'hono';
import { ApiError } from '../contract/api/errors.js';
import { partnerStorageFullMessage } from '../contract/api/messages.js';
import { BUNDLE_LIMIT_BYTES } from '../contract/control/bundle.js';
import { answerRowBytes } from '../store/sizes.js';
import { type AppEnv, known } from './env.js';

/**
 * The most one partner's accounts (with their variants and controls lists), vertical mapping
 * and stored answers may take of its bundle: the import's limit less room for the rest of the
 * bundle (credentials, armed scenarios, chaos; the journal is cut to what is left).
 */
export const PARTNER_ROOM_BYTES = BUNDLE_LIMIT_BYTES - 6 * 1024 * 1024;

/** What one write may store besides its body and its answer: new pages, layouts and variants, rows' overhead. */
const WRITE_BYTES = 16 * 1024;

/**
 * An upper bound of what a write stores: its body (the list or the account it writes), its
 * answer (kept under its Idempotency-Key, and echoing what it wrote), and WRITE_BYTES.
 */
const estimate = (body: string | null, answer = 2 * (body?.length ?? 0)) =>
  2 * ((body?.length ?? 0) + answer) + WRITE_BYTES;

/**
 * 403 partner_storage_full unless `need` more bytes fit in the partner's room; `replaced`: the
 * bytes the write takes away as it adds (a mapping seeded replaces the one before).
 */
export function ensureRoom(c: Context<AppEnv>, parent: string, need: number, replaced = () => 0): void {
  const sizes = c.get('sandbox').store.sizes;
  if (sizes.of(parent) + need <= PARTNER_ROOM_BYTES) return;
  // The estimate grew past the room: what the store holds decides (read again unless nothing changed since).
  const used = sizes.settled(parent);
  if (used - replaced() + need <= PARTNER_ROOM_BYTES) return;
  throw new ApiError('partner_storage_full', partnerStorageFullMessage(parent, used, PARTNER_ROOM_BYTES), {
    details: { parent_account_id: parent, used_bytes: used, limit_bytes: PARTNER_ROOM_BYTES },
  });
}

export function room(c: Context<AppEnv>): void {
  ensureRoom(c, known(c, 'principal').parent_account_id, estimate(c.get('rawBody')));
}

/**
 * A control-plane write that adds rows to a partner's accounts (a variant: docs/hosting.md), by
 * its admin or its own token: refused past the partner's room like a partnership write, and
 * counted once written (its body and its answer, as a partnership write's).
 */
export function controlWrite<T>(c: Context<AppEnv>, parent: string, write: () => T): T {
  ensureRoom(c, parent, estimate(c.get('rawBody')));
  const written = write();
  c.get('sandbox').store.sizes.grow(parent, estimate(c.get('rawBody')));
  return written;
}

/**
 * A control-plane write whose rows its body does not bound (a Pact provider state's account,
 * with the fixtures' pages): refused past the partner's room like any write, and counted from
 * the store once written (the partner's next write reads its count again).
 */
export function rowsWrite<T>(c: Context<AppEnv>, parent: string, write: () => T): T {
  ensureRoom(c, parent, estimate(c.get('rawBody')));
  const written = write();
  c.get('sandbox').store.sizes.forget(parent);
  return written;
}

/** What a mapping row gains when stored: `,"created_at":"…"` (an ISO time), and more. */
const MAPPING_ROW_EXTRA = 64;
/** The bytes a mapping takes in the bundle: each row's JSON with its created_at, and a comma. */
const mappingBytes = (rows: readonly object[]) =>
  Buffer.byteLength(JSON.stringify(rows)) + rows.length * MAPPING_ROW_EXTRA;

/**
 * A mapping seeded on the control plane replaces the partner's: refused when the new one would
 * take the partner past its room (what the old one took is given back), counted once written.
 */
export function mappingWrite<T>(
  c: Context<AppEnv>,
  parent: string,
  rows: readonly object[],
  write: () => T,
): T {
  const sizes = c.get('sandbox').store.sizes;
  ensureRoom(c, parent, mappingBytes(rows), () => sizes.mapping(parent));
  const written = write();
  sizes.forget(parent);
  return written;
}

/**
 * After a write: one that succeeded grows its partner's count by what it may have stored: its
 * account's rows and the answer kept under `key` (null: no key; undefined: the store did not
 * take the answer, kept in memory until it does, so the estimate counts it).
 */
export function roomUsed(
  c: Context<AppEnv>,
  answer: Response | undefined,
  key: string | null | undefined,
): void {
  const parent = c.get('principal')?.parent_account_id;
  if (parent === undefined || !answer || answer.status < 200 || answer.status >= 300) return;
  const sizes = c.get('sandbox').store.sizes;
  const account = c.get('accountId');
  const stored = c.get('storedBytes');
  if (stored !== undefined && key !== undefined) {
    // Counted in JS: the rows the handler stored, and the answer kept under the key.
    const text = c.get('responseText') ?? '';
    sizes.grow(
      parent,
      stored + (key === null ? 0 : answerRowBytes(parent, key, `${c.req.method} ${c.req.path}`, text)),
    );
  } else if (account !== undefined && key !== undefined) sizes.wrote(parent, account, key);
  else sizes.grow(parent, estimate(c.get('rawBody'), c.get('responseText')?.length ?? 0));
}
