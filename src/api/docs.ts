/**
 * The API documents and an offline reference page: GET /openapi.json (partnership API),
 * GET /__sandbox/openapi.json (control plane), GET /docs (Swagger UI, served from the
 * swagger-ui-dist package's own files: no CDN, works without internet).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { Hono } from 'hono';
import { controlPlaneDocument, partnershipDocument } from '../contract/openapi.js';
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
  url: '/openapi.json',
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

  api.get('/openapi.json', (c) => {
    const o = origin(c.req.url);
    return c.body(
      once(`partnership ${o}`, () => JSON.stringify(partnershipDocument(app, o))),
      200,
      {
        'Content-Type': 'application/json',
      },
    );
  });
  api.get('/__sandbox/openapi.json', (c) => {
    const o = origin(c.req.url);
    return c.body(
      once(`control ${o}`, () => JSON.stringify(controlPlaneDocument(o))),
      200,
      {
        'Content-Type': 'application/json',
      },
    );
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
