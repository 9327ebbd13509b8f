/**
 * The sandbox's state as one registry: each piece of state (the store, the clocks,
 * armed scenarios, chaos profiles, the journal, diagnostics) implements `StatePiece`, and the
 * six operations that must touch all of it loop over the registry: a reset (clear), a partner
 * reset (forget), a snapshot's save and restore (image, restore), a bundle's export and
 * import (exportPartner, check, importPartner). New state is one more piece where the sandbox
 * is assembled (state/pieces.ts); test/state/state-registry.test.ts fails when the sandbox
 * holds state that no piece registers, or when an operation skips a piece.
 */

import type { FieldIssue } from '../contract/api/errors.js';
import type { BundleData } from '../contract/control/bundle.js';
import { inTurns } from '../core/turns.js';

/** One partner's state, as an operation that forgets, exports or replaces it sees it. */
export interface PartnerScope {
  parent: string;
  /** Its accounts (for an import: those it has here and those the bundle brings). */
  accounts: ReadonlySet<string>;
  /** Its client_id here before the operation (undefined: a partner new to this sandbox). */
  client: string | undefined;
}

/** What a piece writes into a partner's bundle: the bundle's fields it owns. */
export type BundlePart = Partial<Omit<BundleData, 'kind' | 'version' | 'exported_at'>>;

/** A bundle's import as each piece receives it (checked already, by every piece). */
export interface PartnerImport {
  scope: PartnerScope;
  bundle: BundleData;
  /** Real time (epoch ms) at the import, read once so the pieces agree on it. */
  realNow: number;
  /** What pieces staged ahead for this import (`stage`), by piece name. */
  staged?: ReadonlyMap<string, Staging>;
}

/**
 * A large import's part that a piece writes ahead, a slice at a time between other requests,
 * where no reader sees it; its `importPartner` then moves it in at once (docs/performance.md).
 */
export interface Staging {
  /** Writes the next slice; false once all is written. */
  next(): boolean;
  /**
   * Whether another partner took something of it since it was checked (the import then checks
   * again): its checks, each a step to run between turns of the event loop.
   */
  taken(): (() => boolean)[];
  /**
   * In the import's transaction: whether what was staged goes in by slices after it
   * (`moveNext`), the piece's `importPartner` leaving that part alone; false when it cannot
   * (what was staged is gone): the piece then writes its part itself.
   */
  begin(): boolean;
  /**
   * After the import's transaction: moves the next slice into place, replacing the partner's
   * part (while the partner's calls and the control plane wait: state/bundles/swap-gate.ts); false once
   * all of it is in.
   */
  moveNext(): boolean;
  /**
   * After a slice was refused (a full disk): moves all that is left in at once, in one
   * transaction, so the partner is the new one whole; throws when that is refused too. What is
   * then left under way stays for the next start-up to finish (the piece's `drop` keeps it).
   */
  finish(): void;
  /** Frees what was staged (the import is done or failed), but a swap left under way. */
  drop(): void;
}

/** One piece of the sandbox's state: what each of the six operations does to it. */
export interface StatePiece<Image = unknown> {
  /** Its name (the key of its image in a snapshot). */
  readonly name: string;
  /** The sandbox member holding this state (the registry test finds unregistered state by it). */
  readonly holds: object;
  /**
   * Whether it is kept in the store: its part of a partner reset or an import runs in the one
   * store transaction, so a store that refuses it (a full disk) leaves the partner as it was.
   */
  readonly durable: boolean;
  /** A reset: back to empty (the fixtures are seeded after every piece is clear). */
  clear(): void;
  /** A partner reset: this partner's state goes. */
  forget(scope: PartnerScope): void;
  /** The state now, for a snapshot named `name`. */
  image(name: string): Image;
  /** Puts the state back to an image (which may be restored again later). */
  restore(image: Image): void;
  /** Frees what an image holds outside memory (its snapshot deleted). */
  drop(image: Image): void;
  /** This partner's part of its bundle. */
  exportPartner(scope: PartnerScope): BundlePart;
  /** A bundle's problems for this piece, by field, found before anything is written. */
  check(bundle: BundleData): FieldIssue[];
  /** Replaces the partner's state of this piece by the bundle's. */
  importPartner(load: PartnerImport): void;
  /** The same as `check`, for a large import: it pauses (yields) between slices, other requests served meanwhile. */
  checkBySlices?(bundle: BundleData): Generator<void, FieldIssue[]>;
  /** The same as `exportPartner`, for a large partner: it pauses (yields) between slices. */
  exportBySlices?(scope: PartnerScope): Generator<void, BundlePart>;
  /** A piece whose part of a large import is slow to write stages it ahead (its `importPartner` then moves it in). */
  stage?(load: Omit<PartnerImport, 'scope' | 'staged'>): Staging;
}

/** A snapshot's images, by piece name. */
export type StateImage = ReadonlyMap<string, unknown>;

export interface StateRegistryOptions {
  /** The partner's scope as the store has it now. */
  scopeOf(parent: string): PartnerScope;
  /**
   * Runs the durable pieces' work in one store transaction (the clocks put back if it fails);
   * `checked`: its rows were checked in full already (an import), so the store need not check
   * them again (store.unchecked).
   */
  durably(work: () => void, checked?: boolean): void;
}

export class StateRegistry {
  readonly pieces: readonly StatePiece[];
  readonly #options: StateRegistryOptions;

  constructor(pieces: readonly StatePiece[], options: StateRegistryOptions) {
    const names = pieces.map((p) => p.name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) throw new Error(`state piece "${twice}" is registered twice`);
    this.pieces = pieces;
    this.#options = options;
  }

  scopeOf(parent: string): PartnerScope {
    return this.#options.scopeOf(parent);
  }

  /** The durable pieces in one transaction, then the others. */
  #each(act: (piece: StatePiece) => void, checked = false): void {
    this.#options.durably(() => {
      for (const p of this.pieces) if (p.durable) act(p);
    }, checked);
    for (const p of this.pieces) if (!p.durable) act(p);
  }

  clear(): void {
    for (const p of this.pieces) p.clear();
  }

  forget(parent: string): void {
    const scope = this.scopeOf(parent);
    this.#each((p) => p.forget(scope));
  }

  image(name: string): StateImage {
    return new Map(this.pieces.map((p) => [p.name, p.image(name)]));
  }

  /** In the registry's order: the store first, so the clocks read theirs from it. */
  restore(image: StateImage): void {
    for (const p of this.pieces) p.restore(image.get(p.name));
  }

  drop(image: StateImage): void {
    for (const p of this.pieces) p.drop(image.get(p.name));
  }

  exportPartner(parent: string): BundlePart {
    const scope = this.scopeOf(parent);
    return Object.assign({}, ...this.pieces.map((p) => p.exportPartner(scope))) as BundlePart;
  }

  /**
   * `exportPartner` for a large partner (its calls and the control plane waiting meanwhile:
   * state/bundles/swap-gate.ts): the pieces that export by slices pause between them, awaiting `pause`.
   */
  async exportInTurns(parent: string, pause: () => Promise<void>): Promise<BundlePart> {
    const scope = this.scopeOf(parent);
    const parts: BundlePart[] = [];
    for (const p of this.pieces)
      parts.push(p.exportBySlices ? await inTurns(p.exportBySlices(scope), pause) : p.exportPartner(scope));
    return Object.assign({}, ...parts) as BundlePart;
  }

  /** Every piece's problems with the bundle, in the registry's order. */
  check(bundle: BundleData): FieldIssue[] {
    return this.pieces.flatMap((p) => p.check(bundle));
  }

  /**
   * `check` for a large import: the pieces that check by slices pause between them, awaiting
   * `pause` (a turn of the event loop); the problems are the same.
   */
  async checkInTurns(bundle: BundleData, pause: () => Promise<void>): Promise<FieldIssue[]> {
    const out: FieldIssue[] = [];
    for (const p of this.pieces)
      out.push(...(p.checkBySlices ? await inTurns(p.checkBySlices(bundle), pause) : p.check(bundle)));
    return out;
  }

  /**
   * Starts a large import (checked first with `check`): each piece that stages writes its part
   * ahead by slices (`next`, called between turns of the event loop); pass the result to
   * `importPartner` with the same `realNow`, and drop it after.
   */
  stage(bundle: BundleData, realNow: number): ReadonlyMap<string, Staging> {
    const staged = new Map<string, Staging>();
    for (const p of this.pieces) if (p.stage) staged.set(p.name, p.stage({ bundle, realNow }));
    return staged;
  }

  /**
   * A large import's swap, once staged (`stage`) and with the partner's calls and the control
   * plane waiting (state/bundles/swap-gate.ts): `importPartner` writes all but what was staged in one
   * transaction, then each piece moves its staged part in by slices, awaiting `pause` between
   * them. The scope it replaced is the partner's before anything moved.
   */
  async swapIn(
    bundle: BundleData,
    realNow: number,
    staged: ReadonlyMap<string, Staging>,
    pause: () => Promise<void>,
  ): Promise<PartnerScope> {
    const scope = this.importPartner(bundle, realNow, staged);
    for (const piece of staged.values()) {
      try {
        do await pause();
        while (piece.moveNext());
      } catch (err) {
        // The partner is half moved: the rest goes in at once, or the refusal stands.
        try {
          piece.finish();
        } catch {
          throw err;
        }
      }
    }
    return scope;
  }

  /** Replaces the bundle's partner (checked first with `check`); the scope it replaced. */
  importPartner(bundle: BundleData, realNow: number, staged?: ReadonlyMap<string, Staging>): PartnerScope {
    const here = this.scopeOf(bundle.partner.parent_account_id);
    const scope = {
      ...here,
      accounts: new Set([...here.accounts, ...bundle.accounts.map((a) => a.account_id)]),
    };
    this.#each((p) => p.importPartner({ scope, bundle, realNow, ...(staged ? { staged } : {}) }), true);
    return scope;
  }
}
