/**
 * A test upstream that differs from the sandbox in exactly four ways (docs/drift.md): it
 * forwards every request to a real sandbox and changes
 * - one status code: a register that matched or created an account answers HTTP 201 (body unchanged);
 * - one `error.code`: an unknown account's 404 says `not_found`, not `account_not_found`;
 * - one field name: the controls GET's `marketplace_controls_list.domains` is `blocked_domains`;
 * - one `Retry-After`: a rate-limited status GET says 7 where the sandbox says what was asked.
 */
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';

export const DEVIATIONS = {
  status: 201,
  errorCode: 'not_found',
  renamed: ['domains', 'blocked_domains'],
  retryAfter: '7',
} as const;

export function deviantApp(sandboxUrl: string): Hono {
  const app = new Hono();
  app.all('*', async (c) => {
    const url = new URL(c.req.url);
    const headers = new Headers(c.req.raw.headers);
    headers.delete('host');
    const body = ['GET', 'HEAD'].includes(c.req.method) ? undefined : await c.req.arrayBuffer();
    const res = await fetch(`${sandboxUrl}${url.pathname}${url.search}`, {
      method: c.req.method,
      headers,
      body,
    });
    const out = new Headers(res.headers);
    out.delete('content-length');
    out.delete('content-encoding');
    let text = await res.text();
    let status = res.status;
    const path = url.pathname;
    if (c.req.method === 'POST' && path === '/v1/accounts/register/partnership' && status === 200) {
      status = DEVIATIONS.status;
    }
    if (status === 404 && path.startsWith('/v1/partnership/accounts/')) {
      const doc = JSON.parse(text);
      doc.error.code = DEVIATIONS.errorCode;
      text = JSON.stringify(doc);
    }
    if (c.req.method === 'GET' && path.endsWith('/marketplacecontrolslists') && status === 200) {
      const doc = JSON.parse(text);
      const list = doc.data.marketplace_controls_list;
      doc.data.marketplace_controls_list = Object.fromEntries(
        Object.entries(list).map(([k, v]) => [k === DEVIATIONS.renamed[0] ? DEVIATIONS.renamed[1] : k, v]),
      );
      text = JSON.stringify(doc);
    }
    if (status === 429 && path.endsWith('/status') && c.req.method === 'GET')
      out.set('Retry-After', DEVIATIONS.retryAfter);
    return new Response(text, { status, headers: out });
  });
  return app;
}

/** The deviant upstream listening on a free port in front of `sandboxUrl`. */
export async function startDeviantUpstream(
  sandboxUrl: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const app = deviantApp(sandboxUrl);
  let server!: ServerType;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
