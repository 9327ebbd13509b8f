/**
 * The app is served by Hono's RegExpRouter (docs/performance.md, "The router"): one route
 * shape it refuses (a static segment beside a parameter at the same place, as
 * `/docs/guides/screenshots/:file` beside `/docs/guides/:name` once did) sends every call,
 * partnership calls included, to the TrieRouter, which costs a controls GET about 4 % more
 * instructions. SmartRouter settles on its router at the first request and names it then.
 */
import { describe, expect, it } from 'vitest';
import { createHarness, DEMO } from '../helpers/harness.js';

describe('the router', () => {
  it('the app is served by the RegExpRouter, not the TrieRouter fallback', async () => {
    const h = createHarness();
    const res = await h.request('GET', '/__sandbox/health');
    expect(res.status).toBe(200);
    expect(h.app.router.name).toBe('SmartRouter + RegExpRouter');
  });

  it('the manual and its screenshots answer under /docs/guides/ as before, a deeper path is 404, another method 405', async () => {
    const h = createHarness();
    expect((await h.app.request('/docs/guides/api')).status).toBe(200);
    const image = await h.app.request('/docs/guides/screenshots/journal.png');
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    for (const path of [
      '/docs/guides/api/more',
      '/docs/guides/screenshots/a/b.png',
      '/docs/guides/screenshots',
    ]) {
      const res = await h.request('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code, path).toBe('not_found');
    }
    const post = await h.request('POST', '/docs/guides/screenshots/journal.png');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    // a partnership call on the same app still routes with its parameters
    const token = await h.request('POST', '/oauth/token', {
      raw: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: DEMO.clientId,
        client_secret: DEMO.clientSecret,
      }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(token.status).toBe(200);
    expect(h.app.router.name).toBe('SmartRouter + RegExpRouter');
  });
});
