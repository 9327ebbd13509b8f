/**
 * Partners' mappings and translated verticals are held once where equal (base/bounded-cache.ts,
 * docs/performance.md "A hosted partner's heap"): each partner still reads its own, through HTTP,
 * after another re-seeds the same IDs with other names, after the bounded tables fill and start
 * over, and the journal keeps each answer as it was sent.
 */
import { describe, expect, it } from 'vitest';
import { CONTROLS, createHarness, expectOk, type Harness, MAPPINGS, pair } from '../helpers/harness.js';
import { newTenant } from '../helpers/tenants.js';

// biome-ignore lint/suspicious/noExplicitAny: rows are asserted field by field
type Row = any;
const withoutTime = (rows: Row[]) => rows.map(({ created_at, ...m }: Row) => m);

async function seed(h: Harness, parent: string, rows: Row[]) {
  const res = await h.request('PUT', `/__sandbox/partners/${parent}/vertical-mappings`, {
    body: { vertical_mappings: rows },
  });
  expect(res.status).toBe(200);
  return res;
}

/** A mapping of `n` rows, every name new (3 a row): enough to fill the tables that share them. */
const manyRows = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({
    partner_vertical_id: 900 + Math.floor(i / 100),
    partner_vertical_name: `${tag} vertical ${900 + Math.floor(i / 100)}`,
    partner_sub_vertical_id: 900_000 + i,
    partner_sub_vertical_name: `${tag} sub ${i}`,
    vertical_name: `${tag} category ${i}`,
  }));

describe('mappings held once across partners', () => {
  it('two partners seeded alike each read their own names after one is re-seeded, and after the shared names start over', async () => {
    const h = createHarness();
    const a = await newTenant(h, 'shared_a');
    const b = await newTenant(h, 'shared_b');
    const aRows = expectOk(await a.client.get(MAPPINGS)).vertical_mappings;
    const bRows = expectOk(await b.client.get(MAPPINGS)).vertical_mappings;
    expect(aRows).toHaveLength(18);
    expect(withoutTime(bRows)).toEqual(withoutTime(aRows));

    const renamed = withoutTime(aRows).map((m: Row) => ({
      ...m,
      partner_vertical_name: `${m.partner_vertical_name} (b)`,
      partner_sub_vertical_name: `${m.partner_sub_vertical_name} (b)`,
      vertical_name: `${m.vertical_name} (b)`,
    }));
    const put = await seed(h, b.parent, renamed);
    expect(withoutTime(put.body.vertical_mappings)).toEqual(renamed);
    const aText = (await a.client.get(MAPPINGS)).text;
    expect(JSON.parse(aText).data.vertical_mappings).toEqual(aRows);
    expect(withoutTime(expectOk(await b.client.get(MAPPINGS)).vertical_mappings)).toEqual(renamed);

    // a third partner seeds 3,600 names never seen: the table of shared names (2,048) starts over
    const c = await newTenant(h, 'shared_c');
    const many = manyRows(1200, 'c');
    await seed(h, c.parent, many);
    expect(withoutTime(expectOk(await c.client.get(MAPPINGS)).vertical_mappings)).toEqual(many);
    // a's mapping read again from the store (re-seeded with the same rows), b's kept as it was
    await seed(h, a.parent, withoutTime(aRows));
    const again = expectOk(await a.client.get(MAPPINGS)).vertical_mappings;
    expect(withoutTime(again)).toEqual(withoutTime(aRows));
    expect(new Set(again.map((m: Row) => m.created_at)).size).toBe(1);
    expect(withoutTime(expectOk(await b.client.get(MAPPINGS)).vertical_mappings)).toEqual(renamed);
  });
});

describe('translated verticals held once across partners', () => {
  it("each account reads its own policies, and the journal keeps each answer's as sent", async () => {
    const h = createHarness({ bodyLimitBytes: 2 * 1024 * 1024 }); // for c's 5,018 rows
    const a = await newTenant(h, 'translated_a');
    const b = await newTenant(h, 'translated_b');
    const aId = await a.client.account();
    const bId = await b.client.account();
    const aBefore = expectOk(await a.client.get(CONTROLS(aId)));
    const bBefore = expectOk(await b.client.get(CONTROLS(bId)));
    expect(bBefore.translated_verticals).toEqual(aBefore.translated_verticals);
    const blockedBefore = aBefore.translated_verticals.filter((t: Row) => t.policy === 'Block');
    expect(blockedBefore.length).toBeGreaterThan(0);

    // b blocks one more pair and unblocks the preset's: a's answers do not move
    const put = await b.client.put(CONTROLS(bId), {
      contentHash: bBefore.marketplace_controls_list.content_hash,
      blockedVerticals: [pair(10, 1001)],
      domains: [],
    });
    expect(put.status).toBe(200);
    const bAfter = expectOk(await b.client.get(CONTROLS(bId))).translated_verticals;
    expect(bAfter.filter((t: Row) => t.policy === 'Block')).toEqual([
      { vertical_id: 1001, policy: 'Block', position_1_policy: 'Block' },
    ]);
    expect(expectOk(await a.client.get(CONTROLS(aId))).translated_verticals).toEqual(
      aBefore.translated_verticals,
    );

    // the journal's entry of b's first read still shows the policies it answered then
    const journal = await h.request('GET', `/__sandbox/requests?account_id=${bId}&method=GET`);
    const reads = journal.body.requests.map(
      (e: Row) => JSON.parse(e.response_body).data.translated_verticals,
    );
    expect(reads).toContainEqual(bBefore.translated_verticals);
    expect(reads).toContainEqual(bAfter);

    // a partner with 5,000 sub-vertical IDs of its own: the shared entries (4,096 IDs) start over
    const c = await newTenant(h, 'translated_c');
    const demo = withoutTime(expectOk(await a.client.get(MAPPINGS)).vertical_mappings);
    await seed(h, c.parent, [...demo, ...manyRows(5000, 'tc')]);
    const cId = await c.client.account();
    const cRead = expectOk(await c.client.get(CONTROLS(cId))).translated_verticals;
    expect(cRead).toHaveLength(5018);
    expect(cRead.slice(0, 18)).toEqual(aBefore.translated_verticals);
    expect(cRead.slice(18)).toEqual(
      Array.from({ length: 5000 }, (_, i) => ({
        vertical_id: 900_000 + i,
        policy: 'Allow',
        position_1_policy: 'Allow',
      })),
    );
    expect(expectOk(await a.client.get(CONTROLS(aId))).translated_verticals).toEqual(
      aBefore.translated_verticals,
    );
    expect(expectOk(await b.client.get(CONTROLS(bId))).translated_verticals).toEqual(bAfter);
  });
});
