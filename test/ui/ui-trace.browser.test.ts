/**
 * The dashboard's journal detail shows a call's trace (docs/journal-and-report.md#traces):
 * trace_id, span_id and tracestate of the W3C traceparent the partner sent, and nothing of the
 * kind for a call without one. Headless Chromium against a listening sandbox, as
 * test/ui.browser.test.ts.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { launchChromium } from '../helpers/browser.js';
import { DEMO, MAPPINGS, testConfig } from '../helpers/harness.js';
import { demoToken } from '../helpers/raw-http.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

let browser: Browser;
let server: Running;
beforeAll(async () => {
  browser = await launchChromium();
  server = await startServer(testConfig({ port: 0 }));
});
afterAll(async () => {
  await server?.close();
  await browser?.close();
});

describe('the dashboard shows a call’s trace', () => {
  it('the journal detail of a traced call names its trace_id, span_id and tracestate; an untraced call’s has none', async () => {
    const base = server.url;
    const token = await demoToken(base);
    const headers = { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent };
    const traced = await fetch(`${base}${MAPPINGS}?parent_account_id=${DEMO.parent}`, {
      headers: { ...headers, traceparent: `00-${TRACE}-${SPAN}-01`, tracestate: 'rojo=1' },
    });
    expect(traced.status).toBe(200);
    const plain = await fetch(`${base}${MAPPINGS}`, { headers });
    expect(plain.status).toBe(200);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${base}/__sandbox/ui#/journal`);
    const rows = page.locator('#view-journal tr.clickable', { hasText: MAPPINGS });
    await rows.nth(1).waitFor();
    // newest first: the untraced call, then the traced one
    await rows.nth(1).click();
    await page.locator('#detail-trace').waitFor();
    expect(await page.locator('#detail-trace').textContent()).toBe(TRACE);
    const detail = (await page.locator('#view-journal').textContent()) ?? '';
    expect(detail).toContain(SPAN);
    expect(detail).toContain('rojo=1');
    await rows.nth(0).click();
    await page.locator('#detail-trace').waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
    await page.close();
  });
});
