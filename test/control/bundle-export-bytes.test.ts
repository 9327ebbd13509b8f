/**
 * The export sent a chunk at a time (state/bundles/bundle-export.ts: its accounts, stored answers and
 * journal written by turns, the answer streamed): through HTTP, the same bytes as the bundle
 * written at once (JSON.stringify), its Content-Length their count, with stored answers,
 * escapes and non-ASCII in every list.
 */
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { exportBundle, withinImportLimit } from '../../src/state/index.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectOk,
  REGISTER,
  registerBody,
  STATUS,
  testConfig,
} from '../helpers/harness.js';

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

  it('through a server, read slowly while later exports reuse its buffers: the same bytes every time', async () => {
    const server = await startServer(testConfig({ port: 0, host: '127.0.0.1' }));
    try {
      const token = (await (
        await fetch(`${server.url}/oauth/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: DEMO.clientId,
            client_secret: DEMO.clientSecret,
          }),
        })
      ).json()) as { access_token: string };
      const headers = {
        Authorization: `Bearer ${token.access_token}`,
        'X-Platform-Parent-Account-Id': DEMO.parent,
        'Content-Type': 'application/json',
      };
      // 24 lists of 900 long domains, each stored answer as long: a bundle of about 11 MiB, more
      // than the sockets' buffers hold, so that a slow reader holds the answer's last buffers.
      for (let w = 0; w < 24; w++) {
        const reg = await fetch(server.url + REGISTER, {
          method: 'POST',
          headers,
          body: JSON.stringify(registerBody()),
        });
        const account = ((await reg.json()) as { data: { account_id: string } }).data.account_id;
        const got = await fetch(server.url + CONTROLS(account), { headers });
        const hash = ((await got.json()) as { data: { marketplace_controls_list: { content_hash: string } } })
          .data.marketplace_controls_list.content_hash;
        const put = await fetch(server.url + CONTROLS(account), {
          method: 'PUT',
          headers: { ...headers, 'Idempotency-Key': `reuse-${w}` },
          body: JSON.stringify({
            blockedVerticals: [{ partnerVerticalId: 10, partnerSubVerticalId: 1001 }],
            domains: Array.from({ length: 900 }, (_, i) => ({
              domain: `${`w${w}n${i}`.padEnd(60, 'x')}.${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(50)}.example`,
              policy: 'Block',
            })),
            contentHash: hash,
          }),
        });
        expect(put.status).toBe(200);
        await put.arrayBuffer();
      }
      const bundleUrl = `${server.url}/__sandbox/partners/${DEMO.parent}/bundle`;
      const read = async (res: Response, slow: boolean) => {
        const parts: Buffer[] = [];
        for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
          parts.push(Buffer.from(part));
          if (slow) await new Promise((r) => setTimeout(r, 2));
        }
        const bytes = Buffer.concat(parts);
        expect(res.headers.get('content-length')).toBe(String(bytes.length));
        return withoutTime(bytes.toString('utf8'));
      };
      const first = await read(await fetch(bundleUrl), false);
      expect(first.length).toBeGreaterThan(10_000_000);
      expect(await read(await fetch(bundleUrl), false)).toBe(first);
      // A slow reader's buffers stay its own while the next exports (of a changed partner, other
      // bytes) are written: its answer has begun, so its export is done, and the partner changes.
      const slow = read(await fetch(bundleUrl), true);
      const reg = await fetch(server.url + REGISTER, {
        method: 'POST',
        headers,
        body: JSON.stringify(registerBody({ brand: 'After the first export' })),
      });
      expect(reg.status).toBe(200);
      await reg.arrayBuffer();
      const after = await Promise.all([
        read(await fetch(bundleUrl), false),
        read(await fetch(bundleUrl), true),
      ]);
      expect(await slow).toBe(first);
      expect(after[0]).not.toBe(first);
      expect(after[1]).toBe(after[0]);
    } finally {
      await server.close();
    }
  });
});
