/**
 * A partner at its room is refused call after call without the store being counted again each
 * time (the count is kept while nothing of the partner changes), and the room comes back as
 * soon as rows go: once its stored answers expire (the idempotency window, 24 h) and the next
 * keyed write prunes them, the same write that was refused goes through.
 */
import { describe, expect, it } from 'vitest';
import { CONTROLS, createHarness, DEMO, expectErrorEnvelope, expectOk } from '../helpers/harness.js';
import { fatList, fillWith } from '../helpers/room-fill.js';

describe("a partner's room after its stored answers expire", () => {
  it('refuses again while full, then takes the write once expired keys are pruned', async () => {
    const h = createHarness();
    const demo = await h.client(DEMO);
    const { account, hash } = await fillWith(h, demo, 900, 'exp');
    // Refused again, with the same count: nothing of the partner changed.
    const again = expectErrorEnvelope(
      await demo.put(CONTROLS(account), fatList(hash, 'again'), { 'Idempotency-Key': 'again-1' }),
      403,
      'partner_storage_full',
    );
    const third = expectErrorEnvelope(
      await demo.put(CONTROLS(account), fatList(hash, 'again'), { 'Idempotency-Key': 'again-2' }),
      403,
      'partner_storage_full',
    );
    expect(third.error.details.used_bytes).toBe(again.error.details.used_bytes);
    // A day and an hour later every stored answer has expired; the next keyed write prunes them.
    expect(
      (await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 25 * 3600 } })).status,
    ).toBe(200);
    const later = await h.client(DEMO);
    const written = await later.put(CONTROLS(account), fatList(hash, 'later'), {
      'Idempotency-Key': 'later-1',
    });
    expect(expectOk(written).marketplace_controls_list.domains).toHaveLength(900);
  });
});
