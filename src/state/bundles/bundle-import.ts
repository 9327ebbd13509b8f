/**
 * Bundles (docs/parallel-tests.md): one partner's whole state as one JSON file, what a failed CI
 * job uploads (exported by state/bundles/bundle-export.ts), and loading one into another sandbox (the
 * partner is replaced if it exists). A bundle is checked in full before anything is written
 * (schema, version, then each piece of the sandbox's state checks its part: its own
 * consistency, IDs held by another partner here), then every piece loads its part
 * (state/registry.ts; the store and the clocks in one transaction): a broken or foreign
 * file is a 400 naming the field, and nothing is loaded.
 */

import { validationError } from '../../contract/api/errors.js';
import { issuesToFields } from '../../contract/api/issues.js';
import {
  BUNDLE_MAX_ACCOUNTS,
  BUNDLE_VERSION,
  BUNDLE_VERSIONS_READ,
  Bundle,
  type BundleData,
  BundleV1,
} from '../../contract/control/bundle.js';
import { nextTurn } from '../../core/turns.js';
import { hashSecretSync } from '../../domain/secrets.js';
import type { Staging } from '../registry.js';
import type { Sandbox } from '../sandbox.js';

/**
 * A bundle of any version this sandbox reads, as the current version: version 1 (an earlier
 * export) carries the client_secret in clear, which is hashed here and kept only so.
 */
function parseBundle(json: unknown): BundleData {
  const v1 = typeof json === 'object' && json !== null && (json as { version?: unknown }).version === 1;
  const parsed = (v1 ? BundleV1 : Bundle).safeParse(json);
  if (!parsed.success) throw validationError(issuesToFields(parsed.error.issues, '', 'bundle'));
  if (!('client_secret' in parsed.data.partner)) return parsed.data as BundleData;
  const { client_secret, ...partner } = parsed.data.partner;
  return {
    ...parsed.data,
    version: BUNDLE_VERSION,
    partner: { ...partner, client_secret_hash: hashSecretSync(client_secret) },
  };
}

/** A bundle whose version this sandbox does not read is a 400 naming what it reads. */
function checkVersion(json: unknown): void {
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const version = (json as Record<string, unknown>).version;
    if (!BUNDLE_VERSIONS_READ.includes(version as number)) {
      throw validationError([
        {
          field: 'version',
          message: `must be ${BUNDLE_VERSION} (this sandbox writes bundle version ${BUNDLE_VERSION} and reads versions ${BUNDLE_VERSIONS_READ.join(' and ')}; got ${JSON.stringify(version ?? null).slice(0, 40)})`,
        },
      ]);
    }
  }
}

/**
 * Loads a bundle (already parsed JSON): validated in full first, then each piece of the
 * sandbox's state replaces the partner's part by the bundle's. Deadlines are kept relative to
 * the partner's clock (state/clock-plan.ts); historical times (created_at, updated_at,
 * armed_at, the journal's) are kept as they are.
 */
export function importBundle(s: Sandbox, json: unknown) {
  checkVersion(json);
  return load(s, parseBundle(json));
}

/** How many accounts are validated between two turns of the event loop. */
export const ACCOUNTS_PER_TURN = 200;

/**
 * A bundle's accounts as JSON texts of at most ACCOUNTS_PER_TURN each, and a few hundred KB
 * (parsed on another thread: http/json-aside.ts).
 */
export interface AccountSlices {
  slices: readonly string[];
  count: number;
}

/**
 * `POST /__sandbox/bundles`: the same, but a large bundle (tens of thousands of accounts, or
 * a few with long lists) goes by turns, other requests served in between: its accounts are
 * parsed (from `sliced`, when the body was parsed aside) and validated a slice a turn, checked
 * against this sandbox by slices, and their rows staged where no reader sees them
 * (StateRegistry.stage); then the partner is swapped in, by slices too.
 */
export async function importBundleInTurns(s: Sandbox, json: unknown, sliced?: AccountSlices) {
  checkVersion(json);
  const { accounts } = (json ?? {}) as { accounts?: unknown };
  const count = sliced ? sliced.count : Array.isArray(accounts) ? accounts.length : 0;
  // A small body goes in one step; one parsed aside (1 MiB or more) by turns whatever its
  // count of accounts, and whatever the version it was written in.
  if (!sliced && count <= ACCOUNTS_PER_TURN) return load(s, parseBundle(json));
  if (count > BUNDLE_MAX_ACCOUNTS)
    throw validationError([
      { field: 'accounts', message: `must have at most ${BUNDLE_MAX_ACCOUNTS} entries` },
    ]);
  const b = await parsedInTurns(json, accountParts(accounts, count, sliced));
  await checkedInTurns(s, b);
  // The rows are written ahead by slices where no reader sees them, then swapped in: by slices
  // too, while what could see the partner half-moved waits (state/bundles/swap-gate.ts).
  const realNow = Date.now();
  const staged = s.state.stage(b, realNow);
  try {
    await stagedAhead(staged);
    return await swappedIn(s, b, realNow, staged);
  } catch (err) {
    // A constraint the swap's transaction met (something taken that the check before the swap
    // did not see): nothing of it was written. The check, run again, names the field if it can.
    if ((err as { code?: unknown }).code?.toString().startsWith('SQLITE_CONSTRAINT'))
      await checkedInTurns(s, b);
    throw err;
  } finally {
    for (const piece of staged.values()) piece.drop();
  }
}

/** A large bundle's accounts, a turn's worth at a time (from `sliced` when parsed aside). */
function* accountParts(accounts: unknown, count: number, sliced?: AccountSlices): Generator<unknown[]> {
  if (sliced) for (const text of sliced.slices) yield JSON.parse(text) as unknown[];
  else
    for (let from = 0; from < count; from += ACCOUNTS_PER_TURN)
      yield (accounts as unknown[]).slice(from, from + ACCOUNTS_PER_TURN);
}

/** The bundle parsed: everything but the accounts at once, then the accounts a part a turn. */
async function parsedInTurns(json: unknown, parts: Iterable<unknown[]>): Promise<BundleData> {
  const rest = parseBundle({ ...(json as object), accounts: [] });
  const element = Bundle.shape.accounts.element;
  const parsed: BundleData['accounts'] = [];
  for (const part of parts) {
    await nextTurn();
    for (const account of part) {
      const result = element.safeParse(account);
      const at = parsed.length;
      if (!result.success)
        throw validationError(
          issuesToFields(
            result.error.issues.map((issue) => ({ ...issue, path: ['accounts', at, ...issue.path] })),
            '',
            'bundle',
          ),
        );
      parsed.push(result.data);
    }
  }
  await nextTurn();
  return { ...rest, accounts: parsed };
}

/** Each piece's part written ahead, a slice a turn. */
async function stagedAhead(staged: ReadonlyMap<string, Staging>): Promise<void> {
  for (const piece of staged.values()) {
    do await nextTurn();
    while (piece.next());
  }
  await nextTurn();
}

/**
 * The staged bundle swapped in with the partner's gate closed (state/bundles/swap-gate.ts); its calls
 * held meanwhile start over against the new partner.
 */
async function swappedIn(s: Sandbox, b: BundleData, realNow: number, staged: ReadonlyMap<string, Staging>) {
  const parent = b.partner.parent_account_id;
  const open = await s.gate.close(parent);
  try {
    // Taken since the check (a partner created meanwhile with its client_id): checked again, a
    // 400. Nothing can take anything while the gate is closed, so the checks go by turns.
    for (const piece of staged.values()) {
      for (const taken of piece.taken()) {
        await nextTurn();
        if (taken()) await checkedInTurns(s, b);
      }
    }
    await nextTurn();
    const replaced = s.state.scopeOf(parent).client !== undefined;
    await s.state.swapIn(b, realNow, staged, nextTurn);
    return summary(b, replaced);
  } finally {
    s.markWiped(parent);
    open();
  }
}

/** The bundle checked against itself and this sandbox: a 400 naming the fields (the first 20). */
function checked(s: Sandbox, b: BundleData): void {
  const found = s.state.check(b);
  if (found.length) throw validationError(found.slice(0, 20));
}

/** The same for a large bundle, by slices between turns of the event loop. */
async function checkedInTurns(s: Sandbox, b: BundleData): Promise<void> {
  const found = await s.state.checkInTurns(b, nextTurn);
  if (found.length) throw validationError(found.slice(0, 20));
}

function load(s: Sandbox, b: BundleData) {
  checked(s, b);
  const parent = b.partner.parent_account_id;
  const replaced = s.state.scopeOf(parent).client !== undefined;
  s.state.importPartner(b, Date.now());
  s.markWiped(parent);
  return summary(b, replaced);
}

/** What an import answers: what it loaded. */
function summary(b: BundleData, replaced: boolean) {
  return {
    parent_account_id: b.partner.parent_account_id,
    replaced,
    accounts: b.accounts.length,
    idempotency_keys: b.idempotency_keys.length,
    armed: b.armed.length,
    journal: b.journal.length,
  };
}
