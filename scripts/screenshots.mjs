#!/usr/bin/env node
// Screenshots of the dashboard (/__sandbox/ui) into docs/screenshots/, taken from the
// production bundle: starts `node dist/main.js` on a free port (run `npm run build`
// first), puts some traffic through the partnership API, and drives Debian's headless
// Chromium with playwright-core. Usage: node scripts/screenshots.mjs
// Set CHROMIUM to use another browser binary.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}docs/screenshots`;
mkdirSync(out, { recursive: true });

const server = spawn(process.execPath, ['dist/main.js', '--port', '0'], {
  cwd: root,
  env: { ...process.env, SANDBOX_LOG: 'info' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const base = await new Promise((resolve, reject) => {
  let seen = '';
  server.stdout.on('data', (chunk) => {
    seen += chunk;
    const m = /Partnership sandbox on (http:\/\/\S+)/.exec(seen);
    if (m) resolve(m[1]);
  });
  server.once('exit', (code) => reject(new Error(`dist/main.js exited with ${code} (run npm run build)`)));
});

const DEMO = {
  parent: 'pa_demo_platform',
  clientId: 'sandbox-demo-client',
  clientSecret: 'sandbox-demo-secret',
};
async function call(method, path, body, headers = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

let browser;
try {
  // Some traffic: a token, three accounts, a paused status, then a partial failure, blocked
  // domains, an archived variant, an armed scenario hit once, a shifted clock, a chaos profile
  // and a client that retries what it fails, a second partner ahead on its own clock, two
  // snapshots.
  await call('POST', '/__sandbox/snapshots', { name: 'fresh-start' });
  const grant = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEMO.clientId,
      client_secret: DEMO.clientSecret,
    }),
  }).then((r) => r.json());
  const auth = { Authorization: `Bearer ${grant.access_token}`, 'X-Platform-Parent-Account-Id': DEMO.parent };
  let key = 0;
  const write = (method, path, body) =>
    call(method, path, body, { ...auth, 'Idempotency-Key': `shot-${++key}-${Date.now()}` });
  const accounts = [];
  for (const [brand, sub] of [
    ['Acme Outfitters', 1001],
    ['Northwind Groceries', 2001],
    ['Blue Harbor Travel', 3001],
  ]) {
    const res = await write('POST', '/v1/accounts/register/partnership', {
      brand,
      vertical_id: Math.floor(sub / 100),
      sub_vertical_id: sub,
      country_code: 'US',
      platform_parent_account_id: DEMO.parent,
      store_identifier: `https://${brand.toLowerCase().replaceAll(' ', '-')}.example.com`,
      external_account_id: `merchant-${accounts.length + 1}`,
    });
    if (res.status !== 200) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
    accounts.push(res.body.data.account_id);
  }
  const [acme, northwind] = accounts;
  const controls = (
    await call('GET', `/v1/partnership/accounts/${acme}/marketplacecontrolslists`, undefined, auth)
  ).body.data;
  await write('PUT', `/v1/partnership/accounts/${acme}/marketplacecontrolslists`, {
    blockedVerticals: [{ partnerVerticalId: 40, partnerSubVerticalId: 4001 }],
    domains: [{ domain: 'casino.example' }, { domain: 'vapes.example' }],
    contentHash: controls.marketplace_controls_list.content_hash,
  });
  const detail = (await call('GET', `/__sandbox/accounts/${acme}`)).body;
  const page = detail.pages[0].page_id;
  await call('POST', `/__sandbox/accounts/${acme}/variants`, {
    page_id: page,
    name: 'spring promo',
    enabled: true,
  });
  const old = (
    await call('POST', `/__sandbox/accounts/${acme}/variants`, { page_id: page, name: 'winter promo' })
  ).body;
  await call('PATCH', `/__sandbox/variants/${old.variant_id}`, { archived: true });
  await write('PUT', `/v1/partnership/accounts/${northwind}/status`, { status: 'paused' });
  // A partial failure: activating the paused account, one variant fails and keeps its state.
  const northwindPage = (await call('GET', `/__sandbox/accounts/${northwind}`)).body.pages[0].page_id;
  await call('POST', `/__sandbox/accounts/${northwind}/variants`, {
    page_id: northwindPage,
    name: 'autumn banner',
    enabled: false,
  });
  await call(
    'PUT',
    `/v1/partnership/accounts/${northwind}/status`,
    { status: 'active' },
    {
      ...auth,
      'Idempotency-Key': `shot-partial-${Date.now()}`,
      'X-Sandbox-Scenario': 'status-partial-failure=1',
    },
  );
  await call('GET', `/v1/partnership/accounts/${northwind}/status`, undefined, auth);
  await call('PUT', '/__sandbox/scenarios', {
    scenario: 'server-error',
    value: 503,
    account_id: northwind,
    times: 1,
  });
  await call('GET', `/v1/partnership/accounts/${northwind}/status`, undefined, auth);
  await call('GET', `/v1/partnership/accounts/${northwind}/status`, undefined, auth);
  // a register that meets a 503 and is retried with the same external_account_id
  await call('PUT', '/__sandbox/scenarios', {
    scenario: 'server-error',
    value: 503,
    parent_account_id: DEMO.parent,
    times: 1,
  });
  const coastal = {
    brand: 'Coastal Pets',
    vertical_id: 20,
    sub_vertical_id: 2002,
    country_code: 'GB',
    platform_parent_account_id: DEMO.parent,
    store_identifier: 'https://coastal-pets.example.co.uk',
    external_account_id: 'merchant-4',
  };
  await write('POST', '/v1/accounts/register/partnership', coastal);
  await write('POST', '/v1/accounts/register/partnership', coastal);
  await call('PUT', '/__sandbox/scenarios', {
    scenario: 'throttled',
    parent_account_id: DEMO.parent,
    times: 1,
  });
  await call('PUT', '/__sandbox/scenarios', { scenario: 'latency', value: 250, account_id: acme });
  await call('GET', '/v1/partnership/vertical-mappings', undefined, auth);
  await call('POST', '/__sandbox/clock/advance', { seconds: 120 });
  await call('GET', '/v1/partnership/vertical-mappings', undefined, auth);
  await call('PUT', '/__sandbox/scenarios', { scenario: 'flaky-network', account_id: northwind, times: 5 });
  // A chaos profile for the demo partner, and a client that retries what it fails (after
  // Retry-After), so the journal has chaos-injected calls beside the drills above.
  await call('PUT', '/__sandbox/chaos', {
    rate: 0.35,
    seed: 21, // fails 4 of the calls below, a 429 (rate-limited) among them
    parent_account_id: DEMO.parent,
    scenarios: ['server-error', 'rate-limited', 'auth-propagation'],
  });
  const chaosReads = [
    '/v1/partnership/vertical-mappings',
    `/v1/partnership/accounts/${acme}/marketplacecontrolslists`,
    `/v1/partnership/accounts/${acme}/status`,
    `/v1/partnership/accounts/${accounts[2]}/status`,
  ];
  for (let round = 0; round < 3; round++) {
    for (const path of chaosReads) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const res = await fetch(base + path, { headers: auth });
        await res.arrayBuffer();
        if (res.ok) break;
        const wait = Number(res.headers.get('retry-after') ?? 0);
        await new Promise((r) => setTimeout(r, wait * 1000 + 50));
      }
    }
  }
  const nightly = (await call('POST', '/__sandbox/partners', { name: 'Nightly CI job 4812' })).body;
  await call('POST', `/__sandbox/partners/${nightly.parent_account_id}/clock/advance`, { seconds: 90_000 });
  await call('POST', '/__sandbox/snapshots', { name: 'after-onboarding' });

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const tab = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  const problems = [];
  tab.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  tab.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  const shot = (name) => tab.screenshot({ path: `${out}/${name}.png`, fullPage: false });

  await tab.goto(`${base}/__sandbox/ui#/partners`);
  await tab.locator(`tr[data-account-id="${acme}"]`).waitFor();
  await tab.locator(`[data-clock="${nightly.parent_account_id}"]`).filter({ hasText: 'ahead' }).waitFor();
  await tab.locator(`[data-chaos-of="${DEMO.parent}"]`).filter({ hasText: 'own profile' }).waitFor();
  await shot('partners');

  await tab.locator(`tr[data-account-id="${acme}"]`).click();
  await tab.locator('tr.archived').first().waitFor();
  await tab.locator('#blocked-domains').waitFor();
  await shot('account');

  await tab.goto(`${base}/__sandbox/ui#/account/${northwind}`);
  await tab.locator('#failed-variants').waitFor();
  await tab.locator('#status-write').scrollIntoViewIfNeeded();
  await tab.evaluate('window.scrollBy(0, 120)');
  await shot('account-partial-failure');

  await tab.goto(`${base}/__sandbox/ui#/journal`);
  const limited = tab.locator('#view-journal tr.kind-chaos').filter({ hasText: '429' }).first();
  await limited.waitFor();
  await limited.click();
  await tab.locator('#detail-response-headers [data-header="retry-after"]').waitFor();
  await shot('journal');

  await tab.goto(`${base}/__sandbox/ui#/scenarios`);
  await tab.locator('#armed-list tr[data-scenario="flaky-network"]').waitFor();
  await shot('scenarios');
  await tab.locator('#chaos-target').fill(DEMO.parent);
  await tab.locator('#chaos-target').dispatchEvent('input');
  await tab.locator('#chaos-in-force').filter({ hasText: 'seed 21' }).waitFor();
  await tab.locator('#chaos-form').scrollIntoViewIfNeeded();
  await tab.evaluate('window.scrollBy(0, 260)');
  await shot('chaos');

  await tab.goto(`${base}/__sandbox/ui#/clock`);
  await tab.locator('#report .check').first().waitFor();
  await tab.locator('#resilience').waitFor();
  await tab.locator('#clock-now').filter({ hasNotText: '…' }).waitFor();
  await shot('clock-report');
  await tab.locator('#resilience').scrollIntoViewIfNeeded();
  await tab.evaluate('window.scrollBy(0, 300)');
  await shot('report-resilience');

  await tab.goto(`${base}/__sandbox/ui#/snapshots`);
  await tab.locator('#snapshot-list tr[data-snapshot="after-onboarding"]').waitFor();
  await tab.locator('#snapshot-name').fill('before-checkout-test');
  await shot('snapshots');

  await tab.goto(`${base}/docs`);
  await tab.locator('.opblock').first().waitFor();
  await shot('docs');

  if (problems.length) throw new Error(problems.join('\n'));
  console.log(
    `screenshots in ${out}: partners, account, account-partial-failure, journal, scenarios, chaos, clock-report, report-resilience, snapshots, docs`,
  );
} finally {
  await browser?.close();
  server.kill('SIGTERM');
}
