/**
 * The volume of a hosted sandbox (SANDBOX.md section 13; issue 39 item 3): with thousands of
 * partners and their journals, a read of the whole journal (count, list) and the partner list
 * answer as they did, and another partner's call is served while they are under way rather
 * than after them. The partners and entries are made cheaply, straight into the journal and
 * the store; every read and call goes through HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../src/core/journal.js';
import { hashSecretSync } from '../../src/domain/secrets.js';
import { secretColumns } from '../../src/store/partners-table.js';
import { createHarness, type Harness, MAPPINGS } from '../helpers/harness.js';
import { newTenant, sleep } from '../helpers/tenants.js';

const PARTNERS = 2_000;
const EACH = 20;
/** Partners for the partner list: two reads each. */
const LISTED = 10_000;
const LONG_AGO = '2000-01-01T00:00:00.000Z';
const FAR_AHEAD = '2999-01-01T00:00:00.000Z';

/** `each` journal entries for each of `partners` partners, filed as their calls would be (never read yet). */
function fillJournal(h: Harness, partners: number, each: number) {
  for (let k = 0; k < each; k++)
    for (let i = 0; i < partners; i++) {
      const record: JournalRecord = {
        at: h.sandbox.clock.now(),
        partnerAt: null,
        method: 'GET',
        url: `http://sandbox.test${MAPPINGS}?call=${k}`,
        headers: ['accept', 'application/json', 'authorization', 'Bearer token-of-many'],
        requestBody: null,
        status: 200,
        responseBody: { vertical_mappings: [] },
        responseHeaders: { 'content-type': 'application/json' },
        request_id: `req_many_${i}_${k}`,
        trace: null,
        parent_account_id: `pa_many_${i}`,
        account_id: `acc_many_${i % 10}`,
        scenarios_applied: [],
        chaos: null,
        warnings: [],
        duration_ms: 1,
      };
      h.sandbox.journal.add(record);
    }
}

/**
 * Starts a slow control-plane call, lets it get under way, then makes a partner call: which
 * answered first, and the control call's answer.
 */
async function whileUnderWay(h: Harness, control: () => Promise<{ status: number; body: unknown }>) {
  const partner = await newTenant(h, 'busy');
  const order: string[] = [];
  const controlled = control().then((res) => {
    order.push('control');
    return res;
  });
  await sleep(5); // the control call is reading now: were it read at once, this would wait for its end
  const started = performance.now();
  const res = await h.app.request(MAPPINGS, { headers: partner.client.headers });
  const waited = performance.now() - started;
  order.push('partner');
  expect(res.status).toBe(200);
  return { order, waited, answer: await controlled };
}

describe('with thousands of partners, reads of the whole journal go by turns', () => {
  it(`an unfiltered count answers every entry at once; a count reading every entry (${PARTNERS} partners) lets a partner's call through meanwhile`, async () => {
    const h = createHarness();
    fillJournal(h, PARTNERS, EACH);
    const all = PARTNERS * EACH;
    const total = await h.request('POST', '/__sandbox/requests/count', { body: {} });
    expect(total.status).toBe(200);
    expect(total.body).toEqual({ count: all });

    const { order, waited, answer } = await whileUnderWay(h, () =>
      // `since` builds each entry it reads: a read long enough on any machine.
      h.request('POST', '/__sandbox/requests/count', { body: { path: MAPPINGS, since: LONG_AGO } }),
    );
    expect(order).toEqual(['partner', 'control']);
    expect(waited).toBeLessThan(2_000); // generous: the count alone takes longer on any machine
    expect(answer.status).toBe(200);
    // The journal as it was when the count began: the partner's call made meanwhile is not in it.
    expect(answer.body).toEqual({ count: all });
    expect((await h.request('POST', '/__sandbox/requests/count', { body: { path: MAPPINGS } })).body).toEqual(
      {
        count: all + 1,
      },
    );
    // By account and by parent, the same answers a partner's own count gives.
    const byAccount = await h.request('POST', '/__sandbox/requests/count', {
      body: { account_id: 'acc_many_3' },
    });
    expect(byAccount.body).toEqual({ count: all / 10 });
    const byParent = await h.request('POST', '/__sandbox/requests/count', {
      body: { parent_account_id: 'pa_many_7' },
    });
    expect(byParent.body).toEqual({ count: EACH });
  }, 120_000);

  it("a list that reads every entry lets a partner's call through meanwhile, and answers newest first as before", async () => {
    const h = createHarness();
    fillJournal(h, PARTNERS, EACH);
    const { order, answer } = await whileUnderWay(h, () =>
      h.request('GET', `/__sandbox/requests?since=${encodeURIComponent(FAR_AHEAD)}`),
    );
    expect(order).toEqual(['partner', 'control']);
    expect(answer).toMatchObject({ status: 200, body: { requests: [], max: 1000 } });

    // Newest first across partners: the last filled, then the one before.
    const newest = await h.request(
      'GET',
      `/__sandbox/requests?parent_account_id=pa_many_${PARTNERS - 1}&limit=2`,
    );
    expect(newest.body.requests.map((e: { request_id: string }) => e.request_id)).toEqual([
      `req_many_${PARTNERS - 1}_${EACH - 1}`,
      `req_many_${PARTNERS - 1}_${EACH - 2}`,
    ]);
    const across = await h.request('GET', `/__sandbox/requests?account_id=acc_many_9&limit=3`);
    expect(across.body.requests.map((e: { request_id: string }) => e.request_id)).toEqual([
      `req_many_${PARTNERS - 1}_${EACH - 1}`,
      `req_many_${PARTNERS - 11}_${EACH - 1}`,
      `req_many_${PARTNERS - 21}_${EACH - 1}`,
    ]);
  }, 120_000);
});

describe('GET /__sandbox/partners with thousands of partners', () => {
  it("lists every partner as before, and lets a partner's call through meanwhile", async () => {
    const h = createHarness();
    const secret = secretColumns(hashSecretSync('many-secret-123'));
    for (let i = 0; i < LISTED; i++)
      h.sandbox.store.partners.insert({
        parent_account_id: `pa_many_${String(i).padStart(5, '0')}`,
        client_id: `client-many-${i}`,
        ...secret,
        name: `Partner ${i}`,
        created_at: h.sandbox.clock.iso(),
      });
    const { order, answer } = await whileUnderWay(h, () => h.request('GET', '/__sandbox/partners'));
    expect(order).toEqual(['partner', 'control']);
    expect(answer.status).toBe(200);
    const partners = (answer.body as { partners: { parent_account_id: string; seeded: boolean }[] }).partners;
    // The fixtures' partners, the many, and the busy tenant made before the list began.
    const many = partners.filter((p) => p.parent_account_id.startsWith('pa_many_'));
    expect(many).toHaveLength(LISTED);
    expect(many[0]).toEqual({
      parent_account_id: 'pa_many_00000',
      name: 'Partner 0',
      client_id: 'client-many-0',
      seeded: false,
      accounts: [],
    });
    expect(partners.some((p) => p.parent_account_id.startsWith('pa_busy_'))).toBe(true);
  }, 120_000);
});
