/**
 * Marketplace controls (spec §2.4, §2.5, §4 rules 2-5, §7; docs/api.md#idempotency, docs/where-the-spec-is-silent.md), through HTTP.
 */
import { describe, expect, it } from 'vitest';
import {
  EDGE_WHITESPACE_MESSAGE,
  mappingNotSeededMessage,
  STALE_CONTENT_HASH_MESSAGE,
  UNMAPPED_PAIRS_PREFIX,
  UNMAPPED_PAIRS_SUFFIX,
  unmappedPairsEmptyMappingMessage,
  unmappedPairsMessage,
} from '../../src/contract/api/messages.js';
import {
  blockedSubs,
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  MAPPINGS,
  pair,
  type Reply,
  UNSEEDED,
} from '../helpers/harness.js';

const UUID_LIKE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** fixtures/preset.json resolved to the demo partner's sub-verticals. */
const PRESET_BLOCKED = [4002, 4003, 5003];
/** Every sub-vertical of fixtures/taxonomy.json. */
const ALL_SUBS = [
  1001, 1002, 1003, 1004, 2001, 2002, 2003, 2004, 3001, 3002, 3003, 4001, 4002, 4003, 4004, 5001, 5002, 5003,
];

// biome-ignore lint/suspicious/noExplicitAny: response data is asserted field by field
type Data = any;

async function setup() {
  const h = createHarness();
  const partner = await h.client();
  const accountId = await partner.account();
  const read = async () => expectOk(await partner.get(CONTROLS(accountId)));
  const put = (body: unknown, headers: Record<string, string> = {}, query = '') =>
    partner.put(`${CONTROLS(accountId)}${query}`, body, headers);
  return { h, partner, accountId, read, put };
}

function fields(res: Reply): { field: string; message: string }[] {
  return res.body.error.details.fields;
}

function expectValidation(res: Reply, field: string, message?: RegExp) {
  const body = expectErrorEnvelope(res, 400, 'validation_error');
  const named = fields(res).filter((f) => f.field === field);
  expect(named, `fields: ${JSON.stringify(fields(res))}`).not.toHaveLength(0);
  expect(body.message).toContain(field);
  if (message) expect(named.map((f) => f.message).join(' | ')).toMatch(message);
  return body;
}

describe('controls GET (spec §2.4)', () => {
  it('repeated reads send the same data, each in its own envelope; a mapping replaced between reads is reflected at once', async () => {
    const { h, read, partner, accountId } = await setup();
    const first = await partner.get(CONTROLS(accountId));
    const second = await partner.get(CONTROLS(accountId));
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.request_id).not.toBe(first.body.request_id);
    expect(second.headers.get('x-request-id')).toBe(second.body.request_id);
    expect(second.text).toBe(first.text.replace(first.body.request_id, second.body.request_id));
    expect(blockedSubs(first.body.data)).toEqual(PRESET_BLOCKED);

    // The partner's taxonomy changes: Casino is now their sub-vertical 9001.
    const replaced = await h.request('PUT', '/__sandbox/partners/pa_demo_platform/vertical-mappings', {
      body: {
        vertical_mappings: [
          {
            partner_vertical_id: 90,
            partner_vertical_name: 'Games of chance',
            partner_sub_vertical_id: 9001,
            partner_sub_vertical_name: 'Casino',
            vertical_name: 'Gambling > Casino',
          },
        ],
      },
    });
    expect(replaced.status).toBe(200);
    const after = await read();
    expect(after.translated_verticals).toEqual([
      { vertical_id: 9001, policy: 'Block', position_1_policy: 'Block' },
    ]);
    expect(after.marketplace_controls_list).toEqual(first.body.data.marketplace_controls_list);
  });

  it('GET: data has account_id, marketplace_controls_list{UUID-like id, domains, string content_hash} and translated_verticals', async () => {
    const { accountId, read } = await setup();
    const data = await read();
    expect(data.account_id).toBe(accountId);
    expect(data.marketplace_controls_list.marketplace_controls_list_id).toMatch(UUID_LIKE);
    expect(data.marketplace_controls_list.domains).toEqual([]);
    expect(typeof data.marketplace_controls_list.content_hash).toBe('string');
    expect(data.marketplace_controls_list.content_hash.length).toBeGreaterThan(0);
    for (const t of data.translated_verticals) {
      expect(Object.keys(t).sort()).toEqual(['policy', 'position_1_policy', 'vertical_id']);
      expect(Number.isInteger(t.vertical_id)).toBe(true);
      expect(['Block', 'Allow']).toContain(t.policy);
      expect(['Block', 'Allow']).toContain(t.position_1_policy);
    }
  });

  it('GET: translated_verticals has one entry per mapped sub-vertical, vertical_id being the partner SUB-vertical ID', async () => {
    const { partner, read } = await setup();
    const mappings = expectOk(await partner.get(MAPPINGS)).vertical_mappings;
    const data = await read();
    const ids = data.translated_verticals
      .map((t: Data) => t.vertical_id)
      .sort((a: number, b: number) => a - b);
    expect(ids).toEqual(
      mappings.map((m: Data) => m.partner_sub_vertical_id).sort((a: number, b: number) => a - b),
    );
    expect(ids).toEqual(ALL_SUBS);
    expect(ids).toContain(1001);
    expect(ids).not.toContain(10);
  });

  it('GET: no internal vertical_name appears anywhere in the response', async () => {
    const { partner, accountId } = await setup();
    const mappings = expectOk(await partner.get(MAPPINGS)).vertical_mappings;
    const res = await partner.get(CONTROLS(accountId));
    expectOk(res);
    expect(mappings.length).toBe(18);
    for (const m of mappings) expect(res.text).not.toContain(m.vertical_name);
  });

  it('GET: a fresh account shows the preset blocks (4002, 4003, 5003) and nothing else', async () => {
    const { read } = await setup();
    const data = await read();
    expect(blockedSubs(data)).toEqual(PRESET_BLOCKED);
    const casino = data.translated_verticals.find((t: Data) => t.vertical_id === 4002);
    expect(casino).toEqual({ vertical_id: 4002, policy: 'Block', position_1_policy: 'Block' });
    const womens = data.translated_verticals.find((t: Data) => t.vertical_id === 1001);
    expect(womens).toEqual({ vertical_id: 1001, policy: 'Allow', position_1_policy: 'Allow' });
  });
});

describe('controls PUT: replace semantics (spec §2.5, §3)', () => {
  it('PUT replaces: a second PUT with a different set leaves only the new set blocked; omitted becomes Allow', async () => {
    const { read, put } = await setup();
    const first = expectOk(
      await put({
        blockedVerticals: [pair(10, 1001), pair(20, 2001)],
        domains: [{ domain: 'a.example.com' }],
        contentHash: null,
      }),
    );
    expect(blockedSubs(first)).toEqual([1001, 2001]);
    const second = expectOk(
      await put({
        blockedVerticals: [pair(30, 3001)],
        domains: [{ domain: 'b.example.com' }],
        contentHash: first.marketplace_controls_list.content_hash,
      }),
    );
    expect(blockedSubs(second)).toEqual([3001]);
    const data = await read();
    expect(blockedSubs(data)).toEqual([3001]);
    expect(data.marketplace_controls_list.domains).toEqual([{ domain: 'b.example.com', policy: 'Block' }]);
    for (const id of [1001, 2001, 4002]) {
      expect(data.translated_verticals.find((t: Data) => t.vertical_id === id)).toEqual({
        vertical_id: id,
        policy: 'Allow',
        position_1_policy: 'Allow',
      });
    }
  });

  it('PUT: blockedVerticals [] with domains [] clears all blocks', async () => {
    const { read, put } = await setup();
    const first = expectOk(
      await put({
        blockedVerticals: [pair(10, 1001)],
        domains: [{ domain: 'x.example.com' }],
        contentHash: null,
      }),
    );
    const cleared = expectOk(
      await put({
        blockedVerticals: [],
        domains: [],
        contentHash: first.marketplace_controls_list.content_hash,
      }),
    );
    expect(blockedSubs(cleared)).toEqual([]);
    const data = await read();
    expect(blockedSubs(data)).toEqual([]);
    expect(data.translated_verticals).toHaveLength(ALL_SUBS.length);
    expect(data.translated_verticals.every((t: Data) => t.position_1_policy === 'Allow')).toBe(true);
    expect(data.marketplace_controls_list.domains).toEqual([]);
  });

  it('PUT: the response carries a fresh content_hash, different from the previous one, and GET shows it', async () => {
    const { read, put } = await setup();
    const before = (await read()).marketplace_controls_list.content_hash;
    const first = expectOk(await put({ blockedVerticals: [], domains: [], contentHash: null }));
    const h1 = first.marketplace_controls_list.content_hash;
    expect(typeof h1).toBe('string');
    expect(h1).not.toBe(before);
    // The same content again still issues a new hash (every accepted PUT does).
    const second = expectOk(await put({ blockedVerticals: [], domains: [], contentHash: h1 }));
    const h2 = second.marketplace_controls_list.content_hash;
    expect(h2).not.toBe(h1);
    expect((await read()).marketplace_controls_list.content_hash).toBe(h2);
  });

  it('PUT: domains come back as {domain, policy: "Block"}, lower-cased', async () => {
    const { read, put } = await setup();
    const data = expectOk(
      await put({
        blockedVerticals: [],
        domains: [{ domain: 'Shop.Example.COM' }, { domain: 'other.example.org', policy: 'Block' }],
        contentHash: null,
      }),
    );
    const expected = [
      { domain: 'shop.example.com', policy: 'Block' },
      { domain: 'other.example.org', policy: 'Block' },
    ];
    expect(data.marketplace_controls_list.domains).toEqual(expected);
    expect((await read()).marketplace_controls_list.domains).toEqual(expected);
  });
});

describe('controls PUT: taxonomy translation (spec §4 rule 2, §7)', () => {
  it('PUT: every unmapped pair is named, the message is unmappedPairsMessage, and nothing is applied', async () => {
    const { read, put } = await setup();
    const before = await read();
    const res = await put({
      blockedVerticals: [pair(10, 1001), pair(10, 9999), pair(99, 9901)],
      domains: [{ domain: 'new.example.com' }],
      contentHash: null,
    });
    const body = expectErrorEnvelope(res, 400, 'vertical_not_mapped');
    const unmapped = [pair(10, 9999), pair(99, 9901)];
    expect(body.message).toBe(unmappedPairsMessage(unmapped));
    expect(body.message.startsWith(UNMAPPED_PAIRS_PREFIX)).toBe(true);
    expect(body.message).toContain(UNMAPPED_PAIRS_SUFFIX);
    expect(body.message).toContain('partnerSubVerticalId=9999');
    expect(body.message).toContain('partnerSubVerticalId=9901');
    expect(body.message).not.toContain('partnerSubVerticalId=1001');
    expect(body.error.details.unmapped_pairs).toEqual(unmapped);
    const after = await read();
    expect(after.marketplace_controls_list.content_hash).toBe(before.marketplace_controls_list.content_hash);
    expect(blockedSubs(after)).toEqual(PRESET_BLOCKED);
    expect(after.marketplace_controls_list.domains).toEqual([]);
  });

  it('PUT: a sub-vertical paired with the wrong parent vertical (20/1001) is unmapped', async () => {
    const { read, put } = await setup();
    const res = await put({ blockedVerticals: [pair(20, 1001)], domains: [], contentHash: null });
    const body = expectErrorEnvelope(res, 400, 'vertical_not_mapped');
    expect(body.message).toBe(unmappedPairsMessage([pair(20, 1001)]));
    expect(body.error.details.unmapped_pairs).toEqual([pair(20, 1001)]);
    expect(blockedSubs(await read())).toEqual(PRESET_BLOCKED);
  });

  /** An account of UNSEEDED registered while its mapping was seeded, then un-seeded. */
  async function unseededAccount() {
    const h = createHarness();
    const seed = await h.request('PUT', `/__sandbox/partners/${UNSEEDED.parent}/vertical-mappings`, {
      body: {
        vertical_mappings: [
          {
            partner_vertical_id: 10,
            partner_vertical_name: 'Apparel',
            partner_sub_vertical_id: 1001,
            partner_sub_vertical_name: "Women's Clothing",
            vertical_name: 'Apparel > Womenswear',
          },
        ],
      },
    });
    expect(seed.status).toBe(200);
    const partner = await h.client(UNSEEDED);
    const accountId = await partner.account();
    const unseed = await h.request('DELETE', `/__sandbox/partners/${UNSEEDED.parent}/vertical-mappings`);
    expect(unseed.status).toBe(200);
    expect(expectOk(await partner.get(MAPPINGS)).vertical_mappings).toEqual([]);
    const stored = async () => (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.controls;
    return { h, partner, accountId, stored };
  }

  it('PUT: an unseeded parent gets the spec §7 message naming every pair (all unmapped), then the not-seeded note', async () => {
    const { partner, accountId, stored } = await unseededAccount();
    const before = await stored();
    // 10/1001 was mapped before the un-seeding: now it is unmapped like the others
    const pairs = [pair(10, 1001), pair(20, 2002), pair(99, 9901)];
    const res = await partner.put(CONTROLS(accountId), {
      blockedVerticals: pairs,
      domains: [{ domain: 'new.example.com' }],
      contentHash: null,
    });
    const body = expectErrorEnvelope(res, 400, 'vertical_mapping_not_seeded');
    expect(body.message).toBe(unmappedPairsEmptyMappingMessage(pairs, UNSEEDED.parent));
    expect(body.message.startsWith(`${UNMAPPED_PAIRS_PREFIX}: `)).toBe(true);
    expect(body.message).toContain(unmappedPairsMessage(pairs));
    expect(body.message).toContain(UNMAPPED_PAIRS_SUFFIX);
    expect(body.message.endsWith(mappingNotSeededMessage(UNSEEDED.parent))).toBe(true);
    expect(body.error.details).toEqual({ parent_account_id: UNSEEDED.parent, unmapped_pairs: pairs });
    expect(await stored()).toEqual(before);
  });

  it('PUT: an unseeded parent with blockedVerticals [] is still 400 (spec §1.2), with the not-seeded message alone', async () => {
    const { partner, accountId, stored } = await unseededAccount();
    const res = await partner.put(CONTROLS(accountId), {
      blockedVerticals: [],
      domains: [],
      contentHash: null,
    });
    const body = expectErrorEnvelope(res, 400, 'vertical_mapping_not_seeded');
    expect(body.message).toBe(mappingNotSeededMessage(UNSEEDED.parent));
    expect(body.error.details).toEqual({ parent_account_id: UNSEEDED.parent, unmapped_pairs: [] });
    const detail = await stored();
    expect(detail.version).toBe(0);
    expect(detail.domains).toEqual([]);
  });

  it('PUT: the unseeded-mappings scenario on a seeded parent names every pair the same way, dry run too', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const pairs = [pair(10, 1001), pair(40, 4002)];
    const res = await partner.put(
      `${CONTROLS(accountId)}?dry_run=true`,
      { blockedVerticals: pairs, domains: [], contentHash: null },
      { 'X-Sandbox-Scenario': 'unseeded-mappings' },
    );
    const body = expectErrorEnvelope(res, 400, 'vertical_mapping_not_seeded');
    expect(body.message).toBe(unmappedPairsEmptyMappingMessage(pairs, DEMO.parent));
    expect(body.error.details.unmapped_pairs).toEqual(pairs);
    expect(body.dry_run).toBe(true);
  });
});

describe('controls PUT: contentHash (spec §4 rule 3, docs/where-the-spec-is-silent.md)', () => {
  it('contentHash: null is accepted on the first write to a fresh account', async () => {
    const { read, put } = await setup();
    const data = expectOk(await put({ blockedVerticals: [pair(10, 1001)], domains: [], contentHash: null }));
    expect(blockedSubs(data)).toEqual([1001]);
    expect(blockedSubs(await read())).toEqual([1001]);
  });

  it('contentHash: the hash a GET showed is accepted on the first write', async () => {
    const { read, put } = await setup();
    const hash = (await read()).marketplace_controls_list.content_hash;
    const data = expectOk(await put({ blockedVerticals: [pair(20, 2001)], domains: [], contentHash: hash }));
    expect(blockedSubs(data)).toEqual([2001]);
    expect(blockedSubs(await read())).toEqual([2001]);
  });

  it('contentHash: after an accepted write, null and the old hash are 409 content_hash_mismatch, nothing applied; re-read and retry succeeds', async () => {
    const { read, put } = await setup();
    const original = (await read()).marketplace_controls_list.content_hash;
    const written = expectOk(
      await put({
        blockedVerticals: [pair(10, 1001)],
        domains: [{ domain: 'a.example.com' }],
        contentHash: null,
      }),
    );
    const current = written.marketplace_controls_list.content_hash;

    const change = { blockedVerticals: [pair(30, 3001)], domains: [{ domain: 'b.example.com' }] };
    const withNull = await put({ ...change, contentHash: null });
    expect(expectErrorEnvelope(withNull, 409, 'content_hash_mismatch').message).toBe(
      STALE_CONTENT_HASH_MESSAGE,
    );
    const withOld = await put({ ...change, contentHash: original });
    expect(expectErrorEnvelope(withOld, 409, 'content_hash_mismatch').message).toBe(
      STALE_CONTENT_HASH_MESSAGE,
    );

    const unchanged = await read();
    expect(unchanged.marketplace_controls_list.content_hash).toBe(current);
    expect(blockedSubs(unchanged)).toEqual([1001]);
    expect(unchanged.marketplace_controls_list.domains).toEqual([
      { domain: 'a.example.com', policy: 'Block' },
    ]);

    const retried = expectOk(
      await put({ ...change, contentHash: unchanged.marketplace_controls_list.content_hash }),
    );
    expect(blockedSubs(retried)).toEqual([3001]);
    const after = await read();
    expect(blockedSubs(after)).toEqual([3001]);
    expect(after.marketplace_controls_list.content_hash).toBe(retried.marketplace_controls_list.content_hash);
  });
});

describe('controls PUT: body strictness (spec §2.5)', () => {
  it.each([
    [
      'blocked_verticals',
      { blocked_verticals: [], blockedVerticals: [], domains: [], contentHash: null },
      'blocked_verticals',
      'blockedVerticals',
    ],
    [
      'content_hash',
      { blockedVerticals: [], domains: [], contentHash: null, content_hash: null },
      'content_hash',
      'contentHash',
    ],
    [
      'partner_vertical_id',
      {
        blockedVerticals: [{ partner_vertical_id: 10, partnerVerticalId: 10, partnerSubVerticalId: 1001 }],
        domains: [],
        contentHash: null,
      },
      'blockedVerticals[0].partner_vertical_id',
      'partnerVerticalId',
    ],
  ])('body: snake_case %s is 400 naming the camelCase field', async (_name, body, field, camel) => {
    const { read, put } = await setup();
    const res = await put(body);
    const err = expectValidation(res, field, new RegExp(`did you mean "${camel}"`));
    expect(err.message).toContain(camel);
    expect(blockedSubs(await read())).toEqual(PRESET_BLOCKED);
  });

  it('body: snake_case instead of camelCase (blocked_verticals only) is 400 naming blockedVerticals', async () => {
    const { put } = await setup();
    const res = await put({ blocked_verticals: [], domains: [], contentHash: null });
    const err = expectValidation(res, 'blocked_verticals', /did you mean "blockedVerticals"/);
    expect(fields(res).map((f) => f.field)).toContain('blockedVerticals');
    expect(err.message).toContain('blockedVerticals');
  });

  it('body: an unknown field is 400 naming it', async () => {
    const { put } = await setup();
    const res = await put({ blockedVerticals: [], domains: [], contentHash: null, colour: 'blue' });
    expectValidation(res, 'colour', /unknown field/);
  });

  it.each([
    ['blockedVerticals', { domains: [], contentHash: null }],
    ['domains', { blockedVerticals: [], contentHash: null }],
    ['contentHash', { blockedVerticals: [], domains: [] }],
  ])('body: missing %s is 400 naming it', async (field, body) => {
    const { read, put } = await setup();
    const before = (await read()).marketplace_controls_list.content_hash;
    expectValidation(await put(body), field, /required/);
    expect((await read()).marketplace_controls_list.content_hash).toBe(before);
  });

  it('body: policy "Allow" on a blocked vertical is 400', async () => {
    const { put } = await setup();
    const res = await put({
      blockedVerticals: [{ ...pair(10, 1001), policy: 'Allow' }],
      domains: [],
      contentHash: null,
    });
    expectValidation(res, 'blockedVerticals[0].policy', /"Block"/);
  });

  it('body: policy "Allow" on a domain is 400', async () => {
    const { put } = await setup();
    const res = await put({
      blockedVerticals: [],
      domains: [{ domain: 'a.example.com', policy: 'Allow' }],
      contentHash: null,
    });
    expectValidation(res, 'domains[0].policy', /"Block"/);
  });

  it('body: position1Policy "Allow" is 400', async () => {
    const { put } = await setup();
    const res = await put({
      blockedVerticals: [{ ...pair(10, 1001), position1Policy: 'Allow' }],
      domains: [],
      contentHash: null,
    });
    expectValidation(res, 'blockedVerticals[0].position1Policy', /"Block"/);
  });

  it('body: a duplicate pair is 400', async () => {
    const { read, put } = await setup();
    const res = await put({
      blockedVerticals: [pair(10, 1001), pair(10, 1001)],
      domains: [],
      contentHash: null,
    });
    expectValidation(res, 'blockedVerticals[1]', /duplicate/);
    expect(blockedSubs(await read())).toEqual(PRESET_BLOCKED);
  });

  it('body: a duplicate domain (case-insensitive) is 400', async () => {
    const { read, put } = await setup();
    const res = await put({
      blockedVerticals: [],
      domains: [{ domain: 'shop.example.com' }, { domain: 'SHOP.Example.com' }],
      contentHash: null,
    });
    expectValidation(res, 'domains[1].domain', /duplicate/);
    expect((await read()).marketplace_controls_list.domains).toEqual([]);
  });

  it.each([
    ['with a scheme', 'https://shop.example.com'],
    ['with a path', 'shop.example.com/checkout'],
    ['with a port', 'shop.example.com:8080'],
    ['with spaces', 'shop example.com'],
    ['empty', ''],
  ])('body: a domain %s is 400 naming domains[i].domain', async (_what, domain) => {
    const { read, put } = await setup();
    const res = await put({
      blockedVerticals: [],
      domains: [{ domain: 'ok.example.com' }, { domain }],
      contentHash: null,
    });
    expectValidation(res, 'domains[1].domain');
    expect((await read()).marketplace_controls_list.domains).toEqual([]);
  });

  it('body: a blocked vertical without partnerSubVerticalId is 400', async () => {
    const { put } = await setup();
    const res = await put({ blockedVerticals: [{ partnerVerticalId: 10 }], domains: [], contentHash: null });
    expectValidation(res, 'blockedVerticals[0].partnerSubVerticalId', /required/);
  });

  it.each([
    [
      'a string partnerVerticalId',
      { partnerVerticalId: '10', partnerSubVerticalId: 1001 },
      'partnerVerticalId',
    ],
    [
      'a fractional partnerSubVerticalId',
      { partnerVerticalId: 10, partnerSubVerticalId: 1001.5 },
      'partnerSubVerticalId',
    ],
  ])('body: non-integer IDs (%s) are 400', async (_what, entry, field) => {
    const { put } = await setup();
    const res = await put({ blockedVerticals: [entry], domains: [], contentHash: null });
    expectValidation(res, `blockedVerticals[0].${field}`);
  });
});

describe('controls PUT: dry_run (spec §1.5, §4 endpoint 4)', () => {
  it('dry_run=true: 200 with dry_run:true, data shows what would be written, GET unchanged', async () => {
    const { read, put } = await setup();
    const before = await read();
    const res = await put(
      { blockedVerticals: [pair(10, 1001)], domains: [{ domain: 'Dry.Example.com' }], contentHash: null },
      {},
      '?dry_run=true',
    );
    const data = expectOk(res);
    expect(res.body.dry_run).toBe(true);
    expect(blockedSubs(data)).toEqual([1001]);
    expect(data.marketplace_controls_list.domains).toEqual([{ domain: 'dry.example.com', policy: 'Block' }]);
    expect(data.marketplace_controls_list.content_hash).not.toBe(
      before.marketplace_controls_list.content_hash,
    );
    const after = await read();
    expect(after).toEqual(before);
    expect(blockedSubs(after)).toEqual(PRESET_BLOCKED);
  });

  it('dry_run=true: an unmapped pair is the same 400 as a real write', async () => {
    const { read, put } = await setup();
    const before = await read();
    const res = await put(
      { blockedVerticals: [pair(10, 9999)], domains: [], contentHash: null },
      {},
      '?dry_run=true',
    );
    const body = expectErrorEnvelope(res, 400, 'vertical_not_mapped');
    expect(body.message).toBe(unmappedPairsMessage([pair(10, 9999)]));
    expect(await read()).toEqual(before);
  });

  it('dry_run=true: a stale contentHash is the same 409 as a real write', async () => {
    const { read, put } = await setup();
    expectOk(await put({ blockedVerticals: [], domains: [], contentHash: null }));
    const before = await read();
    const res = await put(
      { blockedVerticals: [pair(10, 1001)], domains: [], contentHash: null },
      {},
      '?dry_run=true',
    );
    expect(expectErrorEnvelope(res, 409, 'content_hash_mismatch').message).toBe(STALE_CONTENT_HASH_MESSAGE);
    expect(await read()).toEqual(before);
  });

  it('dry_run=maybe is 400 naming dry_run', async () => {
    const { read, put } = await setup();
    const before = await read();
    const res = await put({ blockedVerticals: [], domains: [], contentHash: null }, {}, '?dry_run=maybe');
    const body = expectErrorEnvelope(res, 400, 'validation_error');
    expect(body.message).toContain('dry_run');
    expect(fields(res).some((f) => f.field.includes('dry_run'))).toBe(true);
    expect(await read()).toEqual(before);
  });
});

describe('controls: the add-one-vertical recipe (spec §4 rule 5)', () => {
  it('recipe: GET, rebuild blockedVerticals from translated_verticals Block entries via the mapping, add 1001, keep domains, pass content_hash -> previous blocks plus 1001', async () => {
    const { partner, read, put } = await setup();
    // Start from a list that is not just the preset: preset plus 2002, and two domains.
    expectOk(
      await put({
        blockedVerticals: [pair(40, 4002), pair(40, 4003), pair(50, 5003), pair(20, 2002)],
        domains: [{ domain: 'a.example.com' }, { domain: 'b.example.com' }],
        contentHash: null,
      }),
    );

    const current = await read();
    const previous = blockedSubs(current);
    expect(previous).toEqual([2002, 4002, 4003, 5003]);
    const mappings = expectOk(await partner.get(MAPPINGS)).vertical_mappings;
    const parentOf = new Map<number, number>(
      mappings.map((m: Data) => [m.partner_sub_vertical_id, m.partner_vertical_id]),
    );
    const blockedVerticals = current.translated_verticals
      .filter((t: Data) => t.policy === 'Block')
      .map((t: Data) => ({
        partnerVerticalId: parentOf.get(t.vertical_id)!,
        partnerSubVerticalId: t.vertical_id,
        policy: 'Block',
        position1Policy: t.position_1_policy,
      }));
    blockedVerticals.push({
      partnerVerticalId: 10,
      partnerSubVerticalId: 1001,
      policy: 'Block',
      position1Policy: 'Block',
    });
    const res = await put({
      blockedVerticals,
      domains: current.marketplace_controls_list.domains,
      contentHash: current.marketplace_controls_list.content_hash,
    });
    expectOk(res);

    const after = await read();
    expect(blockedSubs(after)).toEqual([1001, ...previous]);
    expect(after.marketplace_controls_list.domains).toEqual([
      { domain: 'a.example.com', policy: 'Block' },
      { domain: 'b.example.com', policy: 'Block' },
    ]);
    expect(after.marketplace_controls_list.content_hash).not.toBe(
      current.marketplace_controls_list.content_hash,
    );
  });
});

describe('controls PUT: name is taken exactly as sent', () => {
  it('PUT: a name with whitespace at either end is 400 (never trimmed); inner spaces are kept as sent', async () => {
    const { h, accountId, put } = await setup();
    for (const name of ['Spring list ', ' Spring list']) {
      const res = await put({ name, blockedVerticals: [], domains: [], contentHash: null });
      expectValidation(res, 'name');
      expect(fields(res)).toEqual([{ field: 'name', message: EDGE_WHITESPACE_MESSAGE }]);
    }
    expectOk(await put({ name: 'Spring  list', blockedVerticals: [], domains: [], contentHash: null }));
    const stored = await h.request('GET', `/__sandbox/accounts/${accountId}`);
    expect(stored.body.controls.name).toBe('Spring  list');
  });
});
