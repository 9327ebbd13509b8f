/**
 * The export sent a chunk at a time (services/bundle-export.ts: its accounts, stored answers and
 * journal written by turns, the answer streamed): through HTTP, the same bytes as the bundle
 * written at once (JSON.stringify), its Content-Length their count, with stored answers,
 * escapes and non-ASCII in every list.
 */
import { describe, expect, it } from 'vitest';
import { exportBundle, withinImportLimit } from '../../src/services/bundle-export.js';
import { CONTROLS, createHarness, DEMO, expectOk } from '../helpers/harness.js';

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
});
