/**
 * The offline API reference page in a real headless Chromium (Debian's package, driven by
 * playwright-core): it loads with no internet and lists the endpoints.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { launchChromium } from '../helpers/browser.js';
import { testConfig } from '../helpers/harness.js';

describe('GET /docs in Chromium', () => {
  let server: Running;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServer(testConfig({ port: 0 }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('loads without any request leaving the sandbox and lists every endpoint', async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) outside.push(r.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock', { timeout: 15_000 });
    const text = await page.locator('#docs').innerText();
    for (const path of [
      '/v1/partnership/vertical-mappings',
      '/v1/accounts/register/partnership',
      '/v1/partnership/accounts/{account_id}/marketplacecontrolslists',
      '/v1/partnership/accounts/{account_id}/status',
      '/v1/partnership/accounts/{account_id}/layouts/{layout_id}',
      '/oauth/token',
    ]) {
      expect(text).toContain(path);
    }
    expect(await page.locator('.opblock').count()).toBe(8);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('its bar is styled (a dark bar, not the browser default) and leads to the manual and the dashboard', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/docs`);
    const bar = page.locator('nav.sandbox-bar');
    await bar.waitFor();
    const style = (property: string) =>
      page.evaluate(`getComputedStyle(document.querySelector('nav.sandbox-bar')).${property}`);
    expect(await style('backgroundColor')).toBe('rgb(20, 26, 42)');
    expect(await style('display')).toBe('flex');
    await page.locator('#dashboard-link').click();
    await page.waitForURL(`${server.url}/__sandbox/ui`);
    await page.getByText('Demo Commerce Platform').waitFor();
    await page.close();
  });

  it("the manual's dashboard page shows its screenshots as loaded images, not placeholders", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/docs/guides/dashboard`);
    const images = page.locator('main img');
    await images.first().waitFor();
    expect(await images.count()).toBeGreaterThanOrEqual(6);
    // Polled from here: page.waitForFunction with a string evaluates it by eval() in the page,
    // which the manual's Content-Security-Policy (script-src 'self') refuses.
    await expect
      .poll(() =>
        page.evaluate<boolean>("[...document.querySelectorAll('main img')].every((i) => i.complete)"),
      )
      .toBe(true);
    const widths = await page.evaluate<number[]>(
      "[...document.querySelectorAll('main img')].map((i) => i.naturalWidth)",
    );
    for (const width of widths) expect(width).toBeGreaterThan(1000);
    expect(await page.locator('main').innerText()).not.toContain('[image:');
    await page.close();
  });
});
