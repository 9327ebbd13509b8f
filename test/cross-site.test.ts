/**
 * The control plane refuses cross-site browser requests (issue 14 B14), through HTTP: the
 * requests a hostile web page can make (a text/plain POST, a fetch with its Origin, a
 * Sec-Fetch-Site: cross-site read), and what stays allowed (tools with no browser
 * headers, the dashboard's same-origin calls, a same-site page on another port, a link).
 */
import { describe, expect, it } from 'vitest';
import { CROSS_SITE_MESSAGE } from '../src/admin/cross-site.js';
import { createHarness, expectErrorEnvelope } from './harness.js';

describe('control plane: cross-site browser requests', () => {
  it('POST /__sandbox/reset from https://evil.example as text/plain is 403 and resets nothing', async () => {
    const h = createHarness();
    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 60 } });
    const res = await h.request('POST', '/__sandbox/reset', {
      raw: 'x',
      headers: {
        Origin: 'https://evil.example',
        'Content-Type': 'text/plain',
        'Sec-Fetch-Site': 'cross-site',
      },
    });
    const body = expectErrorEnvelope(res, 403, 'forbidden');
    expect(body.message).toBe(CROSS_SITE_MESSAGE);
    expect((await h.request('GET', '/__sandbox/clock')).body.offset_seconds).toBe(60);
  });

  it('a cross-site read of the journal is 403 (by Sec-Fetch-Site alone, or by Origin alone)', async () => {
    const h = createHarness();
    const cases: Record<string, string>[] = [
      { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors' },
      { Origin: 'https://evil.example' },
      { Origin: 'null' },
    ];
    for (const headers of cases) {
      expectErrorEnvelope(await h.request('GET', '/__sandbox/requests', { headers }), 403, 'forbidden');
    }
  });

  it('a cross-site form POST navigation to /__sandbox/partners is 403; a cross-site GET navigation (a link) is served: the page cannot read the answer', async () => {
    const h = createHarness();
    const post = await h.request('POST', '/__sandbox/partners', {
      raw: '{}',
      headers: {
        'Sec-Fetch-Site': 'cross-site',
        'Sec-Fetch-Mode': 'navigate',
        Origin: 'https://evil.example',
        'Content-Type': 'application/json',
      },
    });
    expectErrorEnvelope(post, 403, 'forbidden');
    const link = await h.request('GET', '/__sandbox/requests', {
      headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' },
    });
    expect(link.status).toBe(200);
  });

  it('tools without browser headers, same-origin calls and a same-site page on another port are served', async () => {
    const h = createHarness();
    expect((await h.request('GET', '/__sandbox/requests')).status).toBe(200);
    const sameOrigin = await h.request('POST', '/__sandbox/clock/advance', {
      body: { seconds: 1 },
      headers: { Origin: 'http://localhost', 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(sameOrigin.status).toBe(200);
    const otherPort = await h.request('GET', '/__sandbox/requests', {
      headers: { Origin: 'http://localhost:3000', 'Sec-Fetch-Site': 'same-site' },
    });
    expect(otherPort.status).toBe(200);
  });

  it('health answers cross-site too (it holds nothing)', async () => {
    const h = createHarness();
    const res = await h.request('GET', '/__sandbox/health', { headers: { Origin: 'https://evil.example' } });
    expect(res.status).toBe(200);
  });
});
