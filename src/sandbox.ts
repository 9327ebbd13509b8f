/**
 * The sandbox's state and services, independent of HTTP: config, store, clock, fixtures,
 * scenario presets and armed scenarios, the journal. createApp() serves it.
 */
import { Clock } from './clock.js';
import { builtInPresetsDir, type Config } from './config.js';
import { Diagnostics } from './diagnostics.js';
import { type Fixtures, loadFixtures } from './fixtures.js';
import { Journal } from './journal.js';
import { ArmedRegistry } from './scenarios/armed.js';
import { loadPresets, type Preset } from './scenarios/presets.js';
import { createStore, type Store } from './store/index.js';

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
  journal: Journal;
  log: Logger;
  /** Coaching warnings' memory (propagation retries, hashes shown, token grants). */
  diagnostics: Diagnostics;
  /**
   * Bumped by every reset (and restore): a request that awaited across one starts over
   * against the new state, so it never mixes the two (SANDBOX.md §10).
   */
  epoch: number;
  reset(): void;
  close(): void;
}

const CLOCK_KEY = 'clock_offset_ms';

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
  const store = createStore(config.db);
  // A reservation left by a process that stopped mid-request (kill -9) never finished.
  store.idempotency.releaseAbandoned();
  const clock = new Clock(Number(store.meta.get(CLOCK_KEY) ?? 0));
  const sandbox: Sandbox = {
    config,
    store,
    clock,
    fixtures,
    presets,
    armed: new ArmedRegistry(),
    journal: new Journal(config.journalMax),
    log,
    diagnostics: new Diagnostics(),
    epoch: 0,
    reset() {
      sandbox.epoch++;
      store.wipe();
      clock.reset();
      sandbox.armed.clear();
      sandbox.journal.clear();
      sandbox.diagnostics.clear();
      seed(sandbox);
    },
    close() {
      store.close();
    },
  };
  // A fresh database gets the fixtures; a durable one keeps what it has.
  if (store.meta.get('seeded') !== '1') seed(sandbox);
  return sandbox;
}

function seed(s: Sandbox): void {
  const at = s.clock.iso();
  s.store.tx(() => {
    for (const p of s.fixtures.partners) {
      s.store.partners.insert({
        parent_account_id: p.parent_account_id,
        client_id: p.client_id,
        client_secret: p.client_secret,
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

export function saveClock(s: Sandbox): void {
  s.store.meta.set(CLOCK_KEY, String(s.clock.offsetMs));
}
