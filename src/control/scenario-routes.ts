/** The scenario catalogue and arming on the control plane (docs/fault-injection.md, docs/control-plane.md). */
import { Hono } from 'hono';
import type { z } from 'zod';
import { validationError } from '../contract/api/errors.js';
import { ARMED_MAX } from '../contract/control/bundle.js';
import { controlRoutes as op } from '../contract/control/control-routes.js';
import type { ArmRequest } from '../contract/control/control-schemas.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import { type Armed, armedFor } from '../scenarios/armed.js';
import { BUILT_INS, builtIn, describeValue, parseValue } from '../scenarios/catalogue.js';
import { scenarioError } from '../scenarios/header.js';
import type { Effect } from '../scenarios/presets.js';
import { accountOr404, partnerOr404 } from '../services/lookup.js';
import type { Sandbox } from '../state/index.js';

/** Whether an armed entry is a partner's own (its parent's or one of its accounts'). */
const ownedBy = (s: Sandbox, partner: string) => armedFor(partner, new Set(s.store.accounts.idsOf(partner)));

/** The catalogue; for a partner's token (`partner`), only its own armed scenarios are listed. */
export function catalogue(s: Sandbox, partner?: string) {
  return {
    built_ins: BUILT_INS.map((b) => ({
      name: b.name,
      description: b.description,
      value: describeValue(b.value),
      applies_to: [...b.appliesTo],
    })),
    presets: [...s.presets.values()].map((p) => ({
      name: p.name,
      description: p.description,
      effects: p.effects,
      source: p.source,
    })),
    armed: partner === undefined ? [...s.armed.list()] : s.armed.list().filter(ownedBy(s, partner)),
  };
}

// ARMED_MAX (the bundle format's bound, contract/control/bundle.ts): the most scenarios armed
// at once for one partner (its parent and its accounts), or for the whole sandbox.

/**
 * Arming past ARMED_MAX for one partner (or, with neither parent nor account, for every
 * partner) is a 400 naming the limit: a partner's bundle carries its armed scenarios and an
 * import takes at most that many, and every call of every partner reads the list.
 */
function armedLimit(
  s: Sandbox,
  owner: string | undefined,
  body: { parent_account_id?: string; account_id?: string },
) {
  const counted =
    owner === undefined
      ? (a: Armed) => a.parent_account_id === undefined && a.account_id === undefined
      : ownedBy(s, owner);
  const held = s.armed.list().filter(counted).length;
  if (held < ARMED_MAX) return;
  const field = body.account_id ? 'account_id' : body.parent_account_id ? 'parent_account_id' : 'scenario';
  const whose = owner === undefined ? 'for every partner' : `for partner ${owner}`;
  throw validationError([
    {
      field,
      message: `at most ${ARMED_MAX} scenarios are armed at once ${whose}, and ${held} are; disarm first (DELETE /__sandbox/scenarios, or POST /__sandbox/partners/{parent_account_id}/reset)`,
    },
  ]);
}

/** Arms a scenario or preset as `PUT /__sandbox/scenarios` says (a Pact state `a scenario` too). */
export function armScenario(s: Sandbox, request: z.output<typeof ArmRequest>): Armed {
  const { scenario, value, parent_account_id, account_id, times } = request;
  const body = {
    scenario,
    value: value ?? undefined,
    parent_account_id: parent_account_id ?? undefined,
    account_id: account_id ?? undefined,
    times: times ?? undefined,
  };
  let effects: Effect[];
  const preset = s.presets.get(body.scenario);
  if (preset) {
    if (body.value !== undefined)
      throw validationError([{ field: 'value', message: `preset "${preset.name}" takes no value` }]);
    effects = preset.effects;
  } else {
    const def = builtIn(body.scenario);
    if (!def) throw scenarioError(`unknown scenario "${body.scenario}"`, s.presets, 'scenario');
    const { value, error } = parseValue(def, body.value);
    if (error) throw validationError([{ field: 'value', message: error }]);
    effects = [value === undefined ? { name: def.name } : { name: def.name, value }];
  }
  if (body.parent_account_id) partnerOr404(s, body.parent_account_id);
  const account = body.account_id ? accountOr404(s, body.account_id) : undefined;
  armedLimit(s, body.parent_account_id ?? account?.parent_account_id, body);
  return s.armed.arm({
    scenario: body.scenario,
    effects,
    ...(body.parent_account_id ? { parent_account_id: body.parent_account_id } : {}),
    ...(body.account_id ? { account_id: body.account_id } : {}),
    ...(body.times ? { remaining: body.times } : {}),
    armed_at: s.clock.iso(body.parent_account_id ?? account?.parent_account_id),
  });
}

export function scenarioRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();
  bind(api, op.listScenarios, ({ partner }, c) => c.json(catalogue(s, partner), 200));

  bind(api, op.armScenario, async (input, c) => c.json({ armed: armScenario(s, await input.body()) }, 200));

  // A partner's token disarms its own armed scenarios only.
  bind(api, op.disarmScenarios, ({ partner }, c) => {
    if (partner === undefined) s.armed.clear();
    else s.armed.removeWhere(ownedBy(s, partner));
    return c.json({ armed: [] }, 200);
  });
  return api;
}
