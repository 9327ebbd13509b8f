/**
 * The control plane refuses browser requests from another origin (issue 14 B14), through
 * HTTP: the requests a hostile web page can make (a text/plain POST, a fetch with its
 * Origin, a Sec-Fetch-Site: cross-site read), the same from a page on another port of the
 * same host (same site, another origin), and what stays allowed (tools with no browser
 * headers, the dashboard's same-origin calls, behind a proxy too, a link).
 */
import { describe, expect, it } from 'vitest';
import { CROSS_SITE_MESSAGE } from '../../src/control/cross-site.js';
import { startSandbox } from '../../src/start.js';
import { createHarness, DEMO, expectErrorEnvelope } from '../helpers/harness.js';

/** What a page on http://localhost:3000 sends with a fetch to the sandbox on http://localhost:4010. */
const OTHER_PORT = {
  Origin: 'http://localhost:3000',
  'Sec-Fetch-Site': 'same-site',
  'Sec-Fetch-Mode': 'cors',
};
const SANDBOX = 'http://localhost:4010';

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

  it('body-less POSTs from a page on another port of the same host (same site, another origin) are 403 and change nothing: reset, partner reset, snapshot restore, create partner', async () => {
    const h = createHarness();
    const tool = (method: string, path: string, body?: unknown) =>
      h.request(method, `${SANDBOX}${path}`, body === undefined ? {} : { body });
    const page = (path: string) =>
      h.request('POST', `${SANDBOX}${path}`, {
        raw: '',
        headers: { ...OTHER_PORT, 'Content-Type': 'text/plain' },
      });
    expect((await tool('POST', '/__sandbox/snapshots', { name: 'before' })).status).toBe(201);
    await tool('POST', '/__sandbox/clock/advance', { seconds: 60 });
    await tool('POST', `/__sandbox/partners/${DEMO.parent}/clock/advance`, { seconds: 30 });

    for (const path of [
      '/__sandbox/reset',
      `/__sandbox/partners/${DEMO.parent}/reset`,
      '/__sandbox/snapshots/before/restore',
      '/__sandbox/partners',
    ]) {
      const res = await page(path);
      expect(expectErrorEnvelope(res, 403, 'forbidden').message).toBe(CROSS_SITE_MESSAGE);
    }
    expect((await tool('GET', '/__sandbox/clock')).body.offset_seconds).toBe(60);
    expect((await tool('GET', `/__sandbox/partners/${DEMO.parent}/clock`)).body.offset_seconds).toBe(30);
    expect((await tool('GET', '/__sandbox/requests')).status).toBe(200);
  });

  it('another port is another origin whatever the headers say: an Origin of another port alone, Sec-Fetch-Site: same-site alone, and a read too', async () => {
    const h = createHarness();
    const cases: [string, Record<string, string>][] = [
      ['POST', { Origin: 'http://localhost:9999' }],
      ['POST', { Origin: 'http://127.0.0.1:4010' }],
      ['POST', { Origin: 'https://localhost:4010' }],
      ['POST', { 'Sec-Fetch-Site': 'same-site' }],
      ['POST', { Origin: 'http://localhost:3000', 'Sec-Fetch-Site': 'same-origin' }],
      ['GET', OTHER_PORT],
    ];
    for (const [method, headers] of cases) {
      const path = method === 'GET' ? '/__sandbox/requests' : '/__sandbox/clock/advance';
      const res = await h.request(method, `${SANDBOX}${path}`, {
        ...(method === 'POST' ? { body: { seconds: 1 } } : {}),
        headers,
      });
      expectErrorEnvelope(res, 403, 'forbidden');
    }
    expect((await h.request('GET', '/__sandbox/clock')).body.offset_seconds).toBe(0);
  });

  it("tools without browser headers and same-origin calls (the dashboard's) are served; a default port is the same origin written either way", async () => {
    const h = createHarness();
    expect((await h.request('GET', `${SANDBOX}/__sandbox/requests`)).status).toBe(200);
    const cases: [string, Record<string, string>][] = [
      [SANDBOX, { Origin: SANDBOX, 'Sec-Fetch-Site': 'same-origin' }],
      [SANDBOX, { Origin: 'HTTP://LOCALHOST:4010' }],
      ['http://localhost', { Origin: 'http://localhost:80', 'Sec-Fetch-Site': 'same-origin' }],
      ['http://localhost:80', { Origin: 'http://localhost' }],
    ];
    for (const [base, headers] of cases) {
      const res = await h.request('POST', `${base}/__sandbox/clock/advance`, {
        body: { seconds: 1 },
        headers,
      });
      expect(res.status).toBe(200);
    }
    expect((await h.request('GET', '/__sandbox/clock')).body.offset_seconds).toBe(cases.length);
  });

  it('over a socket: the Host header is the own origin (127.0.0.1:port); another port, host name or scheme is refused; a TLS proxy that says X-Forwarded-Proto/-Host is served', async () => {
    const sandbox = await startSandbox();
    try {
      const post = (headers: Record<string, string>) =>
        fetch(`${sandbox.url}/__sandbox/reset`, { method: 'POST', headers });
      expect((await post({ Origin: sandbox.url, 'Sec-Fetch-Site': 'same-origin' })).status).toBe(200);
      for (const origin of [
        'http://127.0.0.1:9999',
        `http://localhost:${sandbox.port}`,
        `https://127.0.0.1:${sandbox.port}`,
      ]) {
        expect((await post({ Origin: origin, 'Sec-Fetch-Site': 'same-site' })).status).toBe(403);
        expect((await post({ Origin: origin })).status).toBe(403);
      }
      const proxied = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'sandbox.example.dev' };
      expect((await post({ ...proxied, Origin: 'https://sandbox.example.dev' })).status).toBe(200);
      expect((await post({ ...proxied, Origin: 'https://other.example.dev' })).status).toBe(403);
    } finally {
      await sandbox.stop();
    }
  });

  it('health answers cross-site too (it holds nothing)', async () => {
    const h = createHarness();
    const res = await h.request('GET', '/__sandbox/health', { headers: { Origin: 'https://evil.example' } });
    expect(res.status).toBe(200);
  });
});
