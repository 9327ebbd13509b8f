/** Scenarios armed on the control plane for a parent, one account or every partner, for N requests or until cleared. */
import { builtIn, type Endpoint } from './catalogue.js';
import type { Effect } from './presets.js';

export interface Armed {
  id: number;
  scenario: string;
  effects: Effect[];
  parent_account_id?: string;
  account_id?: string;
  /** Requests left; undefined means until disarmed. */
  remaining?: number;
  armed_at: string;
}

/** Whether an entry is a partner's: armed for its parent or for one of its accounts. */
export const armedFor =
  (parent: string, accounts: ReadonlySet<string>) =>
  (a: Armed): boolean =>
    a.parent_account_id === parent || (a.account_id !== undefined && accounts.has(a.account_id));

/** Entries by where they are armed: one account, one parent, or (neither) every partner. */
class Places {
  readonly byAccount = new Map<string, Armed[]>();
  readonly byParent = new Map<string, Armed[]>();
  readonly everyone: Armed[] = [];

  /** The map and key an entry is filed under; undefined: the list for every partner. */
  #slot(a: Armed): [Map<string, Armed[]>, string] | undefined {
    if (a.account_id !== undefined) return [this.byAccount, a.account_id];
    if (a.parent_account_id !== undefined) return [this.byParent, a.parent_account_id];
    return undefined;
  }

  add(a: Armed): void {
    const slot = this.#slot(a);
    if (!slot) return void this.everyone.push(a);
    const [map, key] = slot;
    const list = map.get(key);
    if (list) list.push(a);
    else map.set(key, [a]);
  }

  /** Drops an entry; a place left empty goes too. */
  remove(a: Armed): void {
    const slot = this.#slot(a);
    const list = slot ? slot[0].get(slot[1]) : this.everyone;
    const i = list ? list.indexOf(a) : -1;
    if (!list || i === -1) return;
    list.splice(i, 1);
    if (slot && !list.length) slot[0].delete(slot[1]);
  }
}

const NONE: readonly Armed[] = Object.freeze([]);

/**
 * The armed entries, in the order they were armed, indexed by where they are armed: a call
 * reads the entries of its account, its parent and every partner only, so a thousand entries
 * armed for each of many partners do not slow another partner's calls. With none armed (a
 * sandbox's usual state), a call's lookups end at one comparison.
 */
export class ArmedRegistry {
  #entries: Armed[] = [];
  #places = new Places();
  #nextId = 1;

  #index(): void {
    this.#places = new Places();
    for (const a of this.#entries) this.#places.add(a);
  }

  arm(entry: Omit<Armed, 'id'>): Armed {
    const armed = { ...entry, id: this.#nextId++ };
    this.#entries.push(armed);
    this.#places.add(armed);
    return armed;
  }

  list(): readonly Armed[] {
    return this.#entries;
  }

  /** Whether anything is armed at all. */
  get empty(): boolean {
    return this.#entries.length === 0;
  }

  clear(): void {
    this.#entries = [];
    this.#places = new Places();
  }

  /** Disarms the entries that match (one partner's, on a partner reset). */
  removeWhere(match: (a: Armed) => boolean): void {
    this.#entries = this.#entries.filter((a) => !match(a));
    this.#index();
  }

  /** A copy of the armed entries (a snapshot keeps one: their counts change as requests use them). */
  image(): Armed[] {
    return this.#entries.map((a) => structuredClone(a));
  }

  /** Puts back entries from an image (copied again, so the image can be restored twice). */
  restore(image: readonly Armed[]): void {
    this.#entries = image.map((a) => structuredClone(a));
    for (const a of this.#entries) if (a.id >= this.#nextId) this.#nextId = a.id + 1;
    this.#index();
  }

  /** The entries armed for an account, a parent or (neither) every partner, in the order armed. */
  #at(account: string | undefined, parent: string | undefined): readonly Armed[] {
    if (account !== undefined) return this.#places.byAccount.get(account) ?? NONE;
    if (parent !== undefined) return this.#places.byParent.get(parent) ?? NONE;
    return this.#places.everyone;
  }

  /** The first armed entry with this effect: for the account first, then for the parent, then for every partner. */
  find(name: string, accountId: string | undefined, parentId: string | undefined) {
    const pick = (entries: readonly Armed[]) => {
      for (const armed of entries) {
        const effect = armed.effects.find((e) => e.name === name);
        if (effect) return { armed, effect };
      }
      return undefined;
    };
    if (this.#entries.length === 0) return undefined;
    return (
      (accountId ? pick(this.#at(accountId, undefined)) : undefined) ??
      (parentId ? pick(this.#at(undefined, parentId)) : undefined) ??
      pick(this.#at(undefined, undefined))
    );
  }

  /** Whether an entry armed for this account, its parent or every partner has an effect that applies to this endpoint. */
  meets(endpoint: Endpoint, accountId: string | undefined, parentId: string | undefined): boolean {
    const applies = (a: Armed) => a.effects.some((e) => builtIn(e.name)?.appliesTo.includes(endpoint));
    if (this.#entries.length === 0) return false;
    return (
      (accountId !== undefined && this.#at(accountId, undefined).some(applies)) ||
      (parentId !== undefined && this.#at(undefined, parentId).some(applies)) ||
      this.#at(undefined, undefined).some(applies)
    );
  }

  /** Counts one request against the entry; drops it when its count is used up. */
  consume(armed: Armed): void {
    if (armed.remaining === undefined) return;
    armed.remaining -= 1;
    if (armed.remaining > 0) return;
    this.#entries = this.#entries.filter((a) => a !== armed);
    this.#places.remove(armed);
  }
}
