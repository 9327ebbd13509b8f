/**
 * Rows of docs/where-the-spec-is-silent.md that no other file tested through HTTP: the
 * vertical-mappings query, a repeated external_account_id with a body that fails, a real
 * write's key sent again as a dry run, the order of lists in answers, the controls list's
 * ID across PUTs, the size limits of fields, and request_id against X-Request-Id on a replay.
 */
import { describe, expect, it } from 'vitest';
import { limits } from '../../src/contract/api/fields.js';
import {
  CONTROLS,
  createHarness,
  expectErrorEnvelope,
  expectOk,
  MAPPINGS,
  pair,
  REGISTER,
  registerBody,
  STATUS,
  UNSEEDED,
} from '../helpers/harness.js';

describe('where the spec is silent: the choices, through HTTP', () => {
  it("the vertical-mappings query's parent_account_id is optional: without it, the token's parent; another parent is 403", async () => {
    const h = createHarness();
    const partner = await h.client();
    const without = expectOk(await partner.get(MAPPINGS));
    const named = expectOk(await partner.get(`${MAPPINGS}?parent_account_id=${partner.parent}`));
    expect(without.vertical_mappings.length).toBeGreaterThan(0);
    expect(without).toEqual(named);
    const other = await partner.get(`${MAPPINGS}?parent_account_id=${UNSEEDED.parent}`);
    expectErrorEnvelope(other, 403, 'forbidden');
  });

  it('a repeated external_account_id is validated first: an unmapped pair is 400, a valid different body 200 with the existing account', async () => {
    const h = createHarness();
    const partner = await h.client();
    const first = registerBody({ external_account_id: 'repeat-me' });
    const accountId = expectOk(await partner.call('POST', REGISTER, { body: first })).account_id;

    const unmapped = await partner.call('POST', REGISTER, {
      body: { ...first, vertical_id: 99, sub_vertical_id: 9999 },
    });
    expectErrorEnvelope(unmapped, 400, 'vertical_not_mapped');
    const badUrl = await partner.call('POST', REGISTER, {
      body: { ...first, store_identifier: 'acme.example.com' },
    });
    expectErrorEnvelope(badUrl, 400, 'validation_error');

    const renamed = await partner.call('POST', REGISTER, { body: { ...first, brand: 'Another Brand' } });
    expect(expectOk(renamed).account_id).toBe(accountId);
    expect(renamed.headers.get('x-sandbox-warning')).toContain('brand');
  });

  it("a real write's key sent again with ?dry_run=true replays the stored answer, without dry_run; strict mode refuses it", async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const key = { 'Idempotency-Key': 'real-then-dry' };
    const real = await partner.put(STATUS(accountId), { status: 'paused' }, key);
    expectOk(real);
    const again = await partner.put(`${STATUS(accountId)}?dry_run=true`, { status: 'paused' }, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(real.body);
    expect('dry_run' in again.body).toBe(false);
    expect(again.headers.get('x-sandbox-warning')).toBeTruthy();

    const strict = createHarness({ strictIdempotency: true });
    const p2 = await strict.client();
    const id2 = await p2.account();
    expectOk(await p2.put(STATUS(id2), { status: 'paused' }, key));
    const refused = await p2.put(`${STATUS(id2)}?dry_run=true`, { status: 'paused' }, key);
    expectErrorEnvelope(refused, 422, 'idempotency_key_reused');
    expect(refused.body.dry_run).toBe(true);
  });

  it('lists come in a stable order: mappings and translated_verticals by partner IDs, domains, pages and variants as sent or created', async () => {
    const h = createHarness();
    const partner = await h.client();
    const mappings = expectOk(await partner.get(MAPPINGS)).vertical_mappings as {
      partner_vertical_id: number;
      partner_sub_vertical_id: number;
    }[];
    const ids = mappings.map((m) => [m.partner_vertical_id, m.partner_sub_vertical_id] as const);
    const sorted = [...ids].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(ids).toEqual(sorted);

    const reg = expectOk(
      await partner.call('POST', REGISTER, {
        body: registerBody({
          pages: [
            { surface: 'tracking', layout_type: 'Embedded' },
            { surface: 'confirmation', layout_type: 'Overlay' },
            { surface: 'returns', layout_type: 'Embedded' },
          ],
        }),
      }),
    );
    expect(reg.pages.map((p: { surface: string }) => p.surface)).toEqual([
      'tracking',
      'confirmation',
      'returns',
    ]);
    const status = expectOk(await partner.get(STATUS(reg.account_id)));
    expect(status.variants.map((v: { page_id: string }) => v.page_id)).toEqual(
      reg.pages.map((p: { page_id: string }) => p.page_id),
    );

    const read = expectOk(await partner.get(CONTROLS(reg.account_id)));
    expect(read.translated_verticals.map((t: { vertical_id: number }) => t.vertical_id)).toEqual(
      mappings.map((m) => m.partner_sub_vertical_id),
    );
    const put = expectOk(
      await partner.put(CONTROLS(reg.account_id), {
        blockedVerticals: [pair(10, 1002), pair(10, 1001)],
        domains: [
          { domain: 'Zeta.example', policy: 'Block' },
          { domain: 'alpha.example', policy: 'Block' },
        ],
        contentHash: read.marketplace_controls_list.content_hash,
      }),
    );
    expect(put.marketplace_controls_list.domains.map((d: { domain: string }) => d.domain)).toEqual([
      'zeta.example',
      'alpha.example',
    ]);
    expect(put.translated_verticals.map((t: { vertical_id: number }) => t.vertical_id)).toEqual(
      mappings.map((m) => m.partner_sub_vertical_id),
    );
  });

  it('marketplace_controls_list_id is kept across PUTs; content_hash changes on each', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const read = expectOk(await partner.get(CONTROLS(accountId)));
    const listId = read.marketplace_controls_list.marketplace_controls_list_id;
    let hash = read.marketplace_controls_list.content_hash;
    for (let i = 0; i < 2; i++) {
      const put = expectOk(
        await partner.put(CONTROLS(accountId), { blockedVerticals: [], domains: [], contentHash: hash }),
      );
      expect(put.marketplace_controls_list.marketplace_controls_list_id).toBe(listId);
      expect(put.marketplace_controls_list.content_hash).not.toBe(hash);
      hash = put.marketplace_controls_list.content_hash;
    }
  });

  it('size limits: pages, string fields and IDs are 400 naming the field past their bound, nothing written', async () => {
    const h = createHarness();
    const partner = await h.client();
    const cases: [Record<string, unknown>, string, string][] = [
      [
        {
          pages: Array.from({ length: limits.pagesMax + 1 }, () => ({
            surface: 'tracking',
            layout_type: 'Overlay',
          })),
        },
        'pages',
        `must have at most ${limits.pagesMax} entries`,
      ],
      [
        { brand: 'b'.repeat(limits.stringMax + 1) },
        'brand',
        `must be at most ${limits.stringMax} characters`,
      ],
      [
        { external_account_id: 'e'.repeat(limits.idMax + 1) },
        'external_account_id',
        `must be at most ${limits.idMax} characters`,
      ],
      [
        { store_identifier: `https://${'s'.repeat(limits.storeIdentifierMax)}.example` },
        'store_identifier',
        `must be ${limits.storeIdentifierMin} to ${limits.storeIdentifierMax} characters`,
      ],
    ];
    for (const [override, field, message] of cases) {
      const res = await partner.call('POST', REGISTER, { body: registerBody(override) });
      const body = expectErrorEnvelope(res, 400, 'validation_error');
      expect(body.error.details.fields).toContainEqual({ field, message });
    }
    // At the bounds themselves, a register goes through.
    expectOk(
      await partner.call('POST', REGISTER, {
        body: registerBody({
          brand: 'b'.repeat(limits.stringMax),
          external_account_id: 'e'.repeat(limits.idMax),
        }),
      }),
    );
    const accounts = (await h.request('GET', '/__sandbox/partners')).body.partners.find(
      (p: { parent_account_id: string }) => p.parent_account_id === partner.parent,
    ).accounts;
    expect(accounts).toHaveLength(1);
  });

  it("a replay keeps the first execution's request_id in the body; X-Request-Id names this request, as the journal does", async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const key = { 'Idempotency-Key': 'replay-ids' };
    const first = await partner.put(STATUS(accountId), { status: 'paused' }, key);
    expect(first.headers.get('x-request-id')).toBe(first.body.request_id);
    const replay = await partner.put(STATUS(accountId), { status: 'paused' }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.request_id).toBe(first.body.request_id);
    const own = replay.headers.get('x-request-id');
    expect(own).not.toBe(first.body.request_id);
    const journal = (await h.request('GET', `/__sandbox/requests?account_id=${accountId}&limit=1`)).body;
    expect(journal.requests[0].request_id).toBe(own);
  });
});
