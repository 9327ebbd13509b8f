/**
 * What a Pact provider state writes counts in its partner's room (docs/contracts.md,
 * docs/guarantees-and-limits.md), as the control plane's other writes: `an account` on a full
 * partner is 403 partner_storage_full with nothing written, and the accounts states made before
 * count like registered ones. Through HTTP, every answer checked against the served documents.
 */
import { describe, expect, it } from 'vitest';
import { PARTNER_ROOM_BYTES } from '../../src/http/room.js';
import { createHarness, DEMO, expectErrorEnvelope } from '../helpers/harness.js';
import { fillWith } from '../helpers/room-fill.js';

const STATES = '/__sandbox/pact/states';

describe("a provider state's writes count in the partner's room", () => {
  it('`an account` fills what is left of a full partner, then is 403 partner_storage_full, nothing written', async () => {
    const h = createHarness();
    const demo = await h.client(DEMO);
    // Lists of 900 long domains until one is refused, then of 9 (about 30 KB): less is left.
    await fillWith(h, demo, 900, 'fat');
    await fillWith(h, demo, 9, 'thin');
    const sizes = h.sandbox.store.sizes;
    const before = sizes.exact(DEMO.parent);

    let refused: Awaited<ReturnType<typeof h.request>> | undefined;
    let made = 0;
    for (; made < 40 && !refused; made++) {
      const res = await h.request('POST', STATES, {
        body: { action: 'setup', state: 'an account', params: { account_id: `acct_pact_${made}` } },
      });
      if (res.status !== 200) refused = res;
    }
    expect(refused, 'no provider state was refused: its rows are not counted').toBeDefined();
    const body = expectErrorEnvelope(refused!, 403, 'partner_storage_full');
    expect(body.error.details).toMatchObject({
      parent_account_id: DEMO.parent,
      limit_bytes: PARTNER_ROOM_BYTES,
    });
    // The accounts set up before it went through and are counted; the refused one is not there.
    expect(made).toBeGreaterThan(1);
    expect(sizes.exact(DEMO.parent)).toBeGreaterThan(before);
    expect(h.sandbox.store.accounts.byId(`acct_pact_${made - 2}`)).toBeDefined();
    expect(h.sandbox.store.accounts.byId(`acct_pact_${made - 1}`)).toBeUndefined();
    const view = await h.request('GET', `/__sandbox/accounts/acct_pact_${made - 1}`);
    expect(view.status).toBe(404);
    // A state on an account that exists is a write too (its status or hash may change): held to the room.
    const same = await h.request('POST', STATES, {
      body: { action: 'setup', state: 'an account', params: { account_id: 'acct_pact_0' } },
    });
    expectErrorEnvelope(same, 403, 'partner_storage_full');
  }, 180_000);
});
