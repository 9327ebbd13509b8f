// A partner's integration test against the sandbox: a partner of its own (so test files
// do not share state), a token, a merchant registered and its controls written, a failure
// drill armed on the control plane, and token expiry by moving the sandbox clock.
import { createControlClient } from 'partnership-sandbox';
import { beforeAll, expect, inject, it } from 'vitest';

const url = inject('sandboxUrl');
const control = createControlClient(url);
let partner: { parent_account_id: string; client_id: string; client_secret: string };

beforeAll(async () => {
  partner = await control.partners.create();
  await control.partners.seedMappings(partner.parent_account_id, [
    {
      partner_vertical_id: 10,
      partner_vertical_name: 'Apparel',
      partner_sub_vertical_id: 1001,
      partner_sub_vertical_name: 'Womenswear',
      vertical_name: 'Apparel > Womenswear',
    },
  ]);
});

async function token(): Promise<string> {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: partner.client_id,
      client_secret: partner.client_secret,
    }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

function call(path: string, bearer: string, init: { method?: string; body?: unknown; key?: string } = {}) {
  return fetch(url + path, {
    method: init.method ?? 'GET',
    headers: {
      Authorization: `Bearer ${bearer}`,
      'X-Platform-Parent-Account-Id': partner.parent_account_id,
      'Content-Type': 'application/json',
      ...(init.key ? { 'Idempotency-Key': init.key } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

async function register(bearer: string, externalId: string): Promise<string> {
  const res = await call('/v1/accounts/register/partnership', bearer, {
    method: 'POST',
    body: {
      brand: 'Acme',
      vertical_id: 10,
      sub_vertical_id: 1001,
      country_code: 'US',
      platform_parent_account_id: partner.parent_account_id,
      store_identifier: 'https://acme.example.com',
      external_account_id: externalId,
    },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { account_id: string } }).data.account_id;
}

const controls = (accountId: string) => `/v1/partnership/accounts/${accountId}/marketplacecontrolslists`;

it('registers a merchant and blocks a vertical', async () => {
  const bearer = await token();
  const accountId = await register(bearer, 'merchant-1');
  const current = await call(controls(accountId), bearer);
  const read = (await current.json()) as { data: { marketplace_controls_list: { content_hash: string } } };
  const { content_hash } = read.data.marketplace_controls_list;
  const put = await call(controls(accountId), bearer, {
    method: 'PUT',
    key: crypto.randomUUID(),
    body: {
      blockedVerticals: [{ partnerVerticalId: 10, partnerSubVerticalId: 1001 }],
      domains: [],
      contentHash: content_hash,
    },
  });
  expect(put.status).toBe(200);
  const view = await control.accounts.get(accountId);
  expect(view.controls.blocked_internal).toEqual([
    { vertical_name: 'Apparel > Womenswear', policy: 'Block', position_1_policy: 'Block' },
  ]);
});

it('retries once after a 503 armed on the control plane', async () => {
  const bearer = await token();
  const accountId = await register(bearer, 'merchant-2');
  await control.scenarios.arm({ scenario: 'server-error', value: 503, account_id: accountId, times: 1 });
  expect((await call(controls(accountId), bearer)).status).toBe(503);
  expect((await call(controls(accountId), bearer)).status).toBe(200);
});

it('gets a new token once the old one expired on the sandbox clock', async () => {
  const bearer = await token();
  await control.clock.advance(3600);
  const expired = await call('/v1/partnership/vertical-mappings', bearer);
  expect(expired.status).toBe(401);
  expect((await call('/v1/partnership/vertical-mappings', await token())).status).toBe(200);
});
