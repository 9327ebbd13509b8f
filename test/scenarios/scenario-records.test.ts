/**
 * One record per scenario (src/scenarios/catalogue.ts): its hook point decides where the call
 * meets it, and its chaos rule whether a profile may draw it. The service-hooked scenarios are
 * exactly those the fault plan hands the services as drills, and a profile with no scenarios
 * named draws the transient ones their records mark `byDefault` (docs/chaos.md).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHAOS_SCENARIOS as GENERATED_DEFAULT } from '../../src/contract/control/default-chaos.js';
import { BUILT_INS } from '../../src/scenarios/catalogue.js';
import { DEFAULT_CHAOS_SCENARIOS } from '../../src/scenarios/chaos.js';
import { SERVICE_FAULTS } from '../../src/scenarios/fault-plan.js';
import { createHarness } from '../helpers/harness.js';

/** What a profile draws when it names none: SANDBOX.md section 11 fixes these five, in this order. */
const SANDBOX_DEFAULT_FIVE = [
  'auth-propagation',
  'stale-content-hash',
  'server-error',
  'rate-limited',
  'connection-reset',
];

const SRC = resolve(import.meta.dirname, '..', '..', 'src');
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(name) ? [path] : [];
  });

describe('scenario records', () => {
  it('the service-hooked scenarios are the drills services receive', () => {
    const hooked = BUILT_INS.filter((b) => (b.hooks as readonly string[]).includes('service')).map(
      (b) => b.name,
    );
    expect(Object.values(SERVICE_FAULTS).sort()).toEqual([...hooked].sort());
  });

  it('a chaos profile set with no scenarios draws from the records marked byDefault, in their order: the five SANDBOX.md names', async () => {
    const h = createHarness();
    const res = await h.request('PUT', '/__sandbox/chaos', { body: { rate: 0.5, seed: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.profile.scenarios).toEqual(SANDBOX_DEFAULT_FIVE);
    const marked = BUILT_INS.filter((b) => b.chaos !== false && b.chaos.byDefault === true).map(
      (b) => b.name,
    );
    expect(res.body.profile.scenarios).toEqual(marked);
    // A transient record not marked byDefault is drawn only when a profile names it.
    const namedOnly = BUILT_INS.filter((r) => r.chaos && !r.chaos.byDefault).map((b) => b.name);
    expect(namedOnly).toContain('additive-changes');
    for (const name of namedOnly) expect(res.body.profile.scenarios).not.toContain(name);
  });

  it('the default list is derived, never copied: the generated table, the control document and the dashboard read the records', async () => {
    expect([...DEFAULT_CHAOS_SCENARIOS]).toEqual(SANDBOX_DEFAULT_FIVE);
    expect([...GENERATED_DEFAULT]).toEqual(SANDBOX_DEFAULT_FIVE);
    const h = createHarness();
    const doc = await h.request('GET', '/__sandbox/openapi.json');
    expect(doc.status).toBe(200);
    expect(JSON.stringify(doc.body)).toContain(
      `Transient scenarios or presets to draw from; default ${SANDBOX_DEFAULT_FIVE.join(', ')}.`,
    );
    // The list is written in one place of src/: the generated default-chaos.ts (the dashboard's form reads it).
    const copies = sources(SRC).filter((f) =>
      readFileSync(f, 'utf8').includes("'auth-propagation', 'stale-content-hash'"),
    );
    expect(copies.map((f) => relative(SRC, f))).toEqual(['contract/control/default-chaos.ts']);
    expect(readFileSync(join(SRC, 'ui/client/views/chaos-view.ts'), 'utf8')).toContain(
      'DEFAULT_CHAOS_SCENARIOS',
    );
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
