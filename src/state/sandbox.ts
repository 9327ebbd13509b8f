/**
 * The sandbox's state as the layers share it: the one object handlers, services and the
 * control plane work on, created by createSandbox() (state/create-sandbox.ts).
 * Types only, so a service takes the sandbox without importing what creates it.
 */
import type { z } from 'zod';
import type { SnapshotInfo } from '../contract/control/control-schemas.js';
import type { Clock } from '../core/clock.js';
import type { Config } from '../core/config.js';
import type { Diagnostics } from '../core/diagnostics.js';
import type { Fixtures } from '../core/fixtures.js';
import type { Journal } from '../core/journal.js';
import type { RateLimiter } from '../core/rate-limit.js';
import type { StoreHealth } from '../core/store-health.js';
import type { ArmedRegistry } from '../scenarios/armed.js';
import type { ChaosRegistry } from '../scenarios/chaos.js';
import type { Preset } from '../scenarios/presets.js';
import type { Store } from '../store/sqlite-store.js';
import type { SwapGate } from './bundles/swap-gate.js';
import type { StateRegistry } from './registry.js';

type SnapshotView = z.infer<typeof SnapshotInfo>;

/** Saved states of the whole sandbox, by name (docs/parallel-tests.md; state/named-snapshots.ts). */
export interface Snapshots {
  /** Saves the whole state under `name` (replacing a snapshot of that name). */
  save(name: string): { snapshot: SnapshotView; replaced: boolean };
  list(): SnapshotView[];
  /** Puts the whole sandbox back to the snapshot. */
  restore(name: string): SnapshotView;
  delete(name: string): SnapshotView;
}

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface Sandbox {
  config: Config;
  store: Store;
  clock: Clock;
  fixtures: Fixtures;
  presets: Map<string, Preset>;
  armed: ArmedRegistry;
  /** Chaos profiles and each partner's place in their sequence (docs/chaos.md). */
  chaos: ChaosRegistry;
  journal: Journal;
  log: Logger;
  /** Coaching warnings' memory (propagation retries, hashes shown, token grants). */
  diagnostics: Diagnostics;
  /** Whether the store takes writes (a full disk answers 503 store_not_writable; health shows it). */
  storeHealth: StoreHealth;
  /** Saved states of the whole sandbox, by name (docs/parallel-tests.md). */
  snapshots: Snapshots;
  /** Each partner's fair share (SANDBOX_RATE_LIMIT, core/rate-limit.ts); undefined: no limit. */
  rateLimit: RateLimiter | undefined;
  /** What waits while a large import swaps its partner in by slices (state/bundles/swap-gate.ts). */
  gate: SwapGate;
  /**
   * Every piece of its state (state/registry.ts), which a reset, a partner reset,
   * snapshots and bundles loop over.
   */
  state: StateRegistry;
  /**
   * Bumped by every reset, partner reset, restore and bundle import. A request that awaited
   * across one asks `wipedSince` whether its own state went; if so it starts over against
   * the new state, so it never mixes the two (docs/parallel-tests.md).
   */
  epoch: number;
  /** Whether, since `epoch`, the whole state or this partner's state was replaced. */
  wipedSince(epoch: number, parent?: string): boolean;
  /** Marks that the whole state (no parent) or one partner's state is being replaced now. */
  markWiped(parent?: string): void;
  reset(): void;
  /** Wipes one partner (docs/parallel-tests.md): its credentials, mapping and tokens stay. */
  resetPartner(parent: string): void;
  /** Reads the clocks again from the store (after a restore). */
  loadClock(): void;
  close(): void;
}
