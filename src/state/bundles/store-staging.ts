/**
 * A large import's accounts staged ahead by slices (store/staging.ts), then swapped in by
 * slices too, after importRows's transaction wrote the rest: the partner's old accounts
 * deleted, then the staged rows moved in, while the partner's calls and the control plane wait
 * (state/bundles/swap-gate.ts). A file store marks the swap under way in that transaction and unmarks
 * it with the last slice: a process killed between the two finishes it at the next start-up
 * (finishSwapsLeft, store-swap.ts).
 */
import type { BundleData } from '../../contract/control/bundle.js';
import { MS_PER_TURN, stretch } from '../../core/turns.js';
import { type StagedAccount, type StagedRows, SWAP_MARKER } from '../../store/staging.js';
import { clockPlan } from '../clock-plan.js';
import type { PartnerImport, Staging } from '../registry.js';
import type { Sandbox } from '../sandbox.js';
import { accountRows } from './store-import.js';
import { deleteAccounts, finishSwap } from './store-swap.js';

/** How many accounts a large import stages between two turns of the event loop. */
const ACCOUNTS_PER_SLICE = 250;
/** How many of the partner's old accounts a large import's swap deletes between two turns. */
const OLD_ACCOUNTS_PER_SLICE = 2000;
/** How many staged rows a large import's swap moves in between two turns (about 15 ms). */
const ROWS_PER_SLICE = 16_000;

/**
 * Where the staged accounts stand:
 * - `staging`: written ahead a slice at a time (`next`); the partner is untouched;
 * - `declined`: the import's transaction found them gone or incomplete, and importRows wrote
 *   the bundle's accounts itself;
 * - `swapping`: the swap has begun (its transaction written) and not ended: a file store's
 *   marker stands, and a swap left so is for the next start-up to finish;
 * - `in`: every staged row is in place (by slices, or at once by `finish`).
 */
type Phase = 'staging' | 'declined' | 'swapping' | 'in';

class StoreStaging implements Staging {
  #phase: Phase = 'staging';
  /** How many of the bundle's accounts are staged. */
  #at = 0;
  /** The partner's accounts before the swap (read by its first slice), deleted first. */
  #old: string[] | undefined;
  readonly #rows: StagedRows;
  readonly #parent: string;
  readonly #clock: ReturnType<typeof clockPlan>;

  constructor(
    readonly s: Sandbox,
    readonly b: BundleData,
    realNow: number,
  ) {
    this.#rows = s.store.stage();
    this.#parent = b.partner.parent_account_id;
    this.#clock = clockPlan(s, b.clock.now, realNow);
  }

  /** Every account staged, in the store that is still the one staged into. */
  #complete(): boolean {
    return this.#at >= this.b.accounts.length && this.#rows.isIn(this.s.store.db);
  }

  /** A swap left under way in a file store keeps its rows (and its marker). */
  #kept(): boolean {
    return this.#phase === 'swapping' && !this.s.store.memory;
  }

  next(): boolean {
    // Up to ACCOUNTS_PER_SLICE accounts, fewer when their rows take long to build (long lists).
    // (Half a stretch: the rows built are then written, in the same turn.)
    const { accounts } = this.b;
    const time = stretch(MS_PER_TURN / 2);
    const slice: StagedAccount[] = [];
    while (this.#at < accounts.length && slice.length < ACCOUNTS_PER_SLICE && !time.due())
      slice.push(accountRows(accounts[this.#at++]!, this.#parent, this.#clock));
    this.#rows.add(slice);
    return this.#at < accounts.length;
  }

  taken(): (() => boolean)[] {
    const client = () => {
      const holder = this.s.store.partners.byClient(this.b.partner.client_id)?.parent_account_id;
      return holder !== undefined && holder !== this.#parent;
    };
    return [client, ...(this.#complete() ? this.#rows.taken(this.#parent) : [])];
  }

  begin(): boolean {
    // Under way once the import's transaction commits (this runs inside it).
    this.#phase = this.#complete() ? 'swapping' : 'declined';
    if (this.#kept())
      this.s.store.meta.set(SWAP_MARKER, JSON.stringify({ parent: this.#parent, prefix: this.#rows.prefix }));
    return this.#phase === 'swapping';
  }

  moveNext(): boolean {
    if (this.#phase !== 'swapping') return false;
    // A slice the store refuses throws, and the swap stays under way (finish).
    const more = this.s.store.unchecked(() => this.s.store.tx(() => this.#moveSlice()));
    if (more) return true;
    this.#phase = 'in';
    // Cached rows of the old accounts (an ID the bundle keeps is a new row now).
    this.s.store.clearCaches();
    return false;
  }

  /** One slice of the swap (in its transaction): old accounts deleted, then staged rows moved in; false once done. */
  #moveSlice(): boolean {
    const { s } = this;
    this.#old ??= s.store.accounts.idsOf(this.#parent);
    if (this.#old.length > 0) {
      deleteAccounts(s, this.#old.splice(0, OLD_ACCOUNTS_PER_SLICE));
      return true;
    }
    if (this.#rows.moveSome(ROWS_PER_SLICE)) return true;
    s.store.meta.delete(SWAP_MARKER);
    return false;
  }

  finish(): void {
    if (this.#phase !== 'swapping') return;
    finishSwap(this.s, this.#parent, this.#rows);
    this.#phase = 'in';
  }

  drop(): void {
    if (!this.#kept()) this.#rows.drop();
  }
}

/** The store's staging of a large import (see StoreStaging). */
export function stageAccounts(
  s: Sandbox,
  { bundle, realNow }: Omit<PartnerImport, 'scope' | 'staged'>,
): Staging {
  return new StoreStaging(s, bundle, realNow);
}
