/**
 * The dashboard (/__sandbox/ui) in real headless Chromium (Debian's /usr/bin/chromium,
 * driven by playwright-core) against a real listening sandbox: the page loads under its
 * CSP, shows what the API does, arms scenarios with a click, shows attacker-controlled
 * journal bodies as text, and asks for SANDBOX_ADMIN_TOKEN when the control plane wants it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/core/config.js';
import { type Running, startServer } from '../../src/server.js';
import { CHROMIUM, launchChromium } from '../helpers/browser.js';
import { DEMO, REGISTER, registerBody, testConfig } from '../helpers/harness.js';
import { demoToken, tokenResponse } from '../helpers/raw-http.js';

let browser: Browser;
let server: Running | undefined;
const pages: Page[] = [];

beforeAll(async () => {
  browser = await launchChromium();
});
afterEach(async () => {
  for (const p of pages.splice(0)) await p.close();
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await browser?.close();
});

async function start(overrides: Partial<Config> = {}) {
  server = await startServer(testConfig({ port: 0, ...overrides }));
  return server.url;
}

/** A new tab that records page errors and console errors (a CSP violation is one). */
async function open(url: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  pages.push(page);
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  return { page, problems };
}

/** The partnership API over the socket, as a partner would call it. */
async function partner(base: string) {
  const access_token = await demoToken(base);
  expect(access_token).toEqual(expect.any(String));
  const headers = { Authorization: `Bearer ${access_token}`, 'X-Platform-Parent-Account-Id': DEMO.parent };
  let key = 0;
  return {
    get: (path: string, extra: Record<string, string> = {}) =>
      fetch(base + path, { headers: { ...headers, ...extra } }),
    put: (path: string, body: unknown, extra: Record<string, string> = {}) =>
      fetch(base + path, {
        method: 'PUT',
        headers: {
          ...headers,
          'Content-Type': 'application/json',
          'Idempotency-Key': `ui-test-put-${++key}-${Date.now()}`,
          ...extra,
        },
        body: JSON.stringify(body),
      }),
    register: (body: Record<string, unknown> = {}) =>
      fetch(base + REGISTER, {
        method: 'POST',
        headers: {
          ...headers,
          'Content-Type': 'application/json',
          'Idempotency-Key': `ui-test-${++key}-${Date.now()}`,
        },
        body: JSON.stringify(registerBody(body)),
      }),
  };
}

const admin = (base: string, method: string, path: string, body?: unknown, token?: string) =>
  fetch(base + path, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const HTML_PARSING =
  /innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/;

describe('the dashboard in headless Chromium', () => {
  it('Chromium is where the tests expect it', () => {
    expect(existsSync(CHROMIUM)).toBe(true);
  });

  it('its sources (src/ui/client) build DOM from elements and text only: nothing parses HTML', () => {
    const dir = join(import.meta.dirname, '..', '..', 'src', 'ui', 'client');
    const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(sources).toEqual(
      expect.arrayContaining(['dashboard-main.ts', 'dom.ts', join('views', 'journal-view.ts')]),
    );
    const parsing = sources.filter((file) => HTML_PARSING.test(readFileSync(join(dir, file), 'utf8')));
    expect(parsing).toEqual([]);
  });

  it('serves the shell, JS and CSS without data and with a strict CSP; the page loads with no error', async () => {
    const base = await start();
    const shell = await fetch(`${base}/__sandbox/ui`);
    expect(shell.status).toBe(200);
    expect(shell.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = shell.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await shell.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toContain(DEMO.parent); // the shell carries no data
    expect(html).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/i); // nothing inline
    const js = await fetch(`${base}/__sandbox/ui/app.js`);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const script = await js.text();
    expect(script).not.toMatch(HTML_PARSING);
    // the control-plane client imports only types from zod: no validation library in the page
    expect(script.length).toBeLessThan(100_000);
    const css = await fetch(`${base}/__sandbox/ui/app.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);

    const { page, problems } = await open(`${base}/__sandbox/ui`);
    await page.getByText('Demo Commerce Platform').waitFor();
    await page
      .locator('#top-clock')
      .filter({ hasText: /^\d{4}-\d\d-\d\d / })
      .waitFor();
    for (const view of ['journal', 'scenarios', 'clock', 'snapshots', 'account', 'partners']) {
      await page.locator(`#tab-${view}`).click();
      await page.locator(`#view-${view}`).waitFor({ state: 'visible' });
    }
    await page.locator('#tab-scenarios').click();
    await page.locator('.scenario-card', { hasText: 'server-error' }).first().waitFor();
    await page.locator('#tab-clock').click();
    await page.locator('#report .check').first().waitFor();
    expect(problems).toEqual([]);
  });

  it('an account registered through the API appears in the page, and its view shows pages, variants (archived as such), status and controls', async () => {
    const base = await start();
    const { page, problems } = await open(`${base}/__sandbox/ui#/partners`);
    await page.getByText('Demo Commerce Platform').waitFor();

    const api = await partner(base);
    const res = await api.register({ brand: 'Registered From The Test' });
    expect(res.status).toBe(200);
    const accountId: string = ((await res.json()) as { data: { account_id: string } }).data.account_id;
    const row = page.locator(`tr[data-account-id="${accountId}"]`);
    await row.waitFor({ timeout: 8000 }); // the partners view polls
    expect(await row.textContent()).toContain('Registered From The Test');

    const detail = (await (await admin(base, 'GET', `/__sandbox/accounts/${accountId}`)).json()) as {
      variants: { variant_id: string }[];
    };
    const archived = detail.variants[0]!.variant_id;
    expect((await admin(base, 'PATCH', `/__sandbox/variants/${archived}`, { archived: true })).status).toBe(
      200,
    );

    await row.click();
    await page.locator('#view-account').getByText(accountId).first().waitFor();
    expect(page.url()).toContain(`#/account/${accountId}`);
    const archivedRow = page.locator(`tr[data-variant-id="${archived}"]`);
    await archivedRow.waitFor();
    expect(await archivedRow.getAttribute('class')).toContain('archived');
    expect(await archivedRow.textContent()).toContain('archived');
    await page.locator('#account-status').getByText('active').waitFor();
    await page.getByText('Translated verticals', { exact: false }).waitFor();
    expect(await page.locator('#view-account table').count()).toBeGreaterThanOrEqual(4);
    expect(problems).toEqual([]);
  });

  it('arming a scenario from the page applies it to the next API call (X-Sandbox-Scenario-Applied), and the live journal shows it', async () => {
    const base = await start();
    const api = await partner(base); // the token first: an armed server-error applies to the grant too
    const { page, problems } = await open(`${base}/__sandbox/ui#/scenarios`);
    await page.locator('#arm-scenario option[value="server-error"]').waitFor({ state: 'attached' });
    await page.locator('#arm-scope').selectOption('parent_account_id');
    await page.locator('#arm-scenario').selectOption('server-error');
    await page.locator('#arm-value').fill('503');
    await page.locator('#arm-target').fill(DEMO.parent);
    await page.locator('#arm-times').fill('1');
    await page.locator('#arm-submit').click();
    await page.locator('#armed-list tr[data-scenario="server-error"]').waitFor();

    const hit = await api.get('/v1/partnership/vertical-mappings');
    expect(hit.status).toBe(503);
    expect(hit.headers.get('x-sandbox-scenario-applied')).toContain('server-error');
    const next = await api.get('/v1/partnership/vertical-mappings'); // times: 1
    expect(next.status).toBe(200);
    expect(next.headers.get('x-sandbox-scenario-applied')).toBeNull();

    await page.locator('#tab-journal').click();
    const row = page.locator('#view-journal tr.clickable', { hasText: 'server-error' });
    await row.waitFor({ timeout: 5000 });
    await row.click();
    await page.locator('#detail-scenarios').getByText('server-error=503').waitFor();
    expect(await page.locator('#detail-response pre').textContent()).toContain('"status": 503');

    // filters narrow the list: status 200 hides the 503
    await page.locator('#filter-status').fill('200');
    await page
      .locator('#view-journal tr.clickable', { hasText: 'server-error' })
      .waitFor({ state: 'detached' });
    expect(await page.locator('#view-journal tr.clickable').count()).toBeGreaterThan(0);

    // disarm from the page too
    const armed = await admin(base, 'PUT', '/__sandbox/scenarios', {
      scenario: 'latency',
      value: 1,
      parent_account_id: DEMO.parent,
    });
    expect(armed.ok).toBe(true);
    await page.locator('#tab-scenarios').click();
    await page.locator('#disarm-all').click();
    await page.getByText('Nothing armed').waitFor();
    expect(problems).toEqual([]);
  });

  it('a chaos profile set, changed and ended from the Scenarios tab fails and then spares API calls; the report shows the resilience part', async () => {
    const base = await start();
    const api = await partner(base); // the token first: a chaos profile fails token calls too
    const { page, problems } = await open(`${base}/__sandbox/ui#/scenarios`);
    await page.locator('#chaos-form').waitFor();
    await page.getByText('No chaos profile').waitFor();
    await page.locator('#chaos-rate').fill('1');
    await page.locator('#chaos-seed').fill('5');
    await page.locator('#chaos-scenarios').fill('server-error');
    await page.locator('#chaos-target').fill(DEMO.parent);
    await page.locator('#chaos-submit').click();
    const row = page.locator(`#chaos-list tr[data-chaos="${DEMO.parent}"]`);
    await row.waitFor();

    const failed = await api.get('/v1/partnership/vertical-mappings');
    expect(failed.status).toBe(503);
    expect(failed.headers.get('x-sandbox-chaos')).toBe('seed=5; call=1');
    const retried = await api.get('/v1/partnership/vertical-mappings');
    expect(retried.status).toBe(200);
    // The page polls: the profile's row counts the calls and the failure by scenario.
    await row.getByText('server-error ×1').waitFor({ timeout: 5000 });

    // The journal shows the evidence of the injected call.
    await page.locator('#tab-journal').click();
    await page.locator('#view-journal tr.clickable', { hasText: '503' }).first().click();
    expect(await page.locator('#detail-chaos').textContent()).toBe('server-error: seed=5; call=1');
    await page.locator('#tab-scenarios').click();
    await page.locator('#chaos-form').waitFor();

    // Change it: rate 0 replaces the profile (one row, its counts from zero); no call fails.
    await page.locator('#chaos-rate').fill('0');
    await page.locator('#chaos-submit').click();
    await row.getByText('server-error ×1').waitFor({ state: 'detached' });
    expect(await page.locator('#chaos-list tbody tr').count()).toBe(1);
    expect((await api.get('/v1/partnership/vertical-mappings')).status).toBe(200);
    const listed = (await (await admin(base, 'GET', '/__sandbox/chaos')).json()) as { profiles: unknown[] };
    expect(listed.profiles).toMatchObject([
      { parent_account_id: DEMO.parent, rate: 0, seed: 5, calls_seen: 1 },
    ]);

    // From call: the partner's next call is that call (a failing test replayed from its first call).
    await page.locator('#chaos-rate').fill('1');
    await page.locator('#chaos-from-call').fill('40');
    await page.locator('#chaos-submit').click();
    await row.locator('td', { hasText: /^40$/ }).waitFor();
    const replayed = await api.get('/v1/partnership/vertical-mappings');
    expect(replayed.headers.get('x-sandbox-chaos')).toBe('seed=5; call=40');
    expect((await api.get('/v1/partnership/vertical-mappings')).status).toBe(200); // recovered
    await page.locator('#chaos-from-call').fill('');

    // End it from the page.
    await page.locator(`[data-chaos-end="${DEMO.parent}"]`).click();
    await page.getByText('No chaos profile').waitFor();
    const ended = (await (await admin(base, 'GET', '/__sandbox/chaos')).json()) as { profiles: unknown[] };
    expect(ended.profiles).toEqual([]);

    // The report's resilience part: each 503 was recovered by the next call of the same path.
    await page.locator('#tab-clock').click();
    const part = page.locator('#resilience [data-resilience="server-error"]');
    await part.waitFor();
    expect(await part.textContent()).toContain('server-error: recovered 2 of 2');
    expect(await part.locator('.badge').textContent()).toBe('passed');
    expect(problems).toEqual([]);
  });

  it('a journal entry with <script> and an onerror image in its body is shown as text: nothing runs', async () => {
    const base = await start();
    const api = await partner(base);
    const script = '<script>window.__xss=1</script>';
    const img = '<img src=x onerror=window.__xss=2>';
    const res = await api.register({ brand: script, store_identifier: img });
    expect([200, 400]).toContain(res.status); // rejected or accepted: journaled either way
    const res2 = await api.register({ brand: img });
    expect([200, 400]).toContain(res2.status);

    const { page, problems } = await open(`${base}/__sandbox/ui#/journal`);
    await page.locator('#filter-method').selectOption('POST');
    const rows = page.locator('#view-journal tr.clickable', { hasText: '/register/' });
    await expect.poll(() => rows.count(), { timeout: 5000 }).toBe(2);
    await rows.last().click();
    const request = page.locator('#detail-request pre');
    await request.waitFor();
    expect(await request.textContent()).toContain(script);
    expect(await request.textContent()).toContain(img);
    await page.getByText(script, { exact: false }).first().waitFor({ state: 'visible' });
    await rows.first().click();
    await page.locator('#detail-request pre', { hasText: img }).waitFor();

    // accepted brands show as text in the partners and account views as well
    await page.locator('#tab-partners').click();
    await page.locator('#view-partners').getByText('Demo Commerce Platform').waitFor();
    if (res2.status === 200) await page.locator('td.brand-cell', { hasText: img }).waitFor();

    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('with SANDBOX_ADMIN_TOKEN the shell loads without it, the page asks for the token, then works and sends it on every API call', async () => {
    const TOKEN = 'ui-admin-token-Zq9!';
    const base = await start({ adminToken: TOKEN });
    expect((await fetch(`${base}/__sandbox/ui`)).status).toBe(200);
    expect((await fetch(`${base}/__sandbox/ui/app.js`)).status).toBe(200);
    expect((await fetch(`${base}/__sandbox/ui/app.css`)).status).toBe(200);
    expect((await fetch(`${base}/__sandbox/partners`)).status).toBe(401);
    expect((await fetch(`${base}/__sandbox/ui/../partners`)).status).toBe(401);
    expect((await fetch(`${base}/__sandbox/ui/%2e%2e/partners`)).status).toBe(401);

    const sent: (string | undefined)[] = [];
    const { page, problems } = await open(`${base}/__sandbox/ui#/partners`);
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/__sandbox/') && !path.startsWith('/__sandbox/ui'))
        sent.push(r.headers().authorization);
    });
    const dialog = page.locator('#token-dialog');
    await dialog.waitFor({ state: 'visible' });
    expect(await page.getByText('Demo Commerce Platform').count()).toBe(0);

    await page.locator('#token-input').fill('not-the-token');
    await page.locator('#token-submit').click();
    await page.locator('#token-error').getByText('refused').waitFor();
    await page.locator('#token-input').fill(TOKEN);
    await page.locator('#token-submit').click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('Demo Commerce Platform').waitFor();
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toContain(TOKEN);

    await page.locator('#tab-journal').click();
    await page.locator('#view-journal').getByText('shown').waitFor();
    const before = sent.length;
    await expect.poll(() => sent.length, { timeout: 5000 }).toBeGreaterThan(before + 2); // it keeps polling
    // once the right token is given, every control-plane call carries it
    const afterToken = sent.slice(sent.indexOf(`Bearer ${TOKEN}`));
    expect(afterToken.length).toBeGreaterThan(2);
    for (const value of afterToken) expect(value).toBe(`Bearer ${TOKEN}`);

    // a reload keeps working from sessionStorage without asking again
    await page.goto(`${base}/__sandbox/ui#/partners`);
    await page.reload();
    await page.getByText('Demo Commerce Platform').waitFor();
    expect(await dialog.isVisible()).toBe(false);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
  });

  it('with SANDBOX_ADMIN_TOKEN a partner signs in with its client credentials and sees that partner only', async () => {
    const base = await start({ adminToken: 'ui-admin-token-partner' });
    const { page, problems } = await open(`${base}/__sandbox/ui#/partners`);
    const sent: (string | undefined)[] = [];
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/__sandbox/') && !path.startsWith('/__sandbox/ui'))
        sent.push(r.headers().authorization);
    });
    const dialog = page.locator('#token-dialog');
    await dialog.waitFor({ state: 'visible' });
    await page.locator('#partner-client-id').fill(DEMO.clientId);
    await page.locator('#partner-client-secret').fill('not-the-secret');
    await page.locator('#partner-submit').click();
    await page.locator('#partner-error').getByText('refused').waitFor();
    await page.locator('#partner-client-secret').fill(DEMO.clientSecret);
    await page.locator('#partner-submit').click();
    await dialog.waitFor({ state: 'hidden' });
    await page.locator('#view-partners').getByText('Demo Commerce Platform').waitFor();
    expect(await page.getByText('Unseeded Platform').count()).toBe(0);
    expect(await page.locator('#forget-token').textContent()).toBe(`Sign out ${DEMO.parent}`);
    expect(await page.locator('#tab-snapshots').isVisible()).toBe(false);
    // its own clock in the header, and every control-plane call made with the partner's token
    await expect.poll(() => sent.length, { timeout: 5000 }).toBeGreaterThan(3);
    const token = sent.at(-1);
    expect(token).toMatch(/^Bearer sbx_/);
    await page.locator('#tab-journal').click();
    await page.locator('#view-journal').getByText('shown').waitFor();
    expect(await page.locator('#journal-clear').isVisible()).toBe(false);
    // its clock moved past the token's life: the next token comes from its credentials, no dialog
    const moved = await fetch(`${base}/__sandbox/partners/${DEMO.parent}/clock/advance`, {
      method: 'POST',
      headers: { Authorization: 'Bearer ui-admin-token-partner', 'Content-Type': 'application/json' },
      body: JSON.stringify({ seconds: 7200 }),
    });
    expect(moved.status).toBe(200);
    await expect.poll(() => sent.at(-1) !== token, { timeout: 5000 }).toBe(true);
    expect(sent.at(-1)).toMatch(/^Bearer sbx_/);
    expect(await dialog.isVisible()).toBe(false);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
  });

  it('signed in as a partner, the forms say what they cover for it: never "every partner"', async () => {
    const base = await start({ adminToken: 'ui-admin-token-wording' });
    const { page, problems } = await open(`${base}/__sandbox/ui#/scenarios`);
    await page.locator('#token-dialog').waitFor({ state: 'visible' });
    await page.locator('#partner-client-id').fill(DEMO.clientId);
    await page.locator('#partner-client-secret').fill(DEMO.clientSecret);
    await page.locator('#partner-submit').click();
    await page.locator('#token-dialog').waitFor({ state: 'hidden' });
    await page.locator('#chaos-in-force').getByText(DEMO.parent).waitFor();
    expect(await page.locator('#chaos-target').getAttribute('placeholder')).toBe(
      `${DEMO.parent} (its own profile)`,
    );
    expect(await page.locator('#chaos-end-all').textContent()).toBe('End its profile');
    expect(await page.locator('#disarm-all').textContent()).toBe(`Disarm ${DEMO.parent}'s`);
    expect(await page.locator('#chaos-in-force').textContent()).toContain(
      `In force for ${DEMO.parent}: none`,
    );
    expect(await page.locator('#view-scenarios').textContent()).not.toMatch(/every partner|any partner/);
    await page.locator('#tab-clock').click();
    await page.locator('#clock-covers').getByText(DEMO.parent).waitFor();
    expect(await page.locator('#clock-route').textContent()).toBe(
      `GET /__sandbox/partners/${DEMO.parent}/clock`,
    );
    expect(await page.locator('#view-clock').textContent()).not.toMatch(/every partner|any partner/);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
  });

  it("a partner's clock and reset from the Partners view touch that partner alone", async () => {
    const base = await start();
    const other = (await (
      await admin(base, 'POST', '/__sandbox/partners', { name: 'Other Partner' })
    ).json()) as {
      parent_account_id: string;
    };
    const api = await partner(base);
    const res = await api.register({ brand: 'Wiped By The Reset' });
    expect(res.status).toBe(200);
    const accountId = ((await res.json()) as { data: { account_id: string } }).data.account_id;
    const clockOf = async (parent: string) =>
      (
        (await (await admin(base, 'GET', `/__sandbox/partners/${parent}/clock`)).json()) as {
          offset_seconds: number;
        }
      ).offset_seconds;

    const { page, problems } = await open(`${base}/__sandbox/ui#/partners`);
    await page.locator(`tr[data-account-id="${accountId}"]`).waitFor();
    await page.getByText('Other Partner').waitFor();
    const demoCard = page.locator('.card', { has: page.locator(`[data-clock="${DEMO.parent}"]`) });
    const demoClock = page.locator(`[data-clock="${DEMO.parent}"]`);
    await demoClock.filter({ hasText: 'in step' }).waitFor();

    await demoCard.locator('button[data-advance="3600"]').click();
    await demoClock.filter({ hasText: '+1 h ahead' }).waitFor();
    expect(await clockOf(DEMO.parent)).toBe(3600);
    expect(await clockOf(other.parent_account_id)).toBe(0);
    expect(await page.locator(`[data-clock="${other.parent_account_id}"]`).textContent()).toBe('in step');

    // a reset asks first: one click changes nothing
    const reset = page.locator(`button[data-reset="${DEMO.parent}"]`);
    await reset.click();
    expect(await reset.textContent()).toBe('Really reset?');
    expect((await admin(base, 'GET', `/__sandbox/accounts/${accountId}`)).status).toBe(200);
    await reset.click();
    await page.locator(`tr[data-account-id="${accountId}"]`).waitFor({ state: 'detached' });
    await demoClock.filter({ hasText: 'in step' }).waitFor();
    expect((await admin(base, 'GET', `/__sandbox/accounts/${accountId}`)).status).toBe(404);
    expect(await clockOf(DEMO.parent)).toBe(0);
    await page.getByText('Other Partner').waitFor(); // the other partner is still there
    expect(problems).toEqual([]);
  });

  it("'Download bundle' saves the partner's bundle, fetched with the admin token, and the file loads back", async () => {
    const TOKEN = 'ui-bundle-token-7Rw';
    const base = await start({ adminToken: TOKEN });
    const api = await partner(base);
    const res = await api.register({ brand: 'Travels In A Bundle' });
    const accountId = ((await res.json()) as { data: { account_id: string } }).data.account_id;

    const { page, problems } = await open(`${base}/__sandbox/ui#/partners`);
    await page.locator('#token-input').fill(TOKEN);
    await page.locator('#token-submit').click();
    await page.locator(`tr[data-account-id="${accountId}"]`).waitFor();
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.locator(`button[data-bundle="${DEMO.parent}"]`).click(),
    ]);
    expect(file.suggestedFilename()).toBe(`sandbox-bundle-${DEMO.parent}.json`);
    const text = readFileSync(await file.path(), 'utf8');
    const bundle = JSON.parse(text) as {
      partner: { parent_account_id: string };
      accounts: { account_id: string; brand: string }[];
    };
    expect(bundle.partner.parent_account_id).toBe(DEMO.parent);
    expect(bundle.accounts.map((a) => a.brand)).toContain('Travels In A Bundle');

    // the downloaded file is a real bundle: after a reset it brings the account back
    expect((await admin(base, 'POST', '/__sandbox/reset', undefined, TOKEN)).status).toBe(200);
    expect((await admin(base, 'GET', `/__sandbox/accounts/${accountId}`, undefined, TOKEN)).status).toBe(404);
    expect((await admin(base, 'POST', '/__sandbox/bundles', JSON.parse(text), TOKEN)).status).toBe(200);
    expect((await admin(base, 'GET', `/__sandbox/accounts/${accountId}`, undefined, TOKEN)).status).toBe(200);
    expect(problems.filter((p) => !p.includes('401'))).toEqual([]);
  });

  it('Snapshots: saved from the page, listed, restored (after asking) and deleted', async () => {
    const base = await start();
    const { page, problems } = await open(`${base}/__sandbox/ui#/snapshots`);
    await page.getByText('No snapshots yet').waitFor();
    await page.locator('#snapshot-name').fill('before-register');
    await page.locator('#snapshot-save').click();
    const row = page.locator('#snapshot-list tr[data-snapshot="before-register"]');
    await row.waitFor();
    const listed = (await (await admin(base, 'GET', '/__sandbox/snapshots')).json()) as {
      snapshots: { name: string; size_bytes: number }[];
    };
    expect(listed.snapshots.map((s) => s.name)).toEqual(['before-register']);
    expect(await row.textContent()).toContain('KB');

    const api = await partner(base);
    const res = await api.register({ brand: 'After The Snapshot' });
    const accountId = ((await res.json()) as { data: { account_id: string } }).data.account_id;

    const restore = row.locator('button[data-restore="before-register"]');
    await restore.click();
    expect(await restore.textContent()).toBe('Really restore?');
    expect((await admin(base, 'GET', `/__sandbox/accounts/${accountId}`)).status).toBe(200);
    await restore.click();
    await page.locator('#toast', { hasText: 'Restored the sandbox to before-register' }).waitFor();
    expect((await admin(base, 'GET', `/__sandbox/accounts/${accountId}`)).status).toBe(404);
    await page.locator('#tab-partners').click();
    await page.getByText('Demo Commerce Platform').waitFor();
    expect(await page.locator(`tr[data-account-id="${accountId}"]`).count()).toBe(0);

    await page.locator('#tab-snapshots').click();
    const drop = page.locator('button[data-delete="before-register"]');
    await drop.click();
    await drop.click();
    await row.waitFor({ state: 'detached' });
    await page.getByText('No snapshots yet').waitFor();
    const after = (await (await admin(base, 'GET', '/__sandbox/snapshots')).json()) as {
      snapshots: unknown[];
    };
    expect(after.snapshots).toEqual([]);
    expect(problems).toEqual([]);
  });
});

/** An account registered by the demo partner, and its ID. */
async function registered(api: Awaited<ReturnType<typeof partner>>, brand: string): Promise<string> {
  const res = await api.register({ brand });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { account_id: string } }).data.account_id;
}

/** Sets a chaos profile through the control plane (PUT /__sandbox/chaos): 200 or the test fails. */
async function setChaos(base: string, profile: Record<string, unknown>) {
  expect((await admin(base, 'PUT', '/__sandbox/chaos', profile)).status).toBe(200);
}

/** A chaos profile of rate 1 (server-error) for the demo partner, and the call it fails: its first. */
async function chaosFailure(base: string, api: Awaited<ReturnType<typeof partner>>, seed: number) {
  await setChaos(base, { rate: 1, seed, scenarios: ['server-error'], parent_account_id: DEMO.parent });
  const failed = await api.get('/v1/partnership/vertical-mappings');
  expect(failed.status).toBe(503);
  expect(failed.headers.get('x-sandbox-chaos')).toBe(`seed=${seed}; call=1`);
  return failed;
}

const STATUS_PATH = (account: string) => `/v1/partnership/accounts/${account}/status`;
const CONTROLS_PATH = (account: string) => `/v1/partnership/accounts/${account}/marketplacecontrolslists`;

describe('the dashboard shows what the docs promise (issue 32 item 6)', () => {
  it('a partial failure: the variants that failed, named in the account view as the warning says, in the API words (active, paused)', async () => {
    const base = await start();
    const api = await partner(base);
    const account = await registered(api, 'Half Activated');
    expect((await api.put(STATUS_PATH(account), { status: 'paused' })).status).toBe(200);
    const res = await api.put(
      STATUS_PATH(account),
      { status: 'active' },
      { 'X-Sandbox-Scenario': 'status-partial-failure=1' },
    );
    expect(res.status).toBe(200);
    const warning = res.headers.get('x-sandbox-warning') ?? '';
    expect(warning).toContain('GET /__sandbox/accounts/{account_id} shows last_status_write');
    const failedId = /: (\S+) \(page /.exec(warning)?.[1];
    expect(failedId).toEqual(expect.any(String));
    const body = (await res.json()) as { data: { status: string } };
    expect(body.data.status).toBe('mixed');

    const { page, problems } = await open(`${base}/__sandbox/ui#/account/${account}`);
    const callout = page.locator('#failed-variants');
    await callout.waitFor();
    expect(await callout.textContent()).toContain(failedId!);
    const row = page.locator(`tr[data-variant-id="${failedId}"]`);
    expect(await row.getAttribute('class')).toContain('failed');
    expect(await row.locator('.variant-status').textContent()).toBe('paused');
    expect(await page.locator(`tr[data-write-variant="${failedId}"]`).textContent()).toContain('failed');
    await page.locator('#account-status').getByText('mixed').waitFor();
    // The API's words: a variant is active or paused, never enabled, disabled or "live".
    for (const text of await page.locator('#view-account table').allInnerTexts()) {
      expect(text).not.toMatch(/\b(enabled|disabled|live)\b/i);
    }
    expect(await page.locator('.variant-status').allTextContents()).toEqual(['paused', 'active']);
    expect(problems).toEqual([]);
  });

  it("sub-verticals by their names in the partner's taxonomy, and '1 blocked domain' with the right plural", async () => {
    const base = await start();
    const api = await partner(base);
    const account = await registered(api, 'Named Taxonomy');
    const mappings = (
      (await (await api.get('/v1/partnership/vertical-mappings')).json()) as {
        data: {
          vertical_mappings: {
            partner_sub_vertical_id: number;
            partner_sub_vertical_name: string;
            partner_vertical_name: string;
          }[];
        };
      }
    ).data.vertical_mappings;
    const detail = (await (await admin(base, 'GET', `/__sandbox/accounts/${account}`)).json()) as {
      account: { sub_vertical_id: number };
      controls: { content_hash: string; translated: { translated_verticals: { vertical_id: number }[] } };
    };
    const own = mappings.find((m) => m.partner_sub_vertical_id === detail.account.sub_vertical_id)!;
    const one = await api.put(CONTROLS_PATH(account), {
      blockedVerticals: [],
      domains: [{ domain: 'casino.example' }],
      contentHash: detail.controls.content_hash,
    });
    expect(one.status).toBe(200);
    const hash = ((await one.json()) as { data: { marketplace_controls_list: { content_hash: string } } })
      .data.marketplace_controls_list.content_hash;

    const { page, problems } = await open(`${base}/__sandbox/ui#/account/${account}`);
    await page.locator('#account-sub-vertical').getByText(own.partner_sub_vertical_name).waitFor();
    expect(await page.locator('#view-account').innerText()).toContain(own.partner_vertical_name);
    const translated = detail.controls.translated.translated_verticals;
    expect(translated.length).toBeGreaterThan(0);
    for (const t of translated) {
      const name = mappings.find(
        (m) => m.partner_sub_vertical_id === t.vertical_id,
      )!.partner_sub_vertical_name;
      expect(await page.locator(`tr[data-sub-vertical="${t.vertical_id}"]`).textContent()).toContain(name);
    }
    expect(await page.locator('#blocked-domains').textContent()).toBe('1 blocked domain');

    const two = await api.put(CONTROLS_PATH(account), {
      blockedVerticals: [],
      domains: [{ domain: 'casino.example' }, { domain: 'vapes.example' }],
      contentHash: hash,
    });
    expect(two.status).toBe(200);
    await page.locator('#blocked-domains').getByText('2 blocked domains').waitFor({ timeout: 5000 });
    expect(problems).toEqual([]);
  });

  it('the journal fills the page, filters by partner, and marks chaos-injected calls apart from drills', async () => {
    const base = await start();
    const api = await partner(base);
    const other = (await (
      await admin(base, 'POST', '/__sandbox/partners', { name: 'Second Partner' })
    ).json()) as {
      parent_account_id: string;
      client_id: string;
      client_secret: string;
    };
    const otherToken = (await (await tokenResponse(base, other.client_id, other.client_secret)).json()) as {
      access_token: string;
    };
    const otherCall = await fetch(`${base}/v1/partnership/vertical-mappings`, {
      headers: {
        Authorization: `Bearer ${otherToken.access_token}`,
        'X-Platform-Parent-Account-Id': other.parent_account_id,
      },
    });
    expect(otherCall.status).toBe(200);
    // A drill (the scenario header) and a chaos failure (a profile at rate 1), on the same path.
    const drill = await api.get('/v1/partnership/vertical-mappings', {
      'X-Sandbox-Scenario': 'server-error=500',
    });
    expect(drill.status).toBe(500);
    await chaosFailure(base, api, 3);

    const { page, problems } = await open(`${base}/__sandbox/ui#/journal`);
    const rows = page.locator('#view-journal tr.clickable');
    await page.locator('#view-journal tr.kind-chaos').waitFor();
    // It fills the page: list and detail side by side, down to the bottom of the window.
    const list = (await page.locator('.journal-list').boundingBox())!;
    const detail = (await page.locator('#journal-detail').boundingBox())!;
    expect(detail.x).toBeGreaterThanOrEqual(list.x + list.width);
    expect(list.y + list.height).toBeGreaterThan(900 - 40);
    expect(list.height).toBeGreaterThan(600);

    const chaosRow = page.locator('#view-journal tr.kind-chaos');
    expect(await chaosRow.count()).toBe(1);
    expect(await chaosRow.locator('.chip.chaos').textContent()).toBe('chaos: server-error · call 1');
    const drillRow = page.locator('#view-journal tr.kind-drill');
    expect(await drillRow.count()).toBe(1);
    expect(await drillRow.locator('.chip.scenario').textContent()).toBe('server-error=500');
    expect(await drillRow.locator('.chip.chaos').count()).toBe(0);
    expect(await page.locator('#journal-count').textContent()).toContain('1 chaos-injected');

    await page.locator('#filter-kind').selectOption('chaos');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute('data-kind')).toBe('chaos');
    // From one row to one row: wait for the row to change, not for the count (already 1).
    await page.locator('#filter-kind').selectOption('drill');
    await expect.poll(() => rows.first().getAttribute('data-kind')).toBe('drill');
    expect(await rows.count()).toBe(1);
    await page.locator('#filter-kind').selectOption('');

    // The partner filter: the second partner's one call, then the demo partner's own.
    await page.locator('#filter-partner').selectOption(other.parent_account_id);
    await expect.poll(() => rows.count()).toBe(2); // its token call and its mappings read
    await rows.filter({ hasText: '/v1/partnership/vertical-mappings' }).click();
    await page.locator('#journal-detail').getByText(other.parent_account_id).first().waitFor();
    await page.locator('#filter-partner').selectOption(DEMO.parent);
    const demoCount = (
      (await (
        await admin(base, 'POST', '/__sandbox/requests/count', { parent_account_id: DEMO.parent })
      ).json()) as {
        count: number;
      }
    ).count;
    await expect.poll(() => rows.count()).toBe(demoCount);
    expect(problems).toEqual([]);
  });

  it('the journal detail shows the response headers: Retry-After of a 429, the scenario applied', async () => {
    const base = await start();
    const api = await partner(base);
    const limited = await api.get('/v1/partnership/vertical-mappings', {
      'X-Sandbox-Scenario': 'rate-limited=4',
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('4');

    const { page, problems } = await open(`${base}/__sandbox/ui#/journal`);
    await page.locator('#view-journal tr.clickable', { hasText: '429' }).click();
    const retryAfter = page.locator('#detail-response-headers [data-header="retry-after"]');
    await retryAfter.waitFor();
    expect(await retryAfter.textContent()).toBe('retry-after: 4');
    expect(await retryAfter.getAttribute('class')).toContain('key-header');
    expect(await retryAfter.isVisible()).toBe(true); // open, not folded away
    expect(
      await page.locator('#detail-response-headers [data-header="x-sandbox-scenario-applied"]').textContent(),
    ).toBe('x-sandbox-scenario-applied: rate-limited=4');
    expect(await page.locator('#detail-response-headers [data-header="x-request-id"]').textContent()).toBe(
      `x-request-id: ${limited.headers.get('x-request-id')}`,
    );
    // As the sandbox wrote them: not the transport headers Node's server adds after (over a real socket here).
    expect(await page.locator('#detail-response-headers').innerText()).not.toMatch(/content-length/i);
    expect(problems).toEqual([]);
  });

  it('the chaos form shows the profile in force (SANDBOX_CHAOS here), not 0.1/42, and is empty when none is; the partner card shows its profile', async () => {
    const base = await start({ chaos: 'rate=0.2,seed=7' });
    const other = (await (
      await admin(base, 'POST', '/__sandbox/partners', { name: 'Own Chaos' })
    ).json()) as {
      parent_account_id: string;
    };
    await setChaos(base, {
      rate: 0.5,
      seed: 11,
      scenarios: ['server-error'],
      parent_account_id: other.parent_account_id,
    });

    const { page, problems } = await open(`${base}/__sandbox/ui#/partners`);
    const demoChaos = page.locator(`[data-chaos-of="${DEMO.parent}"]`);
    await demoChaos.filter({ hasText: 'profile for every partner' }).waitFor();
    expect(await demoChaos.textContent()).toContain('rate 0.2 · seed 7');
    const otherChaos = page.locator(`[data-chaos-of="${other.parent_account_id}"]`);
    await otherChaos.filter({ hasText: 'own profile' }).waitFor();
    expect(await otherChaos.textContent()).toContain('rate 0.5 · seed 11');

    await page.locator('#tab-scenarios').click();
    await page.locator('#chaos-in-force').filter({ hasText: 'seed 7' }).waitFor();
    expect(await page.locator('#chaos-rate').inputValue()).toBe('0.2');
    expect(await page.locator('#chaos-seed').inputValue()).toBe('7');
    // Naming a partner shows the profile its calls are under.
    await page.locator('#chaos-target').fill(other.parent_account_id);
    await page.locator('#chaos-in-force').filter({ hasText: 'its own profile' }).waitFor();
    expect(await page.locator('#chaos-rate').inputValue()).toBe('0.5');
    expect(await page.locator('#chaos-seed').inputValue()).toBe('11');
    expect(await page.locator('#chaos-scenarios').inputValue()).toBe('server-error');
    await page.locator('#chaos-target').fill(DEMO.parent);
    await page.locator('#chaos-in-force').filter({ hasText: 'the profile for every partner' }).waitFor();
    expect(await page.locator('#chaos-seed').inputValue()).toBe('7');

    // None in force: the form is empty, and says so.
    await page.locator('#chaos-end-all').click();
    await page.locator('#chaos-in-force').filter({ hasText: 'none' }).waitFor();
    expect(await page.locator('#chaos-rate').inputValue()).toBe('');
    expect(await page.locator('#chaos-seed').inputValue()).toBe('');
    await page.locator('#tab-partners').click();
    await demoChaos.filter({ hasText: 'none' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('the report keeps journal numbers and chaos call numbers apart; a journal number opens its entry', async () => {
    const base = await start();
    const api = await partner(base);
    const failed = await chaosFailure(base, api, 9);
    expect((await api.get('/v1/partnership/vertical-mappings')).status).toBe(200); // never failed twice in a row
    const journal = (await (
      await admin(base, 'GET', `/__sandbox/requests?parent_account_id=${DEMO.parent}`)
    ).json()) as {
      requests: { id: number; path: string; request_id: string }[];
    };
    const failedEntry = journal.requests.find((e) => e.request_id === failed.headers.get('x-request-id'))!;

    const { page, problems } = await open(`${base}/__sandbox/ui#/clock`);
    await page.locator('#resilience').waitFor();
    expect(await page.locator('#report-journal-count').textContent()).toBe('2 entries');
    expect(await page.locator('#report-chaos-calls').textContent()).toBe('2 chaos calls');
    expect(await page.locator('#report-chaos-injected').textContent()).toBe('1 call');
    // Resilience evidence: chaos's numbering, marked as such, never a journal link.
    const chaosRef = page.locator('#resilience .chaos-ref');
    expect(await chaosRef.allTextContents()).toEqual(['chaos call 1']);
    expect(await page.locator('#resilience .journal-ref').count()).toBe(0);
    // The checks' evidence: journal numbers, each a link to its entry.
    const journalRef = page.locator('[data-check="retried-429-5xx"] .journal-ref').first();
    expect(await journalRef.textContent()).toBe(`journal #${failedEntry.id}`);
    expect(await journalRef.getAttribute('href')).toBe(`#/journal/${failedEntry.id}`);
    await journalRef.click();
    await page.locator(`#journal-detail[data-shown="${failedEntry.id}"]`).waitFor();
    expect(await page.locator('#detail-chaos').textContent()).toBe('server-error: seed=9; call=1');
    expect(problems).toEqual([]);
  });
});
