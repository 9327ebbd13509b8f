/**
 * One record per scenario (src/scenarios/catalogue.ts): its hook point decides where the call
 * meets it, and its chaos rule whether a profile may draw it. The service-hooked scenarios are
 * exactly those the fault plan hands the services as drills, and a profile with no scenarios
 * named draws every transient one (docs/chaos.md).
 */
import { describe, expect, it } from 'vitest';
import { BUILT_INS } from '../src/scenarios/catalogue.js';
import { SERVICE_FAULTS } from '../src/scenarios/plan.js';
import { createHarness } from './harness.js';

describe('scenario records', () => {
  it('the service-hooked scenarios are the drills services receive', () => {
    const hooked = BUILT_INS.filter((b) => (b.hooks as readonly string[]).includes('service')).map(
      (b) => b.name,
    );
    expect(Object.values(SERVICE_FAULTS).sort()).toEqual([...hooked].sort());
  });

  it('a chaos profile set with no scenarios draws from the transient records, in their order', async () => {
    const h = createHarness();
    const res = await h.request('PUT', '/__sandbox/chaos', { body: { rate: 0.5, seed: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.profile.scenarios).toEqual([
      'auth-propagation',
      'stale-content-hash',
      'server-error',
      'rate-limited',
      'connection-reset',
    ]);
    // additive-changes has a chaos rule but is drawn only when named (docs/chaos.md)
    const transient = BUILT_INS.filter((b) => b.chaos && !('byDefault' in b.chaos)).map((b) => b.name);
    expect(res.body.profile.scenarios).toEqual(transient);
    expect(BUILT_INS.filter((b) => b.chaos).map((b) => b.name)).toEqual([...transient, 'additive-changes']);
  });

  it('a record without a chaos rule is refused as a profile scenario, named as not transient', async () => {
    const h = createHarness();
    for (const b of BUILT_INS.filter((r) => !r.chaos && r.name !== 'latency')) {
      const res = await h.request('PUT', '/__sandbox/chaos', {
        body: { rate: 0.5, seed: 1, scenarios: [b.name] },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields[0].message).toBe(
        `${b.name} is not a transient failure a retry can get past`,
      );
    }
  });
});
