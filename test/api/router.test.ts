/**
 * The app is served by Hono's RegExpRouter (docs/performance.md, "The router"): one route
 * shape it refuses (a static segment beside a parameter at the same place, as
 * `/docs/guides/screenshots/:file` beside `/docs/guides/:name` once did) sends every call,
 * partnership calls included, to the TrieRouter, which costs a controls GET about 4 % more
 * instructions. SmartRouter settles on its router at the first request and names it then.
 */
import { describe, expect, it } from 'vitest';
import { CONTROLS, createHarness, DEMO } from '../helpers/harness.js';

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

/**
 * A partnership read (the controls GET) is handed to Hono as one handler with the request
 * context (src/http/one-step-reads.ts), so while no stage awaits the app answers at once, not
 * with a promise: the same answer, headers and journal entry as through two handlers.
 */
/** The envelope's fields these tests read. */
type Answer = { request_id: string; error: { code: string } };

describe('a partnership read in one step', () => {
  const newest = async (h: ReturnType<typeof createHarness>) =>
    (await h.request('GET', '/__sandbox/requests?limit=1')).body.requests[0];

  it('a controls GET answers at once, with its envelope, headers and journal entry', async () => {
    const h = createHarness();
    const partner = await h.client();
    const id = await partner.account();
    const res = h.app.request(CONTROLS(id), { headers: partner.headers });
    expect(res).toBeInstanceOf(Response);
    const answer = await res;
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Answer;
    expect(body).toMatchObject({ status: 200, error: null, message: 'ok', data: { account_id: id } });
    expect(answer.headers.get('x-request-id')).toBe(body.request_id);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('content-type')).toBe('application/json');
    const entry = await newest(h);
    expect(entry).toMatchObject({
      method: 'GET',
      path: CONTROLS(id),
      status: 200,
      request_id: body.request_id,
      parent_account_id: DEMO.parent,
      account_id: id,
      response_body: JSON.stringify(body),
    });
    expect(entry.request_headers.authorization).toBe('Bearer [REDACTED]');
    expect(entry.response_headers['x-request-id']).toBe(body.request_id);
  });

  it('a read a stage refuses (an account not found) answers at once through the error handler, journaled', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = h.app.request(CONTROLS('acct_none'), { headers: partner.headers });
    expect(res).toBeInstanceOf(Response);
    const answer = await res;
    expect(answer.status).toBe(404);
    const body = (await answer.json()) as Answer;
    expect(body.error.code).toBe('account_not_found');
    expect(answer.headers.get('x-request-id')).toBe(body.request_id);
    expect(await newest(h)).toMatchObject({
      status: 404,
      request_id: body.request_id,
      path: CONTROLS('acct_none'),
    });
  });

  it('a read with an X-Sandbox-Scenario it cannot take, and one that awaits (latency), answer and are journaled', async () => {
    const h = createHarness();
    const partner = await h.client();
    const id = await partner.account();
    const refused = await h.app.request(CONTROLS(id), {
      headers: { ...partner.headers, 'X-Sandbox-Scenario': 'no-such-drill' },
    });
    expect(refused.status).toBe(400);
    const refusedBody = (await refused.json()) as Answer;
    expect(await newest(h)).toMatchObject({ status: 400, request_id: refusedBody.request_id });

    const late = h.app.request(CONTROLS(id), {
      headers: { ...partner.headers, 'X-Sandbox-Scenario': 'latency=20' },
    });
    expect(late).toBeInstanceOf(Promise);
    const answer = await late;
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Answer;
    expect(answer.headers.get('x-sandbox-scenario-applied')).toBe('latency=20');
    expect(await newest(h)).toMatchObject({
      status: 200,
      request_id: body.request_id,
      scenarios_applied: ['latency=20'],
    });
  });
});
