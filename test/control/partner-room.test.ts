/**
 * A partner's room (docs/parallel-tests.md, "nothing a client sends makes a partner's bundle
 * larger than the import accepts"; docs/guarantees-and-limits.md): a partner filled through the
 * API until a write is refused with 403 partner_storage_full exports a bundle that imports back
 * (200, the same accounts); the refused write wrote nothing and kept no key; a partner reset
 * gives the room back.
 */
import { describe, expect, it } from 'vitest';
import { PARTNER_ROOM_BYTES } from '../../src/http/room.js';
import { CONTROLS, createHarness, DEMO, expectErrorEnvelope, expectOk, pair } from '../helpers/harness.js';
import { fatList } from '../helpers/room-fill.js';

/** A short list: one pair, two domains (a controls PUT of the benchmark's size). */
const smallList = (contentHash: string | null, n: number) => ({
  blockedVerticals: [pair(10, 1001)],
  domains: [
    { domain: `a${n}.example`, policy: 'Block' },
    { domain: `b${n}.example`, policy: 'Block' },
  ],
  contentHash,
});

describe("a partner's room: its export always imports", () => {
  it('fills to a 403 partner_storage_full that writes nothing; its bundle imports back; a reset frees the room', async () => {
    const h = createHarness();
    const demo = await h.client(DEMO);
    let refused: Awaited<ReturnType<typeof demo.put>> | undefined;
    let key = '';
    let lastAccount = '';
    let hashBefore = '';
    const accounts: string[] = [];
    // 26 MiB at about 0.5 MB a write (the list and its stored answer): refused before 80. The
    // filling writes go straight to the app (the harness checks every answer against the
    // OpenAPI document, seconds for lists this long); the refusal goes through the harness.
    const json = { ...demo.headers, 'Content-Type': 'application/json' };
    for (let i = 0; i < 80 && !refused; i++) {
      const account = await demo.account();
      accounts.push(account);
      const hash = expectOk(await demo.get(CONTROLS(account))).marketplace_controls_list.content_hash;
      key = `fill-${i}`;
      const body = JSON.stringify(fatList(hash, `n${i}`));
      const res = await h.app.request(CONTROLS(account), {
        method: 'PUT',
        headers: { ...json, 'Idempotency-Key': key },
        body,
      });
      await res.arrayBuffer();
      if (res.status === 200) continue;
      expect(res.status).toBe(403);
      refused = await demo.put(CONTROLS(account), JSON.parse(body), { 'Idempotency-Key': key });
      lastAccount = account;
      hashBefore = hash;
    }
    expect(refused, 'no write was refused').toBeDefined();
    const body = expectErrorEnvelope(refused!, 403, 'partner_storage_full');
    expect(body.error.details).toMatchObject({
      parent_account_id: DEMO.parent,
      limit_bytes: PARTNER_ROOM_BYTES,
    });
    expect(body.error.details.used_bytes).toBeGreaterThan(PARTNER_ROOM_BYTES / 2);
    expect(body.message).toContain(`POST /__sandbox/partners/${DEMO.parent}/reset`);
    // Nothing written: the list is as it was, and the key is free (the same call is refused again, not replayed).
    expect(expectOk(await demo.get(CONTROLS(lastAccount))).marketplace_controls_list.content_hash).toBe(
      hashBefore,
    );
    const again = await demo.put(CONTROLS(lastAccount), fatList(hashBefore, 'again'), {
      'Idempotency-Key': key,
    });
    expectErrorEnvelope(again, 403, 'partner_storage_full');
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    // Small writes that still fit go through.
    expect((await demo.register()).status).toBe(200);

    // The partner at its fullest: its bundle imports back, whole. (Straight to the app: the
    // harness's check of a 28 MB answer against the control document takes seconds.)
    const bundleOf = async () => {
      const res = await h.app.request(`/__sandbox/partners/${DEMO.parent}/bundle`);
      expect(res.status).toBe(200);
      const text = await res.text();
      return { text, body: JSON.parse(text) };
    };
    const exported = await bundleOf();
    const imported = await h.app.request('/__sandbox/bundles', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: exported.text,
    });
    expect(imported.status, (await imported.text()).slice(0, 300)).toBe(200);
    const back = (await bundleOf()).body;
    expect(back.accounts.length).toBe(exported.body.accounts.length);
    expect(back.idempotency_keys.length).toBe(exported.body.idempotency_keys.length);
    // What the room counts is at least what those parts take in the bundle.
    const counted =
      Buffer.byteLength(JSON.stringify(exported.body.accounts)) +
      Buffer.byteLength(JSON.stringify(exported.body.idempotency_keys));
    expect(h.sandbox.store.sizes.exact(DEMO.parent)).toBeGreaterThanOrEqual(counted);
    expect(counted).toBeGreaterThan(PARTNER_ROOM_BYTES * 0.9);

    // A reset of the partner gives its room back.
    expect((await h.request('POST', `/__sandbox/partners/${DEMO.parent}/reset`)).status).toBe(200);
    const fresh = await h.client(DEMO);
    const account = await fresh.account();
    const hash = expectOk(await fresh.get(CONTROLS(account))).marketplace_controls_list.content_hash;
    expect((await fresh.put(CONTROLS(account), fatList(hash, 'fresh'))).status).toBe(200);
  }, 120_000);

  it("after each write the partner's count grows by what that write stored, not by an estimate of any write", async () => {
    const h = createHarness();
    const demo = await h.client(DEMO);
    const sizes = h.sandbox.store.sizes;
    const accounts = [await demo.account(), await demo.account()];
    const before = sizes.exact(DEMO.parent);
    let writes = 0;
    for (let i = 0; i < 20; i++) {
      const account = accounts[i % 2]!;
      const hash = expectOk(await demo.get(CONTROLS(account))).marketplace_controls_list.content_hash;
      const res = await demo.put(CONTROLS(account), smallList(hash, i));
      expect(res.status).toBe(200);
      writes++;
    }
    expect((await demo.register()).status).toBe(200);
    writes++;
    const counted = sizes.of(DEMO.parent);
    const stored = sizes.exact(DEMO.parent);
    // An upper bound (a write near the room is refused as the store's count says) ...
    expect(counted).toBeGreaterThanOrEqual(stored);
    // ... within a few KB a write of what was stored (16 KiB and more a write before).
    expect((counted - stored) / writes).toBeLessThan(4 * 1024);
    expect(stored).toBeGreaterThan(before);
  });

  it('a controls PUT is counted without a statement: at least what it stored, at most what the store would count', async () => {
    const h = createHarness();
    const demo = await h.client(DEMO);
    const sizes = h.sandbox.store.sizes;
    const account = await demo.account();
    for (let i = 0; i < 3; i++) {
      const hash = expectOk(await demo.get(CONTROLS(account))).marketplace_controls_list.content_hash;
      const before = sizes.exact(DEMO.parent);
      const key = `counted-${i}`;
      expect((await demo.put(CONTROLS(account), smallList(hash, i), { 'Idempotency-Key': key })).status).toBe(
        200,
      );
      const counted = sizes.of(DEMO.parent) - before;
      // An upper bound of what the write added ...
      expect(counted).toBeGreaterThanOrEqual(sizes.exact(DEMO.parent) - before);
      // ... and no looser than the store's count of every row of the account and the answer.
      expect(counted).toBeLessThanOrEqual(sizes.written(DEMO.parent, account, key));
    }
  });

  it("the partner document leaves partner_storage_full out; the sandbox's documents every write's 403 with it", async () => {
    const h = createHarness();
    const sandboxDoc = JSON.stringify((await h.request('GET', '/openapi.sandbox.json')).body);
    const partnerDoc = JSON.stringify((await h.request('GET', '/openapi.json')).body);
    expect(sandboxDoc).toContain('partner_storage_full');
    expect(partnerDoc).not.toContain('partner_storage_full');
  });
});
