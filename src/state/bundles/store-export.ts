/** The store's part of a partner's bundle: its rows as the bundle carries them, by slices. */
import type { BundleData } from '../../contract/control/bundle.js';
import { stretch } from '../../core/turns.js';
import { JsonList } from '../../domain/json-list.js';
import type { AccountRow } from '../../store/accounts-table.js';
import type { DoneBytesRow, IdempotencyRow } from '../../store/idempotency-table.js';
import { secretOf } from '../../store/partners-table.js';
import type { BundlePart, SlicedPart } from '../registry.js';
import type { Sandbox } from '../sandbox.js';
import { lastStatusWrite } from '../status-record.js';

type BundleAccount = BundleData['accounts'][number];
type BundlePage = BundleAccount['pages'][number];
type BundleLayout = BundleAccount['layouts'][number];

const strip = <T extends object, K extends keyof T>(row: T, ...keys: K[]): Omit<T, K> => {
  const out = { ...row };
  for (const k of keys) delete out[k];
  return out;
};

/** A list of the bundle as objects (an export at once), or written out as JSON an item at a time. */
type List = unknown[] | JsonList;
const listOf = (json: boolean): List => (json ? new JsonList() : []);
const addTo = (list: List, account: BundleAccount) =>
  list instanceof JsonList ? writeAccount(list, account) : list.push(account);

/**
 * The partner's rows as its bundle carries them (the partner exists: the export checked),
 * pausing (a `yield`) every stretch of MS_PER_TURN (core/turns.ts).
 */
export const exportRows = (s: Sandbox, parent: string) =>
  rowsOf(s, parent, false) as Generator<void, BundlePart>;

/**
 * exportRows with its accounts and stored answers written out as JSON an item at a time
 * (JsonList), each read, written and dropped: neither list is ever held as objects.
 */
export const writeRows = (s: Sandbox, parent: string) => rowsOf(s, parent, true);

function* rowsOf(s: Sandbox, parent: string, json: boolean): Generator<void, SlicedPart> {
  const partner = s.store.partners.byParent(parent)!;
  const rows = s.store.accounts.allOf(parent);
  const accounts = listOf(json);
  const time = stretch();
  for (const a of rows) {
    if (time.due()) {
      yield;
      time.restart();
    }
    addTo(accounts, exportAccount(s, a));
  }
  return {
    partner: {
      parent_account_id: partner.parent_account_id,
      client_id: partner.client_id,
      client_secret_hash: secretOf(partner),
      name: partner.name,
      created_at: partner.created_at,
    },
    vertical_mappings: s.store.partners.mappings(parent).map((m) => ({ ...m })),
    accounts: accounts as BundleAccount[] | JsonList,
    idempotency_keys: (yield* storedAnswers(s, parent, listOf(json))) as
      | BundleData['idempotency_keys']
      | JsonList,
  };
}

/** Stored answers read a page at a time: a page holds at most a few MiB of a partner's 26. */
const ANSWERS_PAGE = 8;

/** The partner's stored answers as its bundle carries them, read by pages (written out: their bodies as bytes), pausing every stretch. */
function* storedAnswers(s: Sandbox, parent: string, out: List): Generator<void, List> {
  const time = stretch();
  const { idempotency } = s.store;
  for (let after = ''; ; ) {
    const page: readonly (IdempotencyRow | DoneBytesRow)[] =
      out instanceof JsonList
        ? idempotency.doneBytesOf(parent, after, ANSWERS_PAGE)
        : idempotency.doneOf(parent, after, ANSWERS_PAGE);
    for (const k of page) {
      if (time.due()) {
        yield;
        time.restart();
      }
      const answer = {
        key: k.key,
        operation: k.operation,
        fingerprint: k.fingerprint,
        dry_run: k.dry_run === 1,
        status: k.status ?? 200,
      };
      if (out instanceof JsonList) {
        // JSON.stringify's text of the whole answer, its body (up to a MiB) escaped from its bytes.
        out.part(`${JSON.stringify(answer).slice(0, -1)},"body":"`);
        if (k.body) out.partEscaped(k.body as Buffer);
        out.add(`","expires_at":${JSON.stringify(k.expires_at)}}`);
      } else out.push({ ...answer, body: (k.body as string | null) ?? '', expires_at: k.expires_at });
    }
    if (page.length < ANSWERS_PAGE) return out;
    after = page[page.length - 1]!.key;
  }
}

/** A controls list's domains written at most this many to a part (about 60 KiB of text). */
const DOMAINS_PER_PART = 256;

/**
 * An account's JSON as JSON.stringify writes it, in parts: the domains of its controls (up to
 * 10,000 of up to 253 characters) a slice at a time, so that no long string is made.
 */
function writeAccount(out: JsonList, account: BundleAccount): void {
  const fields = (o: object, write: (key: string, value: unknown) => void) => {
    let first = true;
    for (const [key, value] of Object.entries(o)) {
      if (value === undefined) continue;
      out.part(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      write(key, value);
    }
  };
  const domains = (list: readonly unknown[]) => {
    out.part('[');
    for (let i = 0; i < list.length; i += DOMAINS_PER_PART)
      out.part(`${i ? ',' : ''}${JSON.stringify(list.slice(i, i + DOMAINS_PER_PART)).slice(1, -1)}`);
    out.part(']');
  };
  out.part('{');
  fields(account, (key, value) => {
    if (key !== 'controls') return out.part(JSON.stringify(value));
    out.part('{');
    fields(value as object, (k, v) =>
      k === 'domains' ? domains(v as unknown[]) : out.part(JSON.stringify(v)),
    );
    out.part('}');
  });
  out.add('}');
}

/** One account as its partner's bundle carries it. */
function exportAccount(s: Sandbox, a: AccountRow): BundleAccount {
  const controls = s.store.controls.get(a.account_id)!;
  return {
    ...strip(a, 'parent_account_id'),
    // The store keeps what the API validated: its surfaces and layout types are the enums'.
    pages: s.store.accounts.pages(a.account_id).map((p) => strip(p, 'account_id') as BundlePage),
    layouts: s.store.accounts.layouts(a.account_id).map((l) => strip(l, 'account_id') as BundleLayout),
    variants: s.store.accounts.variants(a.account_id).map((v) => ({
      ...strip(v, 'account_id'),
      enabled: v.enabled === 1,
      archived: v.archived === 1,
    })),
    controls: strip(controls, 'account_id'),
    last_status_write: lastStatusWrite(s, a.account_id),
  };
}
