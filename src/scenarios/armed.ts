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

export class ArmedRegistry {
  #entries: Armed[] = [];
  #nextId = 1;

  arm(entry: Omit<Armed, 'id'>): Armed {
    const armed = { ...entry, id: this.#nextId++ };
    this.#entries.push(armed);
    return armed;
  }

  list(): readonly Armed[] {
    return this.#entries;
  }

  clear(): void {
    this.#entries = [];
  }

  /** Disarms the entries that match (one partner's, on a partner reset). */
  removeWhere(match: (a: Armed) => boolean): void {
    this.#entries = this.#entries.filter((a) => !match(a));
  }

  /** A copy of the armed entries (a snapshot keeps one: their counts change as requests use them). */
  image(): Armed[] {
    return this.#entries.map((a) => structuredClone(a));
  }

  /** Puts back entries from an image (copied again, so the image can be restored twice). */
  restore(image: readonly Armed[]): void {
    this.#entries = image.map((a) => structuredClone(a));
    for (const a of this.#entries) if (a.id >= this.#nextId) this.#nextId = a.id + 1;
  }

  /** The first armed entry with this effect: for the account first, then for the parent, then for every partner. */
  find(name: string, accountId: string | undefined, parentId: string | undefined) {
    const pick = (match: (a: Armed) => boolean) => {
      for (const armed of this.#entries) {
        if (!match(armed)) continue;
        const effect = armed.effects.find((e) => e.name === name);
        if (effect) return { armed, effect };
      }
      return undefined;
    };
    return (
      (accountId ? pick((a) => a.account_id === accountId) : undefined) ??
      (parentId ? pick((a) => a.parent_account_id === parentId && a.account_id === undefined) : undefined) ??
      pick((a) => a.parent_account_id === undefined && a.account_id === undefined)
    );
  }

  /** Whether an entry armed for this account, its parent or every partner has an effect that applies to this endpoint. */
  meets(endpoint: Endpoint, accountId: string | undefined, parentId: string | undefined): boolean {
    return this.#entries.some(
      (a) =>
        (a.account_id === undefined
          ? a.parent_account_id === undefined || a.parent_account_id === parentId
          : a.account_id === accountId) &&
        a.effects.some((e) => builtIn(e.name)?.appliesTo.includes(endpoint)),
    );
  }

  /** Counts one request against the entry; drops it when its count is used up. */
  consume(armed: Armed): void {
    if (armed.remaining === undefined) return;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.#entries = this.#entries.filter((a) => a !== armed);
  }
}
