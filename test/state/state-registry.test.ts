/**
 * The sandbox's state is one registry (state/registry.ts, state/pieces.ts): every
 * member of the sandbox that holds state is a registered piece, and each of the six
 * operations that must touch all state (reset, partner reset, snapshot save and restore,
 * bundle export and import) reaches every piece through HTTP. A piece left out of the
 * registry, or an operation that skips one, fails here; the interface makes a piece
 * implement every operation (tsc).
 */
import { describe, expect, it } from 'vitest';
import type { StatePiece } from '../../src/state/index.js';
import { createHarness, DEMO, expectErrorEnvelope } from '../helpers/harness.js';

/**
 * The sandbox's members that are not state a reset or a bundle must carry, each with why.
 * Anything else the sandbox holds must be a registered piece.
 */
const NOT_STATE: Record<string, string> = {
  config: 'the settings it was started with',
  fixtures: 'the fixture files, read at start-up (a reset seeds them again)',
  presets: 'the scenario presets, read at start-up',
  log: 'the logger',
  storeHealth: "whether the store takes writes: the disk's state, not the sandbox's",
  snapshots: 'saved states, which a reset keeps (docs/parallel-tests.md)',
  state: 'the registry itself',
  rateLimit:
    "each partner's fair share, on real time: it protects the process, a reset or a bundle carries none of it",
  gate: 'who waits while a large import swaps a partner in (state/bundles/swap-gate.ts): nothing a reset or a bundle carries',
};

const OPERATIONS = [
  'clear',
  'forget',
  'image',
  'restore',
  'drop',
  'exportPartner',
  'check',
  'importPartner',
] as const;
type Operation = (typeof OPERATIONS)[number];

/**
 * The forms an operation may take: a piece that exports by slices is reached that way by the
 * export (state/bundles/bundle-export.ts), and that counts as its exportPartner.
 */
const FORMS: Partial<Record<Operation, string[]>> = { exportPartner: ['exportPartner', 'exportBySlices'] };

/** Counts each call of each piece's operations (the pieces are the sandbox's own objects). */
function spyOn(pieces: readonly StatePiece[]) {
  const calls = new Map<string, Set<Operation>>(pieces.map((p) => [p.name, new Set()]));
  for (const piece of pieces) {
    const target = piece as unknown as Record<string, ((...args: unknown[]) => unknown) | undefined>;
    for (const op of OPERATIONS) {
      for (const form of FORMS[op] ?? [op]) {
        const original = target[form];
        if (!original) continue;
        target[form] = (...args: unknown[]) => {
          calls.get(piece.name)!.add(op);
          return original(...args);
        };
      }
    }
  }
  return calls;
}

describe('the state registry', () => {
  it('every member of the sandbox that holds state is a registered piece', () => {
    const h = createHarness();
    const held = new Set<unknown>(h.sandbox.state.pieces.map((p) => p.holds));
    const unregistered = Object.entries(h.sandbox)
      .filter(([, value]) => typeof value === 'object' && value !== null)
      .filter(([name, value]) => !Object.hasOwn(NOT_STATE, name) && !held.has(value))
      .map(([name]) => name);
    expect(unregistered).toEqual([]);
    // Each piece holds a member of the sandbox or state of its own (an object only its piece
    // keeps, so nothing else can miss a reset of it: new state is one piece and its bundle
    // fields), and each is registered once.
    expect(held.size).toBe(h.sandbox.state.pieces.length);
    expect(h.sandbox.state.pieces.map((p) => p.name)).toEqual([
      'store',
      'clocks',
      'armed',
      'chaos',
      'journal',
      'diagnostics',
    ]);
  });

  it('a reset, a partner reset, a snapshot and a bundle each reach every piece', async () => {
    const h = createHarness();
    const calls = spyOn(h.sandbox.state.pieces);
    const visited = async (op: Operation[], call: () => Promise<{ status: number }>) => {
      for (const set of calls.values()) set.clear();
      expect([200, 201]).toContain((await call()).status);
      for (const [name, set] of calls) expect([...set].sort(), name).toEqual([...op].sort());
    };
    await visited(['clear'], () => h.request('POST', '/__sandbox/reset'));
    await visited(['forget'], () => h.request('POST', `/__sandbox/partners/${DEMO.parent}/reset`));
    await visited(['image'], () => h.request('POST', '/__sandbox/snapshots', { body: { name: 'one' } }));
    await visited(['restore'], () => h.request('POST', '/__sandbox/snapshots/one/restore'));
    await visited(['drop'], () => h.request('DELETE', '/__sandbox/snapshots/one'));
    let bundle: unknown;
    await visited(['exportPartner'], async () => {
      const res = await h.request('GET', `/__sandbox/partners/${DEMO.parent}/bundle`);
      bundle = res.body;
      return res;
    });
    await visited(['check', 'importPartner'], () =>
      h.request('POST', '/__sandbox/bundles', { body: bundle }),
    );
  });

  it('a bundle one piece refuses is checked by every piece and loaded by none', async () => {
    const h = createHarness();
    const bundle = (await h.request('GET', `/__sandbox/partners/${DEMO.parent}/bundle`)).body;
    const calls = spyOn(h.sandbox.state.pieces);
    const armed = [
      { scenario: 'custom', effects: [{ name: 'no-such-scenario' }], armed_at: bundle.exported_at },
    ];
    const res = await h.request('POST', '/__sandbox/bundles', { body: { ...bundle, armed } });
    const body = expectErrorEnvelope(res, 400, 'validation_error');
    expect(body.error.details.fields).toEqual([
      { field: 'armed[0].effects[0].name', message: 'unknown scenario "no-such-scenario"' },
    ]);
    for (const [name, set] of calls) expect([...set], name).toEqual(['check']);
  });
});
