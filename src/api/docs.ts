/**
 * The API documents and an offline reference page: GET /openapi.json (the partner
 * document: the partnership API with no sandbox-only item), GET /openapi.sandbox.json
 * (the same plus the sandbox's X-Sandbox-Scenario parameter and X-Sandbox-* headers),
 * GET /openapi-3.0.json (the partner document in OpenAPI 3.0.3), GET
 * /__sandbox/openapi.json (control plane), GET /docs (Swagger UI over the sandbox
 * document, served from the swagger-ui-dist package's own files: no CDN, works without
 * internet).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { controlPlaneDocument, partnershipDocuments } from '../contract/openapi.js';
import type { AppEnv } from '../http/env.js';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partnership Accounts API — sandbox reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="docs"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.sandbox.json',
  dom_id: '#docs',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  validatorUrl: null,
});
`;

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

function assetDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('swagger-ui-dist/package.json'));
}

export function docsApi(app: OpenAPIHono<AppEnv>) {
  const api = new Hono<AppEnv>();
  const cache = new Map<string, string>();
  const once = (key: string, make: () => string) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = make();
      cache.set(key, value);
    }
    return value;
  };
  const origin = (url: string) => new URL(url).origin;
  const documents = new Map<string, { partner: string; sandbox: string; partner30: string }>();

  const partnership = (url: string) => {
    const o = origin(url);
    let docs = documents.get(o);
    if (!docs) {
      const built = partnershipDocuments(app, o);
      docs = {
        partner: JSON.stringify(built.partner),
        sandbox: JSON.stringify(built.sandbox),
        partner30: JSON.stringify(built.partner30),
      };
      documents.set(o, docs);
    }
    return docs;
  };
  const document = (text: string) => ({ text, headers: { 'Content-Type': 'application/json' } });
  const serveDocument = (text: string) => {
    const d = document(text);
    return [d.text, 200, d.headers] as const;
  };

  api.get('/openapi.json', (c) => c.body(...serveDocument(partnership(c.req.url).partner)));
  api.get('/openapi.sandbox.json', (c) => c.body(...serveDocument(partnership(c.req.url).sandbox)));
  api.get('/openapi-3.0.json', (c) => c.body(...serveDocument(partnership(c.req.url).partner30)));
  api.get('/__sandbox/openapi.json', (c) => {
    const o = origin(c.req.url);
    return c.body(...serveDocument(once(`control ${o}`, () => JSON.stringify(controlPlaneDocument(o)))));
  });
  api.get('/docs', (c) => c.html(PAGE, 200, { 'Content-Security-Policy': CSP }));
  api.get('/docs/init.js', (c) => c.body(INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  api.get('/docs/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (!type) return c.notFound();
    const text = once(file, () => readFileSync(join(assetDir(), file), 'utf8'));
    return c.body(text, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
  return api;
}
