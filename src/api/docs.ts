/**
 * The API documents and an offline reference page: GET /openapi.json (the partner
 * document: the partnership API with no sandbox-only item), GET /openapi.sandbox.json
 * (the same plus the sandbox's X-Sandbox-Scenario parameter and X-Sandbox-* headers),
 * GET /openapi-3.0.json (the partner document in OpenAPI 3.0.3), GET
 * /__sandbox/openapi.json (control plane), GET /docs (Swagger UI over the sandbox
 * document, served from Swagger UI's own files, copied into dist/ at build time: no CDN,
 * works without internet), and the manual: README.md and docs/*.md rendered to HTML under
 * /docs/guides/ (build-guides.ts; dist/guides.json, written at build time) with its screenshots
 * (read from the package's docs/screenshots/), linked from /docs. /docs and every page of the
 * manual link each other and the dashboard (/__sandbox/ui).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { type Context, Hono } from 'hono';
import { BoundedCache } from '../base/bounded-cache.js';
import { packageDir } from '../base/package-dir.js';
import { partnershipDocuments } from '../contract/api/openapi.js';
import { controlPlaneDocument } from '../contract/control/openapi-control.js';
import { own } from '../domain/own.js';
import { buildGuides, type GuidePage, type Guides } from '../guides/build-guides.js';
import { SCREENSHOT_NAME, SCREENSHOT_TYPES } from '../guides/screenshots.js';
import type { AppEnv } from '../http/env.js';
import { UI_PATH } from '../ui/shell.js';

/** Under /docs/guides/: a page's name, or `screenshots/` and a file's name. */
const SCREENSHOTS = 'screenshots/';
const GUIDE_PATH = '(?:screenshots\\/)?[^\\/]+';

/** How many origins (Host headers) the documents are kept for. */
export const ORIGINS_KEPT = 8;

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/**
 * The bar over the API reference: what the page is, and the way to the manual and the
 * dashboard. Styled by its own rules (Swagger UI's stylesheet leaves the page's own elements
 * alone), in the dashboard's colours.
 */
const BANNER_STYLE = `
body { margin: 0; }
nav.sandbox-bar { display: flex; align-items: center; gap: 20px; flex-wrap: wrap; padding: 0 24px; min-height: 52px;
  background: #141a2a; color: #e8ebf2; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
nav.sandbox-bar .brand { font-weight: 600; white-space: nowrap; }
nav.sandbox-bar .brand::before { content: "\\25C6"; color: #8fa8ff; margin-right: 8px; }
nav.sandbox-bar a { color: #b9c0d0; text-decoration: none; padding: 16px 0 14px; border-bottom: 2px solid transparent; }
nav.sandbox-bar a:hover { color: #fff; }
nav.sandbox-bar a[aria-current] { color: #fff; border-bottom-color: #8fa8ff; }
nav.sandbox-bar .what { margin-left: auto; color: #8b93a7; font-size: 13px; }
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partnership Accounts API — sandbox reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<style>${BANNER_STYLE}</style>
</head>
<body>
<nav class="sandbox-bar" aria-label="Partnership sandbox">
<span class="brand">Partnership sandbox</span>
<a href="/docs" aria-current="page">API reference</a>
<a href="/docs/guides/" title="Getting started, running it in CI, fault injection, the control plane, troubleshooting">Manual</a>
<a href="${UI_PATH}" id="dashboard-link" title="Partners, accounts, the request journal, scenarios and chaos, the integration report">Dashboard</a>
<span class="what">This sandbox's API reference (OpenAPI)</span>
</nav>
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

/**
 * Where Swagger UI's files are: dist/swagger-ui/ beside the bundle (scripts/build.mjs copies
 * them there, so the package and the image need no swagger-ui-dist), else the devDependency
 * itself when running from source.
 */
function assetDir(): string {
  const bundled = join(dirname(fileURLToPath(import.meta.url)), 'swagger-ui');
  if (existsSync(join(bundled, 'swagger-ui-bundle.js'))) return bundled;
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('swagger-ui-dist/package.json'));
}

const GUIDE_STYLE = `
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; }
.layout { display: flex; align-items: flex-start; }
nav.pages { flex: 0 0 240px; position: sticky; top: 0; max-height: 100vh; overflow: auto; padding: 16px; border-right: 1px solid #d0d7de; font-size: 14px; }
nav.pages ul { list-style: none; padding: 0; margin: 0; }
nav.pages li { margin: 4px 0; }
nav.pages a[aria-current] { font-weight: 600; }
main { flex: 1; min-width: 0; max-width: 980px; padding: 16px 32px 64px; }
a { color: #0969da; }
h1, h2, h3 { line-height: 1.25; margin-top: 1.5em; }
h1, h2, h3, h4 { position: relative; }
h1 a.anchor, h2 a.anchor, h3 a.anchor, h4 a.anchor { visibility: hidden; position: absolute; left: -1.1em; text-decoration: none; }
h1:hover a.anchor, h2:hover a.anchor, h3:hover a.anchor, h4:hover a.anchor { visibility: visible; }
code { font: 85%/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; background: #f6f8fa; padding: 0.1em 0.3em; border-radius: 4px; }
pre { background: #f6f8fa; padding: 12px 16px; overflow: auto; border-radius: 6px; }
pre code { background: none; padding: 0; }
table { border-collapse: collapse; display: block; overflow: auto; margin: 1em 0; }
th, td { border: 1px solid #d0d7de; padding: 6px 10px; vertical-align: top; }
th { background: #f6f8fa; }
em.image { color: #59636e; }
a.image { display: block; margin: 8px 0; }
a.image img { display: block; max-width: 100%; height: auto; border: 1px solid #d0d7de; border-radius: 6px; }
td a.image img { max-width: 440px; }
`;

/** A page of the manual in its shell: the list of pages beside it, links relative to /docs/guides/. */
function guideHtml(guides: Guides, page: GuidePage | undefined, body: string, title: string): string {
  const esc = (t: string) =>
    t.replace(/[&<>"]/g, (ch) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[ch]};`);
  const items = guides.pages
    .map((p) => {
      const href = p.name === 'index' ? './' : p.name;
      const current = p === page ? ' aria-current="page"' : '';
      return `<li><a href="${href}"${current}>${esc(p.name === 'index' ? 'Start here (README)' : p.title)}</a></li>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} — Partnership sandbox manual</title>
<style>${GUIDE_STYLE}</style>
</head>
<body>
<div class="layout">
<nav class="pages" aria-label="The manual">
<p><strong>Partnership sandbox</strong></p>
<ul>
${items}
<li><a href="/docs">API reference (OpenAPI)</a></li>
<li><a href="${UI_PATH}">Dashboard</a></li>
</ul>
</nav>
<main>
${body}
</main>
</div>
</body>
</html>
`;
}

const NO_GUIDES = `<h1>The manual</h1>
<p>This build of the sandbox carries no manual: it was built from a tree without <code>docs/</code>.
The manual is <code>README.md</code> and the pages of <code>docs/</code> in the sandbox's repository;
the API reference is at <a href="/docs">/docs</a>.</p>`;

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
  documentRoutes(api, app);
  api.get('/docs', (c) => c.html(PAGE, 200, { 'Content-Security-Policy': CSP }));
  guideRoutes(api, (key, make) => once(`guide ${key}`, make));
  api.get('/docs/init.js', (c) => c.body(INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  api.get('/docs/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = own(ASSETS, file);
    if (!type) return c.notFound();
    const text = once(file, () => readFileSync(join(assetDir(), file), 'utf8'));
    return c.body(text, 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
  return api;
}

/** The OpenAPI documents: the partner's (3.1 and 3.0), the sandbox's and the control plane's. */
function documentRoutes(api: Hono<AppEnv>, app: OpenAPIHono<AppEnv>): void {
  const origin = (url: string) => new URL(url).origin;
  // The documents name the origin they were asked at (their server URL): one set per origin,
  // of a few origins at most, since the Host header is the client's to choose.
  const documents = new BoundedCache<{ partner: string; sandbox: string; partner30: string }>(ORIGINS_KEPT);
  const controlDocuments = new BoundedCache<string>(ORIGINS_KEPT);

  const partnership = (url: string) => {
    const o = origin(url);
    return documents.get(o, () => {
      const built = partnershipDocuments(app, o);
      return {
        partner: JSON.stringify(built.partner),
        sandbox: JSON.stringify(built.sandbox),
        partner30: JSON.stringify(built.partner30),
      };
    });
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
    return c.body(...serveDocument(controlDocuments.get(o, () => JSON.stringify(controlPlaneDocument(o)))));
  });
}

/** The manual's pages, each rendered once by `guidePage`, and its screenshots. */
function guideRoutes(api: Hono<AppEnv>, guidePage: (key: string, make: () => string) => string): void {
  // The manual: rendered once (from the checkout when run from source; constants in dist/).
  let guides: Guides | undefined;
  const manual = () => {
    guides ??= buildGuides();
    return guides;
  };
  api.get('/docs/guides', (c) => c.redirect('/docs/guides/', 301));
  api.get('/docs/guides/', (c) => {
    const g = manual();
    const index = g.pages.find((p) => p.name === 'index');
    const html = guidePage('index', () =>
      index ? guideHtml(g, index, index.html, index.title) : guideHtml(g, undefined, NO_GUIDES, 'The manual'),
    );
    return c.html(html, 200, { 'Content-Security-Policy': CSP });
  });
  const screenshot = screenshots();
  // A page (/docs/guides/NAME) and a screenshot (/docs/guides/screenshots/FILE) share one
  // route: Hono's RegExpRouter refuses a static segment beside a parameter at the same place
  // (`screenshots/:file` beside `:name`), and one such pair sends the whole app, every
  // partnership call included, to the slower TrieRouter (test/api/router.test.ts).
  api.get(`/docs/guides/:name{${GUIDE_PATH}}`, (c) => {
    const name = c.req.param('name');
    if (name.startsWith(SCREENSHOTS)) return screenshot(c, name.slice(SCREENSHOTS.length));
    const g = manual();
    const page = name === 'index' ? undefined : g.pages.find((p) => p.name === name);
    if (!page) return c.notFound();
    const html = guidePage(name, () => guideHtml(g, page, page.html, page.title));
    return c.html(html, 200, { 'Content-Security-Policy': CSP });
  });
}

/** The manual's screenshots, from the package's docs/screenshots/ (kept once read: a few files). */
function screenshots() {
  const read = new Map<string, Buffer>();
  return (c: Context<AppEnv>, file: string) => {
    const type = SCREENSHOT_NAME.test(file)
      ? own(SCREENSHOT_TYPES, file.slice(file.lastIndexOf('.') + 1))
      : undefined;
    if (!type) return c.notFound();
    let bytes = read.get(file);
    if (bytes === undefined) {
      const path = join(packageDir, 'docs', 'screenshots', file);
      if (!existsSync(path)) return c.notFound();
      bytes = readFileSync(path);
      read.set(file, bytes);
    }
    return c.body(new Uint8Array(bytes), 200, {
      'Content-Type': type,
      'Cache-Control': 'public, max-age=3600',
    });
  };
}
