/**
 * The `additive-changes` scenario at its hook: the one writer of answers (answer-writer.ts `send`)
 * asks here whether the answer it is about to write is to come as a compatible release of the
 * API could send it (docs/fault-injection.md). The seed is the scenario's value (header or
 * armed; default 1), or under chaos one drawn from the profile seed and the call's position,
 * so a run repeats either way.
 */
import type { Context } from 'hono';
import { type CompatibleAnswer, compatibleRelease } from '../scenarios/additive-changes.js';
import { chaosRandom } from '../scenarios/chaos.js';
import type { AppEnv } from './env.js';

export function additiveChanges(c: Context<AppEnv>, text: string): CompatibleAnswer | undefined {
  const plan = c.get('faultPlan');
  const effect = plan.take('additive-changes');
  if (!effect) return undefined;
  const drawn = plan.chaos?.effects.includes(effect) ? plan.chaos : undefined;
  const seed = drawn ? Math.floor(chaosRandom(drawn.seed, drawn.call, 12) * 2 ** 31) : (effect.value ?? 1);
  return compatibleRelease(text, seed);
}
