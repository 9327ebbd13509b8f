/**
 * Pact provider states (docs/contracts.md): `POST /__sandbox/pact/states` takes what a Pact
 * verifier sends (`{state, params, action}`) and sets the sandbox up so that a pact recorded
 * with literal values verifies; the teardown resets what the setups touched. Through HTTP
 * (app.request), every answer checked against the served documents by the harness.
 */
import { describe, expect, it } from 'vitest';
import { CONTROLS, createHarness, DEMO, expectOk, MAPPINGS, STATUS } from '../helpers/harness.js';

const STATES = '/__sandbox/pact/states';

function setup(h: ReturnType<typeof createHarness>, state: string, params: Record<string, unknown> = {}) {
  return h.request('POST', STATES, { body: { action: 'setup', params, state } });
}
const teardown = (h: ReturnType<typeof createHarness>, state = 'a partner') =>
  h.request('POST', STATES, { body: { action: 'teardown', params: {}, state } });

const bearer = (token: string, parent: string = DEMO.parent) => ({
  Authorization: `Bearer ${token}`,
  'X-Platform-Parent-Account-Id': parent,
});

describe('a partner', () => {
  it('creates the partner with those credentials, seeded from the fixtures, and makes the given string a token of it until the teardown', async () => {
    const h = createHarness();
    const res = await setup(h, 'a partner', {
      parent_account_id: 'pa_pact_consumer',
      client_id: 'pact-client',
      client_secret: 'pact-placeholder-secret',
      access_token: 'any-literal-token',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      parent_account_id: 'pa_pact_consumer',
      client_id: 'pact-client',
      access_token: 'any-literal-token',
    });
    const mappings = await h.request('GET', `${MAPPINGS}?parent_account_id=pa_pact_consumer`, {
      headers: bearer('any-literal-token', 'pa_pact_consumer'),
    });
    expectOk(mappings);
    expect(mappings.body.data.vertical_mappings.length).toBeGreaterThan(0);
    // the credentials work at the token endpoint
    expect(await h.token('pact-client', 'pact-placeholder-secret')).toMatch(/^sbx_/);

    expect((await teardown(h)).body).toEqual({});
    const after = await h.request('GET', MAPPINGS, {
      headers: bearer('any-literal-token', 'pa_pact_consumer'),
    });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthorized');
  });

  it('taxonomy "empty" leaves the partner unseeded; without params it is the fixtures\' partner with a token issued', async () => {
    const h = createHarness();
    const res = await setup(h, 'a partner', { taxonomy: 'empty' });
    expect(res.status).toBe(200);
    expect(res.body.parent_account_id).toBe(DEMO.parent);
    expect(res.body.client_id).toBe(DEMO.clientId);
    const mappings = await h.request('GET', MAPPINGS, { headers: bearer(res.body.access_token) });
    expectOk(mappings);
    expect(mappings.body.data.vertical_mappings).toEqual([]);
    // the next setup without taxonomy seeds it again
    await setup(h, 'a partner', {});
    const again = await h.request('GET', MAPPINGS, { headers: bearer(res.body.access_token) });
    expect(again.body.data.vertical_mappings.length).toBeGreaterThan(0);
  });

  it("a placeholder secret for the fixtures' partner lasts until the teardown, which puts the documented secret back", async () => {
    const h = createHarness();
    await setup(h, 'a partner', { client_secret: 'pact-placeholder-secret' });
    await expect(h.token(DEMO.clientId, DEMO.clientSecret)).rejects.toThrow(/401/);
    expect(await h.token(DEMO.clientId, 'pact-placeholder-secret')).toMatch(/^sbx_/);
    await teardown(h);
    expect(await h.token(DEMO.clientId, DEMO.clientSecret)).toMatch(/^sbx_/);
    await expect(h.token(DEMO.clientId, 'pact-placeholder-secret')).rejects.toThrow(/401/);
  });

  it('a client_id of another partner is a 400 naming params.client_id', async () => {
    const h = createHarness();
    const res = await setup(h, 'a partner', { parent_account_id: 'pa_other', client_id: DEMO.clientId });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.fields[0].field).toBe('params.client_id');
    expect(res.body.message).toContain(`partner ${DEMO.parent}`);
  });
});

describe('an account', () => {
  it('exists with that ID, past its propagation, with that status and content hash; a PUT with the hash succeeds', async () => {
    const h = createHarness();
    const { body: partner } = await setup(h, 'a partner', { access_token: 'pact-token' });
    const res = await setup(h, 'an account', {
      account_id: 'acct_pact_literal_01',
      status: 'paused',
      content_hash: 'literal-hash-from-the-pact',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      account_id: 'acct_pact_literal_01',
      parent_account_id: DEMO.parent,
      external_account_id: 'pact-acct_pact_literal_01',
      status: 'paused',
      content_hash: 'literal-hash-from-the-pact',
    });
    expect(res.body.layout_ids).toContain(res.body.layout_id);
    const headers = bearer(partner.access_token);
    const status = await h.request('GET', STATUS('acct_pact_literal_01'), { headers });
    expectOk(status);
    expect(status.body.data.status).toBe('paused');
    const list = await h.request('GET', CONTROLS('acct_pact_literal_01'), { headers });
    expect(list.body.data.marketplace_controls_list.content_hash).toBe('literal-hash-from-the-pact');
    const put = await h.request('PUT', CONTROLS('acct_pact_literal_01'), {
      headers: { ...headers, 'Idempotency-Key': 'pact-key-1' },
      body: { name: 'l', blockedVerticals: [], domains: [], contentHash: 'literal-hash-from-the-pact' },
    });
    expectOk(put);
    const stale = await h.request('PUT', CONTROLS('acct_pact_literal_01'), {
      headers: { ...headers, 'Idempotency-Key': 'pact-key-2' },
      body: { name: 'l', blockedVerticals: [], domains: [], contentHash: 'literal-hash-from-the-pact' },
    });
    expect(stale.status).toBe(409);

    await teardown(h, 'an account');
    expect((await h.request('GET', '/__sandbox/accounts/acct_pact_literal_01')).status).toBe(404);
  });

  it('mixed: some variants enabled, some not', async () => {
    const h = createHarness();
    const res = await setup(h, 'an account', { account_id: 'acct_mixed', status: 'mixed' });
    expect(res.body.status).toBe('mixed');
  });

  it("account_id is required and in the API's form; an account of another partner is refused", async () => {
    const h = createHarness();
    const missing = await setup(h, 'an account', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.fields[0].field).toBe('params.account_id');
    const bad = await setup(h, 'an account', { account_id: 'has space' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe('params.account_id');
    const unknown = await setup(h, 'an account', { account_id: 'acct_x', colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('colour');
    await setup(h, 'an account', { account_id: 'acct_taken', parent_account_id: 'pa_one' });
    const taken = await setup(h, 'an account', { account_id: 'acct_taken', parent_account_id: 'pa_two' });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toContain('pa_one');
  });
});

describe('a scenario', () => {
  it('arms the scenario as PUT /__sandbox/scenarios does; the teardown disarms it', async () => {
    const h = createHarness();
    const { body: partner } = await setup(h, 'a partner', { access_token: 'pact-token' });
    await setup(h, 'an account', { account_id: 'acct_drill' });
    const res = await setup(h, 'a scenario', {
      scenario: 'server-error',
      value: '503',
      times: 1,
      account_id: 'acct_drill',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ scenario: 'server-error', account_id: 'acct_drill' });
    const failed = await h.request('GET', STATUS('acct_drill'), { headers: bearer(partner.access_token) });
    expect(failed.status).toBe(503);
    expect(failed.headers.get('x-sandbox-scenario-applied')).toBe('server-error=503');
    await setup(h, 'a scenario', { scenario: 'rate-limited' }); // the partner set up last, until cleared
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toHaveLength(1);
    await teardown(h, 'a scenario');
    expect((await h.request('GET', '/__sandbox/scenarios')).body.armed).toEqual([]);
  });

  it('an unknown scenario is the 400 listing the known ones', async () => {
    const h = createHarness();
    const res = await setup(h, 'a scenario', { scenario: 'gremlins' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('unknown_scenario');
    expect(res.body.message).toContain('server-error');
  });
});

describe('the states URL', () => {
  it('an unknown state is a 400 naming it and listing the known ones', async () => {
    const h = createHarness();
    const res = await setup(h, 'a merchant');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.fields[0].field).toBe('state');
    expect(res.body.message).toBe(
      'Invalid request: state: unknown provider state "a merchant"; the known ones: "a partner", "an account", "a scenario"',
    );
  });

  it("takes the Rust verifier's body as it sends it, and defaults to setup; a bad action is named", async () => {
    const h = createHarness();
    const raw = '{"action":"setup","params":{"parent_account_id":"pa_raw"},"state":"a partner"}';
    const res = await h.request('POST', STATES, { raw, headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(res.body.parent_account_id).toBe('pa_raw');
    const noAction = await h.request('POST', STATES, { body: { state: 'a partner' } });
    expect(noAction.status).toBe(200);
    const bad = await h.request('POST', STATES, { body: { state: 'a partner', action: 'tidy' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe('action');
  });
});
