/**
 * The registry of the sandbox's state (state/registry.ts): every piece, in the order the
 * six operations visit them. The store first (a restore puts its rows back before the clocks
 * read theirs from it), then the clocks, armed scenarios, chaos profiles, the journal and
 * diagnostics. New state is one more piece here.
 */

import { StartupError } from '../base/startup-error.js';
import type { FieldIssue } from '../contract/api/errors.js';
import { BUNDLE_JOURNAL_LIMITS, BUNDLE_WARNING_MAX, type BundleData } from '../contract/control/bundle.js';
import type { JournalEntry, JournalImage } from '../core/journal.js';
import { cutText } from '../domain/cut.js';
import { own } from '../domain/own.js';
import { type Armed, armedFor } from '../scenarios/armed.js';
import { builtIn, parseValue } from '../scenarios/catalogue.js';
import {
  type ChaosProfile,
  type ChaosSettings,
  chaosScenarioProblem,
  parseChaosSpec,
} from '../scenarios/chaos.js';
import { clockPlan } from './clock-plan.js';
import type { PartnerScope, StatePiece } from './registry.js';
import type { Sandbox } from './sandbox.js';
import { storePiece } from './store-piece.js';

/** Whether a partner's state holds this account's entry (armed for it, or its journal entry). */
const ofAccount = (scope: PartnerScope, accountId: string | null | undefined) =>
  accountId !== undefined && accountId !== null && scope.accounts.has(accountId);

/** The clocks: kept in the store's meta table, so a store image holds them and they read it again. */
function clocksPiece(s: Sandbox): StatePiece<undefined> {
  return {
    name: 'clocks',
    holds: s.clock,
    durable: true,
    clear: () => s.clock.reset(),
    forget: (scope) => s.clock.setPartner(scope.parent, 0),
    image: () => undefined,
    restore: () => s.loadClock(),
    drop: () => {},
    exportPartner: (scope) => ({
      clock: {
        now: s.clock.iso(scope.parent),
        offset_seconds: (s.clock.offsetMs + s.clock.partnerOffsetMs(scope.parent)) / 1000,
      },
    }),
    check: () => [],
    importPartner: ({ scope, bundle, realNow }) =>
      s.clock.setPartner(scope.parent, clockPlan(s, bundle.clock.now, realNow).ownMs),
  };
}

/** Scenarios armed on the control plane: the partner's are those for its parent or one of its accounts. */
function armedPiece(s: Sandbox): StatePiece<Armed[]> {
  const isPartners = (scope: PartnerScope) => armedFor(scope.parent, scope.accounts);
  return {
    name: 'armed',
    holds: s.armed,
    durable: false,
    clear: () => s.armed.clear(),
    forget: (scope) => s.armed.removeWhere(isPartners(scope)),
    image: () => s.armed.image(),
    restore: (image) => s.armed.restore(image),
    drop: () => {},
    exportPartner: (scope) => ({
      armed: s.armed
        .list()
        .filter(
          (a) =>
            (a.parent_account_id === scope.parent && a.account_id === undefined) ||
            ofAccount(scope, a.account_id),
        )
        .map((a) => ({
          scenario: a.scenario,
          effects: a.effects.map((e) => ({ ...e })),
          ...(a.account_id !== undefined ? { account_id: a.account_id } : {}),
          ...(a.remaining !== undefined ? { remaining: a.remaining } : {}),
          armed_at: a.armed_at,
        })),
    }),
    check: (b) => {
      const out: FieldIssue[] = [];
      const accountIds = new Set(b.accounts.map((a) => a.account_id));
      b.armed.forEach((a, i) => {
        if (a.account_id !== undefined && !accountIds.has(a.account_id))
          out.push({ field: `armed[${i}].account_id`, message: 'is not an account of this bundle' });
        a.effects.forEach((e, j) => {
          const def = builtIn(e.name);
          if (!def)
            out.push({ field: `armed[${i}].effects[${j}].name`, message: `unknown scenario "${e.name}"` });
          else {
            const { error } = parseValue(def, e.value);
            if (error) out.push({ field: `armed[${i}].effects[${j}].value`, message: error });
          }
        });
      });
      return out;
    },
    importPartner: ({ scope, bundle }) => {
      s.armed.removeWhere(isPartners(scope));
      // As the control plane arms them: for the parent, or for one account.
      for (const a of bundle.armed)
        s.armed.arm(a.account_id !== undefined ? a : { ...a, parent_account_id: scope.parent });
    },
  };
}

/**
 * `SANDBOX_CHAOS` / `--chaos`: a profile for every partner, set at start-up and again by a
 * reset (which ends the profiles set since, as it reloads the fixtures). Anything else ends.
 */
export function startupChaos(s: Sandbox, resume = false): void {
  if (!resume) s.chaos.end();
  if (!s.config.chaos) return;
  const where = `SANDBOX_CHAOS (--chaos)=${JSON.stringify(s.config.chaos)}`;
  let settings: ReturnType<typeof parseChaosSpec>;
  try {
    settings = parseChaosSpec(s.config.chaos);
  } catch (e) {
    throw new StartupError(`${where}: ${(e as Error).message}`);
  }
  for (const name of settings.scenarios) {
    const problem = chaosScenarioProblem(name, s.presets);
    if (problem) throw new StartupError(`${where}: scenarios: ${problem}`);
  }
  // A restart on a durable store with the same setting continues the saved sequences.
  const saved = resume ? s.chaos.list().find((p) => p.parent_account_id === undefined) : undefined;
  const same = (a: ChaosSettings, b: ChaosSettings) =>
    a.rate === b.rate && a.seed === b.seed && a.scenarios.join('+') === b.scenarios.join('+');
  if (saved && same(saved, settings)) return;
  s.chaos.set(settings, s.clock.iso());
}

/** Where a durable store keeps the chaos profiles and positions (the meta table). */
export const CHAOS_KEY = 'chaos_profiles';
/** At most this long between a chaos position moving and the store having it (a kill loses no more). */
export const CHAOS_SAVE_MS = 1000;

/**
 * On a durable store, chaos profiles and each partner's positions survive a restart as the
 * clocks do (docs/chaos.md): they are read back at start-up, and saved to the store's
 * meta table within CHAOS_SAVE_MS of a change and at a clean stop. Returns the flush for close().
 */
export function durableChaos(s: Sandbox): () => void {
  const saved = s.store.meta.get(CHAOS_KEY);
  if (saved !== undefined) {
    try {
      s.chaos.restore(JSON.parse(saved) as ChaosProfile[]);
    } catch {
      s.log.error('saved chaos profiles unreadable; starting without them', { key: CHAOS_KEY });
    }
  }
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!s.store.db.open) return; // stopped
    try {
      s.store.meta.set(CHAOS_KEY, JSON.stringify(s.chaos.image()));
    } catch (err) {
      // A store that refuses the write (a full disk) keeps the last saved positions.
      if (!s.storeHealth.refused(err)) throw err;
    }
  };
  s.chaos.onChange = () => {
    timer ??= setTimeout(flush, CHAOS_SAVE_MS).unref();
  };
  return flush;
}

/** The partner's chaos profile and its place in the sequence (docs/chaos.md), or null. */
function chaosOf(s: Sandbox, parent: string): BundleData['chaos'] {
  const profile = s.chaos.of(parent);
  if (!profile) return null;
  const position = own(profile.positions, parent);
  return {
    rate: profile.rate,
    seed: profile.seed,
    scenarios: [...profile.scenarios],
    // A partner not seen yet under it: its next call is the profile's from_call.
    call: position?.calls ?? profile.from_call - 1,
    token_call: position?.token_calls ?? 0,
    owed: [...(position?.owed ?? [])],
  };
}

/** Chaos profiles and each partner's place in their sequence; a reset sets the start-up profile again. */
function chaosPiece(s: Sandbox): StatePiece<ChaosProfile[]> {
  return {
    name: 'chaos',
    holds: s.chaos,
    durable: false,
    clear: () => startupChaos(s),
    forget: (scope) => s.chaos.forget(scope.parent),
    image: () => s.chaos.image(),
    restore: (image) => s.chaos.restore(image),
    drop: () => {},
    exportPartner: (scope) => ({ chaos: chaosOf(s, scope.parent) }),
    check: (b) => {
      const out: FieldIssue[] = [];
      b.chaos?.scenarios.forEach((name, i) => {
        const problem = chaosScenarioProblem(name, s.presets);
        if (problem) out.push({ field: `chaos.scenarios[${i}]`, message: problem });
      });
      return out;
    },
    importPartner: ({ scope, bundle }) => {
      // The partner's own profile, where its sequence was; none: its sequence starts over.
      s.chaos.forget(scope.parent);
      if (bundle.chaos) {
        const { call, token_call, owed, ...settings } = bundle.chaos;
        s.chaos.set(settings, s.clock.iso(scope.parent), scope.parent, {
          [scope.parent]: { calls: call, token_calls: token_call, owed },
        });
      }
    },
  };
}

/** A journal warning longer than a bundle holds is cut, marked so. */
const WARNING_CUT = ' ... (cut in the bundle)';
/** A header name is a token: its cut mark is one too. */
const NAME_CUT = '--cut-in-bundle';

/** A journal entry as a bundle carries it: what is longer than the format takes is cut, marked. */
function entryForBundle(entry: Omit<JournalEntry, 'id'>): Omit<JournalEntry, 'id'> {
  const L = BUNDLE_JOURNAL_LIMITS;
  const cutAll = (record: Record<string, string>, nameMax: number, valueMax: number, nameCut: string) =>
    Object.fromEntries(
      Object.entries(record).map(([k, v]) => [
        cutText(k, nameMax, nameCut),
        cutText(v, valueMax, WARNING_CUT),
      ]),
    );
  return {
    ...entry,
    path: cutText(entry.path, L.path, WARNING_CUT),
    query: cutAll(entry.query, L.queryName, L.queryValue, WARNING_CUT),
    request_headers: cutAll(entry.request_headers, L.headerName, L.headerValue, NAME_CUT),
    request_id: cutText(entry.request_id, L.requestId, WARNING_CUT),
    warnings: entry.warnings.map((w) => cutText(w, BUNDLE_WARNING_MAX, WARNING_CUT)),
  };
}

/** The journal: a partner's entries are those filed under its parent or one of its accounts. */
function journalPiece(s: Sandbox): StatePiece<JournalImage> {
  return {
    name: 'journal',
    holds: s.journal,
    durable: false,
    clear: () => s.journal.clear(),
    forget: (scope) => s.journal.removePartner(scope.parent, scope.accounts),
    image: () => s.journal.image(),
    restore: (image) => s.journal.restore(image),
    drop: () => {},
    exportPartner: (scope) => ({
      journal: s.journal
        .ofPartner(scope.parent, scope.accounts)
        .map(({ id: _id, ...entry }) => entryForBundle(entry)),
    }),
    check: (b) => {
      const out: FieldIssue[] = [];
      const parent = b.partner.parent_account_id;
      const accountIds = new Set(b.accounts.map((a) => a.account_id));
      const foreignAccount = (id: string) => {
        const owner = s.store.accounts.byId(id)?.parent_account_id;
        return owner !== undefined && owner !== parent;
      };
      b.journal.forEach((e, i) => {
        if (e.parent_account_id !== null && e.parent_account_id !== parent)
          out.push({
            field: `journal[${i}].parent_account_id`,
            message: `is not the bundle's partner ${parent}`,
          });
        // An ID none of the bundle's accounts has is allowed for the partner's own calls (a dry-run
        // register names an account never stored), never one of another partner's accounts.
        if (
          e.account_id !== null &&
          !accountIds.has(e.account_id) &&
          (e.parent_account_id !== parent || foreignAccount(e.account_id))
        )
          out.push({ field: `journal[${i}].account_id`, message: 'is not an account of this bundle' });
      });
      if (b.journal.length > s.journal.max)
        out.push({
          field: 'journal',
          message: `holds ${b.journal.length} entries; this sandbox's journal keeps ${s.journal.max} (SANDBOX_JOURNAL_MAX)`,
        });
      return out;
    },
    importPartner: ({ scope, bundle }) => {
      s.journal.removePartner(scope.parent, scope.accounts);
      for (let i = bundle.journal.length - 1; i >= 0; i--)
        s.journal.addImported(bundle.journal[i]!, scope.parent);
    },
  };
}

/** Coaching warnings' memory: nothing a snapshot or bundle keeps; a restore or import starts it over. */
function diagnosticsPiece(s: Sandbox): StatePiece<undefined> {
  const forget = (scope: PartnerScope) => s.diagnostics.forget(scope.accounts, scope.client);
  return {
    name: 'diagnostics',
    holds: s.diagnostics,
    durable: false,
    clear: () => s.diagnostics.clear(),
    forget,
    image: () => undefined,
    restore: () => s.diagnostics.clear(),
    drop: () => {},
    exportPartner: () => ({}),
    check: () => [],
    importPartner: ({ scope }) => forget(scope),
  };
}

/** Every piece of the sandbox's state, in the order the operations visit them. */
export function statePieces(s: Sandbox): StatePiece[] {
  return [storePiece(s), clocksPiece(s), armedPiece(s), chaosPiece(s), journalPiece(s), diagnosticsPiece(s)];
}
