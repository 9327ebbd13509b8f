/**
 * The sandbox assembled, independent of HTTP: config, store, clock, fixtures, scenario
 * presets and armed scenarios, the journal, and the registry of its state (pieces.ts) that a
 * reset, a partner reset, snapshots and bundles loop over. createApp() serves it. It sits
 * above services/ (snapshots and bundles are services), so core/ imports none of them.
 */
import { readFileSync } from 'node:fs';
import { builtInPresetsDir, isDefaultFixtures } from '../base/package-dir.js';
import { StartupError } from '../base/startup-error.js';
import { ApiError } from '../contract/api/errors.js';
import { Clock } from '../core/clock.js';
import type { Config } from '../core/config.js';
import { Diagnostics } from '../core/diagnostics.js';
import { type FixturePartner, loadFixtures } from '../core/fixtures.js';
import { Journal } from '../core/journal.js';
import { parseRateLimit, RateLimiter } from '../core/rate-limit.js';
import { StoreHealth } from '../core/store-health.js';
import { hashSecretSync, type SecretHash } from '../domain/secrets.js';
import { ArmedRegistry } from '../scenarios/armed.js';
import { ChaosRegistry } from '../scenarios/chaos.js';
import { loadPresets } from '../scenarios/presets.js';
import { startupWriteError } from '../store/db.js';
import { secretColumns } from '../store/partners-table.js';
import { createStore } from '../store/sqlite-store.js';
import { importBundle } from './bundles/bundle-import.js';
import { finishSwapsLeft } from './bundles/store-swap.js';
import { SwapGate } from './bundles/swap-gate.js';
import { CLOCK_KEY, changeClocks, PARTNER_CLOCK_PREFIX } from './clock-store.js';
import { snapshots } from './named-snapshots.js';
import { durableChaos, startupChaos, statePieces } from './pieces.js';
import { StateRegistry } from './registry.js';
import type { Logger, Sandbox, Snapshots } from './sandbox.js';

export type { Logger, Sandbox } from './sandbox.js';

export function jsonLogger(enabled: boolean): Logger {
  const write = (level: string, msg: string, fields?: Record<string, unknown>) => {
    if (enabled)
      process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  };
  return { info: (m, f) => write('info', m, f), error: (m, f) => write('error', m, f) };
}

export function createSandbox(config: Config, log: Logger = jsonLogger(config.log === 'info')): Sandbox {
  const fixtures = loadFixtures(config.fixtures);
  const presets = loadPresets(config.scenarios ? [builtInPresetsDir, config.scenarios] : [builtInPresetsDir]);
  const store = createStore(config.db, { hashSecret: hashSecretSync });
  const clock = new Clock();
  let wipedAt = 0;
  let flushChaos = () => {};
  const partnerWipedAt = new Map<string, number>();
  const sandbox: Sandbox = {
    config,
    store,
    clock,
    fixtures,
    presets,
    armed: new ArmedRegistry(),
    chaos: new ChaosRegistry(presets),
    journal: new Journal(config.journalMax, config.journalBodyBytes, config.journalBudgetMb * 1024 * 1024),
    log,
    diagnostics: new Diagnostics(),
    storeHealth: new StoreHealth(config.db, log),
    snapshots: undefined as unknown as Snapshots,
    rateLimit: config.rateLimit ? new RateLimiter(parseRateLimit(config.rateLimit)) : undefined,
    gate: new SwapGate(),
    state: undefined as unknown as StateRegistry,
    epoch: 0,
    wipedSince(epoch, parent) {
      if (sandbox.epoch === epoch) return false;
      return wipedAt > epoch || (parent !== undefined && (partnerWipedAt.get(parent) ?? 0) > epoch);
    },
    markWiped(parent) {
      sandbox.epoch++;
      if (parent === undefined) {
        wipedAt = sandbox.epoch;
        partnerWipedAt.clear();
      } else partnerWipedAt.set(parent, sandbox.epoch);
    },
    reset() {
      sandbox.markWiped();
      sandbox.state.clear();
      seed(sandbox);
    },
    resetPartner(parent) {
      sandbox.markWiped(parent);
      sandbox.state.forget(parent);
    },
    loadClock() {
      clock.reset(Number(store.meta.get(CLOCK_KEY) ?? 0));
      for (const row of store.meta.prefixed(PARTNER_CLOCK_PREFIX)) {
        clock.setPartner(row.key.slice(PARTNER_CLOCK_PREFIX.length), Number(row.value));
      }
    },
    close() {
      flushChaos();
      store.close();
    },
  };
  sandbox.state = stateRegistry(sandbox);
  sandbox.snapshots = snapshots(sandbox);
  sandbox.loadClock();
  flushChaos = startUp(sandbox);
  return sandbox;
}

/** The registry of the sandbox's pieces, with how a partner's scope is read and how durable work runs. */
function stateRegistry(sandbox: Sandbox): StateRegistry {
  const { store } = sandbox;
  return new StateRegistry(statePieces(sandbox), {
    scopeOf: (parent) => ({
      parent,
      accounts: new Set(store.accounts.idsOf(parent)),
      client: store.partners.byParent(parent)?.client_id,
    }),
    // The durable pieces' work and the clocks saved, in one transaction; the caches then
    // forget what the rows were, whether it went through or not.
    durably: (work, checked) => {
      try {
        const write = () => changeClocks(sandbox, () => {}, work);
        if (checked) store.unchecked(write);
        else write();
      } finally {
        store.clearCaches();
      }
    },
  });
}

/**
 * Start-up's writes to the store just opened: what a stopped process left, the fixtures, the
 * chaos profiles and the seed bundle. Returns what saves the chaos profiles' positions (a
 * durable store's), which close() calls last.
 */
function startUp(sandbox: Sandbox): () => void {
  const { store, config } = sandbox;
  let flushChaos = () => {};
  try {
    // A reservation left by a process that stopped mid-request (kill -9) never finished.
    store.idempotency.releaseAbandoned();
    // A large import's swap that a killed process left under way is finished (store-swap.ts).
    finishSwapsLeft(sandbox);
    // A fresh database gets the fixtures; a durable one keeps what it has.
    if (store.meta.get('seeded') !== '1') seed(sandbox);
    // A durable store reads back the chaos profiles and positions it saved, and keeps saving them.
    const durable = !store.memory;
    if (durable) flushChaos = durableChaos(sandbox);
    startupChaos(sandbox, durable);
    if (config.seed) seedBundle(sandbox, config.seed);
  } catch (err) {
    // A store that opened but refuses these writes (a full disk) is named, not a stack trace.
    store.close();
    throw startupWriteError(config.db, err);
  }
  return flushChaos;
}

/**
 * A fixture partner's secret, hashed once per process: every sandbox of this process and every
 * reset stores the same salt and hash for the same fixture partner. The package's own fixtures
 * are published (the README prints their secret): a fast salted hash, since a slow one would
 * protect nothing and cost every start about 50 ms per partner. A fixtures folder of one's own
 * holds secrets a person chose: the slow hash, as for POST /__sandbox/partners.
 */
const fixtureSecrets = new Map<string, SecretHash>();
function fixtureSecret(p: FixturePartner, published: boolean): SecretHash {
  const key = JSON.stringify([p.parent_account_id, p.client_id, p.client_secret, published]);
  const stored = fixtureSecrets.get(key) ?? hashSecretSync(p.client_secret, { published });
  fixtureSecrets.set(key, stored);
  return stored;
}

function seed(s: Sandbox): void {
  const at = s.clock.iso();
  const published = isDefaultFixtures(s.fixtures.dir);
  const secrets = s.fixtures.partners.map((p) => fixtureSecret(p, published));
  s.store.tx(() => {
    for (const [i, p] of s.fixtures.partners.entries()) {
      s.store.partners.insert({
        parent_account_id: p.parent_account_id,
        client_id: p.client_id,
        ...secretColumns(secrets[i]!),
        name: p.name,
        created_at: at,
      });
      s.store.partners.replaceMappings(
        p.parent_account_id,
        p.mapping.map((m) => ({ ...m, created_at: at })),
      );
    }
    s.store.meta.set('seeded', '1');
  });
}

/** `--seed FILE` / SANDBOX_SEED: a bundle loaded at start-up, or start-up stops naming the problem. */
function seedBundle(s: Sandbox, file: string): void {
  const where = `SANDBOX_SEED/--seed ${file}`;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new StartupError(`${where}: cannot read a JSON bundle: ${(e as Error).message}`);
  }
  try {
    importBundle(s, json);
  } catch (e) {
    if (e instanceof ApiError) throw new StartupError(`${where}: ${e.message}`);
    throw e;
  }
}
