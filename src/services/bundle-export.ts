/**
 * A bundle's export (docs/parallel-tests.md): one partner's whole state as one JSON file, what
 * a failed CI job uploads. Its import and checks are in services/bundles.ts.
 */
import { BUNDLE_KIND, BUNDLE_VERSION, BUNDLE_WARNING_MAX, type BundleData } from '../contract/bundle.js';
import type { Sandbox } from '../core/state.js';
import { cutText } from '../domain/cut.js';
import { own } from '../domain/own.js';
import { secretOf } from '../store/partners.js';
import { partnerNotFound } from './lookup.js';
import { lastStatusWrite } from './status.js';

type BundleAccount = BundleData['accounts'][number];
type BundlePage = BundleAccount['pages'][number];
type BundleLayout = BundleAccount['layouts'][number];

/** The bundle of one partner, as `GET /__sandbox/partners/{parent}/bundle` answers it. */
export function exportBundle(s: Sandbox, parent: string): BundleData {
  const partner = s.store.partners.byParent(parent);
  if (!partner) throw partnerNotFound(parent);
  const accounts = s.store.accounts.allOf(parent);
  const owned = new Set(accounts.map((a) => a.account_id));
  const strip = <T extends object, K extends keyof T>(row: T, ...keys: K[]): Omit<T, K> => {
    const out = { ...row };
    for (const k of keys) delete out[k];
    return out;
  };
  return {
    kind: BUNDLE_KIND,
    version: BUNDLE_VERSION,
    exported_at: s.clock.iso(),
    partner: {
      parent_account_id: partner.parent_account_id,
      client_id: partner.client_id,
      client_secret_hash: secretOf(partner),
      name: partner.name,
      created_at: partner.created_at,
    },
    clock: {
      now: s.clock.iso(parent),
      offset_seconds: (s.clock.offsetMs + s.clock.partnerOffsetMs(parent)) / 1000,
    },
    vertical_mappings: s.store.partners.mappings(parent).map((m) => ({ ...m })),
    accounts: accounts.map((a) => {
      const controls = s.store.controls.get(a.account_id)!;
      return {
        ...strip(a, 'parent_account_id'),
        // The store keeps what the API validated: its surfaces and layout types are the enums'.
        pages: s.store.accounts.pages(a.account_id).map((p) => strip(p, 'account_id') as BundlePage),
        layouts: s.store.accounts.layouts(a.account_id).map((l) => strip(l, 'account_id') as BundleLayout),
        variants: s.store.accounts.variants(a.account_id).map((v) => ({
          ...strip(v, 'account_id'),
          enabled: v.enabled === 1,
          archived: v.archived === 1,
        })),
        controls: strip(controls, 'account_id'),
        last_status_write: lastStatusWrite(s, a.account_id),
      };
    }),
    idempotency_keys: s.store.idempotency.doneOf(parent).map((k) => ({
      key: k.key,
      operation: k.operation,
      fingerprint: k.fingerprint,
      dry_run: k.dry_run === 1,
      status: k.status ?? 200,
      body: k.body ?? '',
      expires_at: k.expires_at,
    })),
    armed: s.armed
      .list()
      .filter(
        (a) =>
          (a.parent_account_id === parent && a.account_id === undefined) ||
          (a.account_id !== undefined && owned.has(a.account_id)),
      )
      .map((a) => ({
        scenario: a.scenario,
        effects: a.effects.map((e) => ({ ...e })),
        ...(a.account_id !== undefined ? { account_id: a.account_id } : {}),
        ...(a.remaining !== undefined ? { remaining: a.remaining } : {}),
        armed_at: a.armed_at,
      })),
    journal: s.journal
      .list()
      .filter((e) => e.parent_account_id === parent || (e.account_id !== null && owned.has(e.account_id)))
      .map(({ id: _id, ...entry }) => ({
        ...entry,
        warnings: entry.warnings.map((w) => cutText(w, BUNDLE_WARNING_MAX, WARNING_CUT)),
      })),
    chaos: chaosOf(s, parent),
  };
}

/** A journal warning longer than a bundle holds is cut, marked so. */
const WARNING_CUT = ' ... (cut in the bundle)';
/** The partner's chaos profile and its place in the sequence (docs/chaos.md), or null. */
function chaosOf(s: Sandbox, parent: string): BundleData['chaos'] {
  const profile = s.chaos.of(parent);
  if (!profile) return null;
  const position = own(profile.positions, parent);
  return {
    rate: profile.rate,
    seed: profile.seed,
    scenarios: [...profile.scenarios],
    call: position?.calls ?? 0,
    owed: [...(position?.owed ?? [])],
  };
}
