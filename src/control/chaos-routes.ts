/** Chaos profiles on the control plane (docs/chaos.md): set, read, end. */
import { Hono } from 'hono';
import type { z } from 'zod';
import { validationError } from '../contract/api/errors.js';
import type { ChaosProfileView } from '../contract/control/control-journal.js';
import { controlRoutes as op } from '../contract/control/control-routes.js';
import { bind } from '../http/bind.js';
import type { AppEnv } from '../http/env.js';
import { type ChaosProfile, chaosScenarioProblem, DEFAULT_CHAOS_SCENARIOS } from '../scenarios/chaos.js';
import { partnerOr404 } from '../services/lookup.js';
import type { Sandbox } from '../state/index.js';

/** A profile as the control plane shows it: its settings, what it saw and what it failed. */
export function chaosView(p: ChaosProfile): z.infer<typeof ChaosProfileView> {
  const failed = Object.values(p.failed).reduce((a, b) => a + b, 0);
  const positions = Object.fromEntries(Object.entries(p.positions).map(([parent, at]) => [parent, at.calls]));
  const tokens = Object.fromEntries(
    Object.entries(p.positions).map(([parent, at]) => [parent, at.token_calls ?? 0]),
  );
  const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  return {
    parent_account_id: p.parent_account_id ?? null,
    rate: p.rate,
    seed: p.seed,
    scenarios: p.scenarios,
    set_at: p.set_at,
    from_call: p.from_call,
    calls_seen: sum(positions) + sum(tokens),
    calls_failed: failed,
    failed_by_scenario: { ...p.failed },
    positions,
    token_positions: tokens,
  };
}

export function chaosRoutes(s: Sandbox) {
  const api = new Hono<AppEnv>();
  // A partner's token sees its own profile only (`partner`: its parent).
  const list = (partner?: string) => ({
    profiles: s.chaos
      .list()
      .filter((p) => partner === undefined || p.parent_account_id === partner)
      .map(chaosView),
  });

  bind(api, op.setChaos, async (input, c) => {
    const body = await input.body();
    const scenarios = body.scenarios ?? [...DEFAULT_CHAOS_SCENARIOS];
    const problems = scenarios.flatMap((name, i) => {
      const problem = chaosScenarioProblem(name, s.presets);
      return problem ? [{ field: `scenarios[${i}]`, message: problem }] : [];
    });
    if (problems.length) throw validationError(problems);
    const parent = body.parent_account_id ?? undefined;
    if (parent !== undefined) partnerOr404(s, parent);
    const profile = s.chaos.set(
      { rate: body.rate, seed: body.seed, scenarios },
      s.clock.iso(parent),
      parent,
      {},
      body.from_call ?? 1,
    );
    return c.json({ profile: chaosView(profile) }, 200);
  });

  bind(api, op.getChaos, ({ partner }, c) => c.json(list(partner), 200));

  bind(api, op.endChaos, ({ query, partner }, c) => {
    const parent = query.parent_account_id;
    if (parent !== undefined) partnerOr404(s, parent);
    s.chaos.end(parent);
    return c.json(list(partner), 200);
  });
  return api;
}
