/**
 * A reset is atomic with respect to requests (docs/parallel-tests.md, issue 14 B6): a request in
 * flight when the control plane resets sees the state before the reset or after it,
 * never a mix, and never answers 500. Requests are held in flight by the latency
 * scenario (they await inside the pipeline, which is where a reset can fall).
 */
import { describe, expect, it } from 'vitest';
import {
  CONTROLS,
  createHarness,
  expectErrorEnvelope,
  REGISTER,
  registerBody,
  STATUS,
} from '../helpers/harness.js';

const LATENCY = { 'X-Sandbox-Scenario': 'latency=200' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('reset during in-flight requests', () => {
  it('writes, reads and a register held in flight across a reset start over against the new state: their token is gone (401), nothing lands, nothing answers 500', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const accountsBefore = h.sandbox.store.db.prepare('SELECT count(*) AS n FROM accounts').get();

    const inFlight = [
      partner.put(
        CONTROLS(accountId),
        { blockedVerticals: [], domains: [{ domain: 'late.example.com' }], contentHash: null },
        LATENCY,
      ),
      partner.put(STATUS(accountId), { status: 'paused' }, LATENCY),
      partner.get(STATUS(accountId), LATENCY),
      partner.call('POST', REGISTER, {
        body: registerBody({ external_account_id: 'started-before-reset' }),
        headers: LATENCY,
      }),
    ];
    await sleep(50);
    const reset = await h.request('POST', '/__sandbox/reset');
    expect(reset.status).toBe(200);
    const answers = await Promise.all(inFlight);

    for (const res of answers) {
      // The token the request carried was issued before the reset, which dropped it.
      expectErrorEnvelope(res, 401, 'unauthorized');
    }
    expect(h.sandbox.store.db.prepare('SELECT count(*) AS n FROM accounts').get()).toEqual({ n: 0 });
    expect(accountsBefore).toEqual({ n: 1 });
    expect(h.sandbox.store.db.prepare('SELECT count(*) AS n FROM idempotency_keys').get()).toEqual({ n: 0 });
  });

  it('a token grant held in flight across a reset is issued against the new state (the fixture partner again)', async () => {
    const h = createHarness();
    const grant = h.request('POST', '/oauth/token', {
      raw: 'grant_type=client_credentials&client_id=sandbox-demo-client&client_secret=sandbox-demo-secret',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...LATENCY },
    });
    await sleep(50);
    expect((await h.request('POST', '/__sandbox/reset')).status).toBe(200);
    const res = await grant;
    expect(res.status).toBe(200);
    // The token works after the reset.
    const mappings = await h.request('GET', '/v1/partnership/vertical-mappings', {
      headers: { Authorization: `Bearer ${res.body.access_token}` },
    });
    expect(mappings.status).toBe(200);
  });

  it('a grant for a partner created after start-up, held across a reset that removes it, is 401 invalid_client (not a 500)', async () => {
    const h = createHarness();
    const created = await h.request('POST', '/__sandbox/partners', { body: {} });
    const grant = h.request('POST', '/oauth/token', {
      raw: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: created.body.client_id,
        client_secret: created.body.client_secret,
      }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...LATENCY },
    });
    await sleep(50);
    await h.request('POST', '/__sandbox/reset');
    const res = await grant;
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });
});
