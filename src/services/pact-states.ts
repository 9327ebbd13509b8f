/**
 * Pact provider states (docs/contracts.md): `a partner` and `an account` set the sandbox up so
 * that a pact recorded with literal values verifies against it, and the teardown puts back what
 * they touched. Each sandbox keeps a small session: the partners touched since the last
 * teardown (the last one is the default partner of the next state), the tokens planted, and the
 * credentials a setup replaced (restored at the teardown, so the fixtures' documented secret
 * works again after a verification).
 */
import type { z } from 'zod';
import { validationError } from '../contract/api/errors.js';
import type { AccountStateParams, PartnerStateParams } from '../contract/control/pact.js';
import { aggregateStatus } from '../domain/aggregate-status.js';
import { hashSecret } from '../domain/secrets.js';
import type { Sandbox } from '../state/index.js';
import { type PartnerCredentialsRow, secretColumns } from '../store/partners-table.js';
import { createPartner, seedMappings } from './partners.js';
import { insertAccount, newAccount } from './register.js';
import { issueToken, tokenHash } from './tokens.js';

interface Session {
  /** Partners a setup touched since the last teardown, in order (the last: the default partner). */
  touched: string[];
  /** Hashes of the tokens planted or issued, forgotten at the teardown. */
  tokens: Set<string>;
  /** Credentials a setup replaced, by parent, as they were before the first replacement. */
  saved: Map<string, PartnerCredentialsRow>;
}

/**
 * How a state's writes are held to the partner's room, as the control plane's other writes
 * (http/room.ts): a mapping seeded or cleared, an account's rows written.
 */
export interface RoomWrites {
  mapping<T>(parent: string, rows: readonly object[], write: () => T): T;
  rows<T>(parent: string, write: () => T): T;
}

const sessions = new WeakMap<Sandbox, Session>();

function session(s: Sandbox): Session {
  let found = sessions.get(s);
  if (!found) {
    found = { touched: [], tokens: new Set(), saved: new Map() };
    sessions.set(s, found);
  }
  return found;
}

/** How long a planted token lives (it is forgotten at the teardown anyway): a day of the partner's clock. */
const PLANTED_TOKEN_MS = 86_400_000;

/** The fixtures' taxonomy: the first fixture partner's that has one. */
const fixtureTaxonomy = (s: Sandbox) => s.fixtures.partners.find((p) => p.mapping.length)?.mapping ?? [];

/** The partner a state names, else the one set up last since the teardown, else the fixtures' first. */
function defaultParent(s: Sandbox, named: string | undefined): string {
  return named ?? session(s).touched.at(-1) ?? s.fixtures.partners[0]!.parent_account_id;
}

function touch(s: Sandbox, parent: string): void {
  const list = session(s).touched;
  const at = list.indexOf(parent);
  if (at !== -1) list.splice(at, 1);
  list.push(parent);
}

/** `a partner`: the partner with these credentials, its taxonomy, and a valid token of it. */
export async function setUpPartner(s: Sandbox, p: z.output<typeof PartnerStateParams>, room: RoomWrites) {
  const parent = defaultParent(s, p.parent_account_id);
  const taken = p.client_id === undefined ? undefined : s.store.partners.byClient(p.client_id);
  if (taken && taken.parent_account_id !== parent) {
    throw validationError([
      { field: 'params.client_id', message: `is the client_id of partner ${taken.parent_account_id}` },
    ]);
  }
  let partner = s.store.partners.byParent(parent);
  if (!partner) {
    await createPartner(s, {
      parent_account_id: parent,
      ...(p.client_id === undefined ? {} : { client_id: p.client_id }),
      ...(p.client_secret === undefined ? {} : { client_secret: p.client_secret }),
      name: 'Pact provider state',
    });
  } else if (
    (p.client_id !== undefined && p.client_id !== partner.client_id) ||
    p.client_secret !== undefined
  ) {
    const secret = p.client_secret === undefined ? undefined : await hashSecret(p.client_secret);
    partner = s.store.partners.byParent(parent) ?? partner; // again: the hash was computed off the loop
    const saved = session(s).saved;
    if (!saved.has(parent)) saved.set(parent, pickCredentials(partner));
    s.store.partners.setCredentials({
      ...pickCredentials(partner),
      ...(p.client_id === undefined ? {} : { client_id: p.client_id }),
      ...(secret ? secretColumns(secret) : {}),
    });
  }
  touch(s, parent);
  const mapping = s.store.partners.mappings(parent);
  if (p.taxonomy === 'empty') {
    if (mapping.length) room.mapping(parent, [], () => s.store.partners.replaceMappings(parent, []));
  } else if (!mapping.length) {
    const taxonomy = fixtureTaxonomy(s);
    room.mapping(parent, taxonomy, () => seedMappings(s, parent, taxonomy));
  }
  const client_id = s.store.partners.byParent(parent)!.client_id;
  return {
    parent_account_id: parent,
    client_id,
    access_token: plantToken(s, parent, client_id, p.access_token),
  };
}

const pickCredentials = (p: PartnerCredentialsRow): PartnerCredentialsRow => ({
  parent_account_id: p.parent_account_id,
  client_id: p.client_id,
  secret_algorithm: p.secret_algorithm,
  secret_salt: p.secret_salt,
  secret_hash: p.secret_hash,
});

/** The given string made a valid token of the partner (any partner's token by that string goes), or one issued. */
function plantToken(s: Sandbox, parent: string, clientId: string, token: string | undefined): string {
  const principal = { parent_account_id: parent, client_id: clientId };
  const issued = token ?? issueToken(s, principal).access_token;
  const hash = tokenHash(issued);
  if (token !== undefined) {
    s.store.partners.deleteToken(hash);
    s.store.partners.insertToken(hash, parent, clientId, s.clock.now(parent) + PLANTED_TOKEN_MS);
  }
  session(s).tokens.add(hash);
  return issued;
}

/** A partner a state names that does not exist yet: created with generated credentials and the fixtures' taxonomy. */
async function ensurePartner(s: Sandbox, parent: string, room: RoomWrites): Promise<void> {
  if (!s.store.partners.byParent(parent)) await setUpPartner(s, { parent_account_id: parent }, room);
  touch(s, parent);
}

/** `an account`: the account with that ID, past its propagation, with that status and hash. */
export async function setUpAccount(s: Sandbox, p: z.output<typeof AccountStateParams>, room: RoomWrites) {
  const parent = defaultParent(s, p.parent_account_id);
  await ensurePartner(s, parent, room);
  const existing = s.store.accounts.byId(p.account_id);
  if (existing && existing.parent_account_id !== parent) {
    throw validationError([
      { field: 'params.account_id', message: `is an account of partner ${existing.parent_account_id}` },
    ]);
  }
  const external = p.external_account_id ?? existing?.external_account_id ?? `pact-${p.account_id}`;
  const holder = s.store.accounts.byExternal(parent, external);
  if (holder && holder.account_id !== p.account_id) {
    throw validationError([
      {
        field: 'params.external_account_id',
        message: `is the external_account_id of account ${holder.account_id}`,
      },
    ]);
  }
  // Its rows count in the partner's room, as a registration's do.
  room.rows(parent, () =>
    s.store.tx(() => {
      if (!existing) createAccount(s, parent, p.account_id, external);
      if (p.status) setStatus(s, p.account_id, p.status);
      if (p.content_hash !== undefined) {
        const list = s.store.controls.get(p.account_id)!;
        s.store.controls.put({ ...list, content_hash: p.content_hash });
      }
    }),
  );
  return accountAnswer(s, p.account_id);
}

function createAccount(s: Sandbox, parent: string, accountId: string, external: string): void {
  const pair = s.store.partners.mappings(parent)[0];
  const body = {
    brand: 'Pact provider state',
    vertical_id: pair?.partner_vertical_id ?? 0,
    sub_vertical_id: pair?.partner_sub_vertical_id ?? 0,
    country_code: 'US',
    platform_parent_account_id: parent,
    store_identifier: 'https://pact.example.com',
    external_account_id: external,
  };
  insertAccount(s, newAccount(s, parent, body, 0, accountId));
}

/** active: every variant enabled; paused: none; mixed: the first enabled, the others not (2 variants at least). */
function setStatus(s: Sandbox, accountId: string, status: 'active' | 'paused' | 'mixed'): void {
  const variants = s.store.accounts.variants(accountId).filter((v) => !v.archived);
  if (status === 'mixed' && variants.length < 2) {
    throw validationError([
      {
        field: 'params.status',
        message: `mixed needs 2 variants or more; the account has ${variants.length}`,
      },
    ]);
  }
  s.store.accounts.setVariants(
    variants.map((v, i) => ({
      variant_id: v.variant_id,
      enabled: status === 'active' || (status === 'mixed' && i === 0),
      archived: false,
    })),
  );
}

function accountAnswer(s: Sandbox, accountId: string) {
  const account = s.store.accounts.byId(accountId)!;
  const layouts = s.store.accounts.layouts(accountId);
  const variants = s.store.accounts.variants(accountId);
  return {
    account_id: accountId,
    parent_account_id: account.parent_account_id,
    external_account_id: account.external_account_id,
    status: aggregateStatus(
      variants.map((v) => ({
        variant_id: v.variant_id,
        enabled: v.enabled === 1,
        archived: v.archived === 1,
      })),
    ),
    content_hash: s.store.controls.get(accountId)!.content_hash,
    layout_id: layouts[0]?.layout_id ?? '',
    layout_ids: layouts.map((l) => l.layout_id),
    page_ids: s.store.accounts.pages(accountId).map((p) => p.page_id),
  };
}

/** Marks a partner as touched by a setup (`a scenario` arms for it), so the teardown resets it. */
export async function touchPartner(
  s: Sandbox,
  parent: string | undefined,
  room: RoomWrites,
): Promise<string> {
  const named = defaultParent(s, parent);
  await ensurePartner(s, named, room);
  return named;
}

/**
 * The teardown: each partner touched is reset (its accounts, keys, journal, armed scenarios and
 * clock go), the credentials a setup replaced come back, and the tokens planted are forgotten.
 */
export function tearDown(s: Sandbox): void {
  const current = session(s);
  sessions.delete(s);
  for (const parent of current.touched) if (s.store.partners.byParent(parent)) s.resetPartner(parent);
  for (const [parent, row] of current.saved) {
    const holder = s.store.partners.byClient(row.client_id);
    if (s.store.partners.byParent(parent) && (!holder || holder.parent_account_id === parent))
      s.store.partners.setCredentials(row);
  }
  for (const hash of current.tokens) s.store.partners.deleteToken(hash);
}
