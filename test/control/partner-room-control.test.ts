/**
 * The control plane's writes count in a partner's room (docs/hosting.md, docs/guarantees-and-limits.md):
 * a variant added (POST /__sandbox/accounts/{account}/variants) and a mapping seeded (PUT
 * /__sandbox/partners/{parent}/vertical-mappings), by the partner's own token or the admin's,
 * are refused with 403 partner_storage_full once the partner is full, nothing written; a variant
 * PATCH stores nothing more and still goes through; the full partner's bundle imports back.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PARTNER_ROOM_BYTES } from '../../src/http/room.js';
import { createHarness, DEMO, expectErrorEnvelope } from '../helpers/harness.js';
import { fillWith } from '../helpers/room-fill.js';

const ADMIN = 'admin-token-0123456789abcdef';
const admin = { Authorization: `Bearer ${ADMIN}` };

/** A mapping of `rows` rows with names of 200 characters (about 650 bytes a row). */
const bigMapping = (rows: number) =>
  Array.from({ length: rows }, (_, i) => ({
    partner_vertical_id: 10,
    partner_vertical_name: 'v'.repeat(200),
    partner_sub_vertical_id: 5000 + i,
    partner_sub_vertical_name: `${i}`.padEnd(200, 's'),
    vertical_name: 'Retail',
  }));

// The served documents every answer is checked against are read once per process, from an open sandbox.
beforeAll(async () => {
  await createHarness().request('GET', '/__sandbox/health');
});

describe("the control plane's writes count in the partner's room", () => {
  it('a variant and a mapping are 403 partner_storage_full on a full partner; a PATCH adds nothing; the bundle imports', async () => {
    const h = createHarness({ adminToken: ADMIN });
    const demo = await h.client(DEMO);
    const own = { Authorization: `Bearer ${demo.token}` };
    // Lists of 900 long domains until one is refused, then of 9 (a write of about 30 KB):
    // what is left is less than that.
    await fillWith(h, demo, 900, 'fat');
    const { account } = await fillWith(h, demo, 9, 'thin');
    const detail = await h.request('GET', `/__sandbox/accounts/${account}`, { headers: own });
    expect(detail.status).toBe(200);
    const pageId = detail.body.pages[0].page_id as string;
    const variantsBefore = detail.body.variants.length as number;

    // Variants by the partner's own token, each counted, until one is refused (a variant
    // stores a few hundred bytes and counts as one write: well under 100 fit in 30 KB).
    let refused: Awaited<ReturnType<typeof h.request>> | undefined;
    let added = 0;
    for (; added < 100 && !refused; added++) {
      const res = await h.request('POST', `/__sandbox/accounts/${account}/variants`, {
        headers: own,
        body: { page_id: pageId, name: `extra ${added}` },
      });
      if (res.status !== 201) refused = res;
    }
    expect(refused, 'no variant was refused: the control plane is not counted').toBeDefined();
    const body = expectErrorEnvelope(refused!, 403, 'partner_storage_full');
    expect(body.error.details).toMatchObject({
      parent_account_id: DEMO.parent,
      limit_bytes: PARTNER_ROOM_BYTES,
    });
    expect(refused!.headers.get('x-sandbox-partner')).toBe(DEMO.parent);
    // Nothing written: the account holds the variants that went through, not the refused one.
    const after = await h.request('GET', `/__sandbox/accounts/${account}`, { headers: own });
    expect(after.body.variants.length).toBe(variantsBefore + added - 1);
    // The admin's token is held to the partner's room too.
    const byAdmin = await h.request('POST', `/__sandbox/accounts/${account}/variants`, {
      headers: admin,
      body: { page_id: pageId, name: 'by the operator' },
    });
    expectErrorEnvelope(byAdmin, 403, 'partner_storage_full');

    // A mapping larger than the one it replaces: refused, the mapping as it was.
    const mappingPath = `/__sandbox/partners/${DEMO.parent}/vertical-mappings`;
    const mappingBefore = h.sandbox.store.partners.mappings(DEMO.parent).length;
    const seeded = await h.request('PUT', mappingPath, {
      headers: own,
      body: { vertical_mappings: bigMapping(200) },
    });
    expectErrorEnvelope(seeded, 403, 'partner_storage_full');
    expect(h.sandbox.store.partners.mappings(DEMO.parent).length).toBe(mappingBefore);

    // A PATCH sets flags: the partner's bytes are the same, and it goes through.
    const used = h.sandbox.store.sizes.exact(DEMO.parent);
    const variantId = after.body.variants.at(-1).variant_id as string;
    const patched = await h.request('PATCH', `/__sandbox/variants/${variantId}`, {
      headers: own,
      body: { enabled: false, archived: true },
    });
    expect(patched.status).toBe(200);
    expect(h.sandbox.store.sizes.exact(DEMO.parent)).toBe(used);

    // The partner at its fullest: its bundle imports back (straight to the app: a 28 MB answer).
    const exported = await h.app.request(`/__sandbox/partners/${DEMO.parent}/bundle`, { headers: own });
    expect(exported.status).toBe(200);
    const text = await exported.text();
    const imported = await h.app.request('/__sandbox/bundles', {
      method: 'POST',
      headers: { ...admin, 'Content-Type': 'application/json' },
      body: text,
    });
    expect(imported.status, (await imported.text()).slice(0, 300)).toBe(200);

    // A partner reset frees the room: the same mapping now goes through (the admin's token:
    // the import dropped the partner's tokens).
    expect(
      (await h.request('POST', `/__sandbox/partners/${DEMO.parent}/reset`, { headers: admin })).status,
    ).toBe(200);
    const again = await h.request('PUT', mappingPath, {
      headers: admin,
      body: { vertical_mappings: bigMapping(200) },
    });
    expect(again.status).toBe(200);
    expect(again.body.vertical_mappings).toHaveLength(200);
  }, 180_000);
});
