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

/** Where an entry is armed: one account, one parent, or (neither) every partner. */
const keyOf = (a: Armed) =>
  a.account_id !== undefined
    ? `a:${a.account_id}`
    : a.parent_account_id !== undefined
      ? `p:${a.parent_account_id}`
      : '*';

/**
 * The armed entries, in the order they were armed, indexed by where they are armed: a call
 * reads the entries of its account, its parent and every partner only, so a thousand entries
 * armed for each of many partners do not slow another partner's calls.
 */
export class ArmedRegistry {
  #entries: Armed[] = [];
  #byKey = new Map<string, Armed[]>();
  #nextId = 1;

  #index(): void {
    this.#byKey = new Map();
    for (const a of this.#entries) this.#add(a);
  }

  #add(a: Armed): void {
    const key = keyOf(a);
    const list = this.#byKey.get(key);
    if (list) list.push(a);
    else this.#byKey.set(key, [a]);
  }

  arm(entry: Omit<Armed, 'id'>): Armed {
    const armed = { ...entry, id: this.#nextId++ };
    this.#entries.push(armed);
    this.#add(armed);
    return armed;
  }

  list(): readonly Armed[] {
    return this.#entries;
  }

  clear(): void {
    this.#entries = [];
    this.#byKey = new Map();
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

  /** The entries armed for an account, a parent or (no argument) every partner, in the order armed. */
  #at(where: { account?: string; parent?: string }): readonly Armed[] {
    const key =
      where.account !== undefined
        ? `a:${where.account}`
        : where.parent !== undefined
          ? `p:${where.parent}`
          : '*';
    return this.#byKey.get(key) ?? [];
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
    return (
      (accountId ? pick(this.#at({ account: accountId })) : undefined) ??
      (parentId ? pick(this.#at({ parent: parentId })) : undefined) ??
      pick(this.#at({}))
    );
  }

  /** Whether an entry armed for this account, its parent or every partner has an effect that applies to this endpoint. */
  meets(endpoint: Endpoint, accountId: string | undefined, parentId: string | undefined): boolean {
    const applies = (a: Armed) => a.effects.some((e) => builtIn(e.name)?.appliesTo.includes(endpoint));
    return (
      (accountId !== undefined && this.#at({ account: accountId }).some(applies)) ||
      (parentId !== undefined && this.#at({ parent: parentId }).some(applies)) ||
      this.#at({}).some(applies)
    );
  }

  /** Counts one request against the entry; drops it when its count is used up. */
  consume(armed: Armed): void {
    if (armed.remaining === undefined) return;
    armed.remaining -= 1;
    if (armed.remaining > 0) return;
    this.#entries = this.#entries.filter((a) => a !== armed);
    const key = keyOf(armed);
    const rest = (this.#byKey.get(key) ?? []).filter((a) => a !== armed);
    if (rest.length) this.#byKey.set(key, rest);
    else this.#byKey.delete(key);
  }
}
