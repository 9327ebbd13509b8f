/**
 * The control-plane client's methods for docs/parallel-tests.md against a listening sandbox
 * (startSandbox, port 0): partners.reset, partners.clock, snapshots, requests.count and
 * bundles, each checked against what the sandbox did; failures as ControlPlaneError.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlClient } from '../../src/client/control-client.js';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { REGISTER, registerBody, rejection } from '../helpers/harness.js';

let sandbox: RunningSandbox;
let other: RunningSandbox;
beforeAll(async () => {
  [sandbox, other] = await Promise.all([startSandbox(), startSandbox()]);
});
afterAll(() => Promise.all([sandbox?.stop(), other?.stop()]));

const mapping = [
  {
    partner_vertical_id: 10,
    partner_vertical_name: 'Apparel & Accessories',
    partner_sub_vertical_id: 1001,
    partner_sub_vertical_name: "Women's Clothing",
    vertical_name: 'Apparel > Womenswear',
  },
];

/** A partner of its own with a token, and a register call. */
async function tenant(url: string) {
  const control = createControlClient(url);
  const creds = await control.partners.create();
  await control.partners.seedMappings(creds.parent_account_id, mapping);
  const grant = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: creds.client_id,
      client_secret: creds.client_secret,
    }),
  });
  const bearer = ((await grant.json()) as { access_token: string }).access_token;
  const headers = {
    Authorization: `Bearer ${bearer}`,
    'X-Platform-Parent-Account-Id': creds.parent_account_id,
    'Content-Type': 'application/json',
  };
  const register = async (external: string) => {
    const res = await fetch(url + REGISTER, {
      method: 'POST',
      headers,
      body: JSON.stringify(
        registerBody({ external_account_id: external, platform_parent_account_id: creds.parent_account_id }),
      ),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { account_id: string } }).data.account_id;
  };
  return { parent: creds.parent_account_id, register };
}

describe('control-plane client: §10 methods', () => {
  it('partners.clock.get/advance and partners.reset(parent)', async () => {
    const control = createControlClient(sandbox.url);
    const t = await tenant(sandbox.url);
    const accountId = await t.register('client-reset');
    const moved = await control.partners.clock.advance(t.parent, 90_000);
    expect(moved).toMatchObject({ parent_account_id: t.parent, offset_seconds: 90_000 });
    expect((await control.partners.clock.get(t.parent)).offset_seconds).toBe(90_000);
    const reset = await control.partners.reset(t.parent);
    expect(reset).toMatchObject({ reset: true, parent_account_id: t.parent, clock: { offset_seconds: 0 } });
    expect((await rejection(control.accounts.get(accountId))).status).toBe(404);
    expect((await rejection(control.partners.reset('pa_nobody'))).code).toBe('not_found');
  });

  it('requests.count(filter) equals the filtered journal length', async () => {
    const control = createControlClient(sandbox.url);
    const t = await tenant(sandbox.url);
    await t.register('client-count-1');
    await t.register('client-count-2');
    expect(await control.requests.count({ parent_account_id: t.parent, path: REGISTER })).toBe(2);
    expect(
      await control.requests.count({ parent_account_id: t.parent, body_contains: 'client-count-2' }),
    ).toBe(1);
    const list = await control.requests.list({ parent_account_id: t.parent });
    expect(await control.requests.count({ parent_account_id: t.parent })).toBe(list.requests.length);
    expect((await rejection(control.requests.count({ status: 'x' as never }))).status).toBe(400);
  });

  it('snapshots.save/list/restore/delete', async () => {
    const control = createControlClient(sandbox.url);
    const t = await tenant(sandbox.url);
    const kept = await t.register('client-snap-kept');
    const saved = await control.snapshots.save('client-seeded');
    expect(saved.snapshot.name).toBe('client-seeded');
    const dropped = await t.register('client-snap-dropped');
    expect((await control.snapshots.list()).snapshots.map((s) => s.name)).toContain('client-seeded');
    const restored = await control.snapshots.restore('client-seeded');
    expect(restored.restored.name).toBe('client-seeded');
    expect((await control.accounts.get(kept)).account.account_id).toBe(kept);
    expect((await rejection(control.accounts.get(dropped))).status).toBe(404);
    expect((await control.snapshots.delete('client-seeded')).deleted.name).toBe('client-seeded');
    expect((await rejection(control.snapshots.restore('client-seeded'))).status).toBe(404);
  });

  it('bundles.export(parent) and bundles.import(bundle) into another sandbox', async () => {
    const control = createControlClient(sandbox.url);
    const t = await tenant(sandbox.url);
    const accountId = await t.register('client-bundle');
    const bundle = await control.bundles.export(t.parent);
    expect(bundle.accounts.map((a) => a.account_id)).toEqual([accountId]);
    const laptop = createControlClient(other.url);
    const imported = await laptop.bundles.import(bundle);
    expect(imported.imported).toMatchObject({ parent_account_id: t.parent, accounts: 1, replaced: false });
    expect((await laptop.accounts.get(accountId)).account.parent_account_id).toBe(t.parent);
    const broken = await rejection(laptop.bundles.import({ ...bundle, version: 3 }));
    expect(broken.status).toBe(400);
    expect(JSON.stringify(broken.body)).toContain('"field":"version"');
  });
});
