/**
 * GET /__sandbox/ui: the sandbox dashboard (partners and accounts, one account, the live
 * request journal, scenarios, clock and integration report), served by the sandbox itself.
 *
 * The HTML shell is rendered here with Hono's JSX and holds no data. The page itself is
 * TypeScript in client/ (one module per view, over the typed control-plane client of
 * src/client/control-client.ts) and client/app.css, bundled by esbuild into app.js and app.css
 * (build-assets.ts: on the first request when run from source, at build time in dist/).
 * No CDN: it works offline.
 *
 * The page uses only the control-plane JSON routes, sending `Authorization: Bearer <token>`
 * from sessionStorage when SANDBOX_ADMIN_TOKEN is set (it asks for the token on a 401, or for
 * a partner's client credentials, which it exchanges at /oauth/token to show that partner). The
 * shell, JS and CSS carry no data, so they are served without the token. Everything shown
 * is built with createElement/textContent (journal bodies are attacker-controlled), and
 * the page sends a strict Content-Security-Policy.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../http/env.js';
import type { Sandbox } from '../state/index.js';
import { buildUiAssets, type UiAssets } from './build-assets.js';
import { VIEWS } from './views.js';

export const UI_PATH = '/__sandbox/ui';
const JS_PATH = `${UI_PATH}/app.js`;
const CSS_PATH = `${UI_PATH}/app.css`;

/** The paths the control plane serves without the admin token: the shell and its two assets. */
export function isUiShellPath(path: string): boolean {
  return path === UI_PATH || path === JS_PATH || path === CSS_PATH;
}

export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function Shell() {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Partnership sandbox</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={CSS_PATH} />
        <script src={JS_PATH} defer />
      </head>
      <body>
        <header class="top">
          <div class="brand">
            <span class="logo">◆</span>
            <span class="title">Partnership sandbox</span>
          </div>
          <nav class="tabs" id="tabs">
            {VIEWS.map(([id, label]) => (
              <a href={`#/${id}`} data-view={id} id={`tab-${id}`}>
                {label}
              </a>
            ))}
          </nav>
          <div class="top-right">
            <span class="clock-chip" id="top-clock" title="Sandbox clock">
              …
            </span>
            <button type="button" class="link" id="forget-token" hidden>
              Forget token
            </button>
          </div>
        </header>
        <main>
          {VIEWS.map(([id]) => (
            <section class="view" id={`view-${id}`} data-view={id} hidden />
          ))}
        </main>
        <div class="toast" id="toast" role="status" aria-live="polite" hidden />
        <dialog id="token-dialog">
          <form id="token-form" method="dialog">
            <h2>Control-plane token</h2>
            <p>
              This sandbox is protected by <code>SANDBOX_ADMIN_TOKEN</code>. Enter it to use the dashboard; it
              is kept in this tab's session storage only.
            </p>
            <p class="error" id="token-error" hidden />
            <input id="token-input" type="password" autocomplete="off" placeholder="SANDBOX_ADMIN_TOKEN" />
            <div class="actions">
              <button type="submit" class="primary" id="token-submit">
                Use token
              </button>
            </div>
          </form>
          <form id="partner-form" method="dialog">
            <h2>Or sign in as a partner</h2>
            <p>
              A partner's client credentials: the dashboard then shows that partner only (its token, from{' '}
              <code>/oauth/token</code>, is kept in this tab's session storage).
            </p>
            <p class="error" id="partner-error" hidden />
            <input id="partner-client-id" autocomplete="username" placeholder="client_id" />
            <input
              id="partner-client-secret"
              type="password"
              autocomplete="current-password"
              placeholder="client_secret"
            />
            <div class="actions">
              <button type="submit" class="primary" id="partner-submit">
                Sign in
              </button>
            </div>
          </form>
        </dialog>
        <noscript>This dashboard needs JavaScript.</noscript>
      </body>
    </html>
  );
}

/** Built once per process (from source), or constants in the production bundle. */
let assets: UiAssets | undefined;
function asset(name: keyof UiAssets): string {
  assets ??= buildUiAssets();
  return assets[name];
}

export function uiApi(_sandbox: Sandbox) {
  const api = new Hono<AppEnv>();
  let shell: string | undefined;

  api.get(UI_PATH, async (c) => {
    shell ??= `<!doctype html>${await (<Shell />).toString()}`;
    return c.html(shell, 200, { 'Content-Security-Policy': UI_CSP, 'Cache-Control': 'no-cache' });
  });
  api.get(JS_PATH, (c) =>
    c.body(asset('js'), 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'no-cache',
    }),
  );
  api.get(CSS_PATH, (c) =>
    c.body(asset('css'), 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  return api;
}
