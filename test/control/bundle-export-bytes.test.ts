/**
 * The export sent a chunk at a time (state/bundles/bundle-export.ts: its accounts, stored answers and
 * journal written by turns, the answer streamed): through HTTP, the same bytes as the bundle
 * written at once (JSON.stringify), its Content-Length their count, with stored answers,
 * escapes and non-ASCII in every list.
 */
import { describe, expect, it } from 'vitest';
import { exportBundle, withinImportLimit } from '../../src/state/index.js';
import { CONTROLS, createHarness, DEMO, expectOk, STATUS } from '../helpers/harness.js';

/** The two times that move between the two exports: when it was exported, and the partner's clock. */
const withoutTime = (text: string) =>
  text
    .replace(/"exported_at":"[^"]*"/, '"exported_at":""')
    .replace(/"clock":\{"now":"[^"]*"/, '"clock":{"now":""');

describe('the export through HTTP', () => {
  it('is byte for byte the bundle written at once', async () => {
    const h = createHarness();
    const demo = await h.client(DEMO);
    for (const brand of ['Zürich "Quoted" \\ Café', 'Ünïcödé ✓ 🚀']) {
      const account = await demo.account({ brand });
      const hash = expectOk(await demo.get(CONTROLS(account))).marketplace_controls_list.content_hash;
      const put = await demo.put(CONTROLS(account), {
        blockedVerticals: [{ partnerVerticalId: 10, partnerSubVerticalId: 1001 }],
        domains: [{ domain: 'shop.example', policy: 'Block' }],
        contentHash: hash,
      });
      expect(put.status).toBe(200);
    }
    const res = await h.app.request(`/__sandbox/partners/${DEMO.parent}/bundle`);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    const atOnce = JSON.stringify(withinImportLimit(exportBundle(h.sandbox, DEMO.parent)));
    const body = JSON.parse(bytes.toString('utf8'));
    expect(body.idempotency_keys.length).toBeGreaterThanOrEqual(2);
    expect(body.accounts.length).toBeGreaterThanOrEqual(2);
    expect(withoutTime(bytes.toString('utf8'))).toBe(withoutTime(atOnce));
  });

  it('carries every stored answer once, in key order, read from the store a page at a time', async () => {
    const h = createHarness();
    const demo = await h.client(DEMO);
    const account = await demo.account();
    // 21 keys: more than two pages of the export's read (8 a page), the last page short.
    const keys = Array.from({ length: 21 }, (_, i) => `page-key-${String(i).padStart(2, '0')}`);
    for (const [i, key] of keys.entries()) {
      const put = await demo.put(
        STATUS(account),
        { status: i % 2 ? 'active' : 'paused' },
        { 'Idempotency-Key': key },
      );
      expect(put.status).toBe(200);
    }
    const res = await h.app.request(`/__sandbox/partners/${DEMO.parent}/bundle`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { idempotency_keys: { key: string }[] };
    const exported = body.idempotency_keys.map((k) => k.key);
    expect(exported.filter((k) => k.startsWith('page-key-'))).toEqual(keys);
    expect(new Set(exported).size).toBe(exported.length);
  });
});
