/**
 * GET /__sandbox/ui: the sandbox dashboard (partners and accounts, one account, the live
 * request journal, scenarios, clock and integration report), served by the sandbox itself.
 *
 * How it is built, on purpose: the HTML shell is rendered with Hono's JSX on the server
 * and holds no data; ONE small hand-written vanilla JS file (app-js.ts) and one CSS file
 * (app-css.ts) do the rest. No build step, no framework, no CDN, no new npm dependency:
 * it works offline and from the esbuild bundle (the JS and CSS are string constants in
 * .ts modules, so nothing is read from disk at run time).
 *
 * The page uses only the control-plane JSON routes (fetch to /__sandbox/...), sending
 * `Authorization: Bearer <token>` from sessionStorage when SANDBOX_ADMIN_TOKEN is set (it
 * asks for the token on a 401). The shell, JS and CSS carry no data, so they are served
 * without the token. Everything shown is built with createElement/textContent (journal
 * bodies are attacker-controlled), and the page sends a strict Content-Security-Policy.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../http/env.js';
import type { Sandbox } from '../sandbox.js';
import { APP_CSS } from './app-css.js';
import { APP_JS } from './app-js.js';

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

const VIEWS = [
  ['partners', 'Partners'],
  ['account', 'Account'],
  ['journal', 'Journal'],
  ['scenarios', 'Scenarios'],
  ['clock', 'Clock & report'],
] as const;

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
        </dialog>
        <noscript>This dashboard needs JavaScript.</noscript>
      </body>
    </html>
  );
}

export function uiApi(_sandbox: Sandbox) {
  const api = new Hono<AppEnv>();
  let shell: string | undefined;

  api.get(UI_PATH, async (c) => {
    shell ??= `<!doctype html>${await (<Shell />).toString()}`;
    return c.html(shell, 200, { 'Content-Security-Policy': UI_CSP, 'Cache-Control': 'no-cache' });
  });
  api.get(JS_PATH, (c) =>
    c.body(APP_JS, 200, {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'no-cache',
    }),
  );
  api.get(CSS_PATH, (c) =>
    c.body(APP_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  return api;
}
