/**
 * Spec §1 envelope on every kind of error and on success, plus the common response
 * headers (request id, nosniff, no X-Powered-By).
 */
import { describe, expect, it } from 'vitest';
import { MISSING_IDEMPOTENCY_KEY_MESSAGE } from '../../src/contract/api/messages.js';
import { SCENARIO_NAMES } from '../../src/scenarios/catalogue.js';
import { BUILT_IN_NAMES } from '../helpers/fixed-names.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  LAYOUT,
  MAPPINGS,
  REGISTER,
  type Reply,
  registerBody,
  STATUS,
} from '../helpers/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every registered account of the demo parent, from the control plane. */
async function demoAccounts(h: Harness): Promise<unknown[]> {
  const res = await h.request('GET', '/__sandbox/partners');
  expect(res.status).toBe(200);
  return res.body.partners.find((p: { parent_account_id: string }) => p.parent_account_id === DEMO.parent)
    .accounts;
}

function expectEnvelopeKeys(res: Reply) {
  expect(Object.keys(res.body).sort()).toEqual(['data', 'error', 'message', 'request_id', 'status']);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

describe('envelope: routing errors', () => {
  it('envelope: an unknown route is 404 not_found in the envelope', async () => {
    const h = createHarness();
    const res = await h.request('GET', '/v1/partnership/nothing-here');
    const body = expectErrorEnvelope(res, 404, 'not_found');
    expectEnvelopeKeys(res);
    expect(body.message).toContain('/v1/partnership/nothing-here');
  });

  for (const [method, path] of [
    ['POST', '/oauth/token/'],
    ['GET', '/v1/partnership/vertical-mappings/'],
    ['POST', `${REGISTER}/`],
    ['GET', '/__sandbox/health/'],
  ] as const) {
    it(`a trailing slash is another path: ${method} ${path} is 404 not_found, never a 405 that allows the method used`, async () => {
      const h = createHarness();
      const token = await h.token();
      const res = await h.request(method, path, {
        headers: { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent },
      });
      const body = expectErrorEnvelope(res, 404, 'not_found');
      expect(body.message).toBe(`No route for ${method} ${path}.`);
      expect(res.headers.get('allow')).toBeNull();
    });
  }

  it('envelope: DELETE on the register path is 405 with Allow: POST', async () => {
    const h = createHarness();
    const res = await h.request('DELETE', REGISTER);
    const body = expectErrorEnvelope(res, 405, 'method_not_allowed');
    expectEnvelopeKeys(res);
    expect(res.headers.get('allow')).toBe('POST');
    expect(body.error.details.allowed).toEqual(['POST']);
  });

  it('envelope: PATCH on the controls path is 405 with Allow listing GET and PUT', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const res = await partner.call('PATCH', CONTROLS(accountId), { body: { name: 'x' } });
    expectErrorEnvelope(res, 405, 'method_not_allowed');
    const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
    expect(allow).toContain('GET');
    expect(allow).toContain('PUT');
    expect(allow).not.toContain('PATCH');
  });

  it('envelope: PATCH on the status path is 405 with Allow listing GET and PUT', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const res = await partner.call('PATCH', STATUS(accountId), { body: { status: 'paused' } });
    expectErrorEnvelope(res, 405, 'method_not_allowed');
    const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim());
    expect(allow).toContain('GET');
    expect(allow).toContain('PUT');
    expect(allow).not.toContain('PATCH');
    const status = expectOk(await partner.get(STATUS(accountId)));
    expect(status.status).toBe('active');
  });
});

describe('envelope: request body errors', () => {
  it('envelope: malformed JSON on a write is 400 malformed_json', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.call('POST', REGISTER, {
      raw: '{"brand": "Acme", ',
      headers: { 'Content-Type': 'application/json' },
    });
    expectErrorEnvelope(res, 400, 'malformed_json');
    expectEnvelopeKeys(res);
    expect(await demoAccounts(h)).toEqual([]);
  });

  it('envelope: a text/plain body on a write is 415 unsupported_media_type', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.call('POST', REGISTER, {
      raw: JSON.stringify(registerBody()),
      headers: { 'Content-Type': 'text/plain' },
    });
    const body = expectErrorEnvelope(res, 415, 'unsupported_media_type');
    expect(body.message).toContain('application/json');
    expect(await demoAccounts(h)).toEqual([]);
  });

  it('envelope: application/*+json and parameters are JSON too (docs/where-the-spec-is-silent.md)', async () => {
    const h = createHarness();
    const partner = await h.client();
    for (const type of ['application/json; charset=utf-8', 'application/vnd.partner.v2+json']) {
      const res = await partner.call('POST', REGISTER, {
        raw: JSON.stringify(registerBody()),
        headers: { 'Content-Type': type },
      });
      expect(res.status, type).toBe(200);
    }
    expect(await demoAccounts(h)).toHaveLength(2);
  });

  it('envelope: the body limit is checked after authentication and the media type (docs/where-the-spec-is-silent.md)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const raw = JSON.stringify(registerBody({ brand: 'x'.repeat(256 * 1024 + 1) }));
    const anonymous = await h.request('POST', REGISTER, {
      raw,
      headers: { 'Content-Type': 'application/json' },
    });
    expectErrorEnvelope(anonymous, 401, 'unauthorized');
    const text = await partner.call('POST', REGISTER, { raw, headers: { 'Content-Type': 'text/plain' } });
    expectErrorEnvelope(text, 415, 'unsupported_media_type');
    expect(await demoAccounts(h)).toEqual([]);
  });

  it('envelope: a body over 256 KiB is 413 payload_too_large', async () => {
    const h = createHarness();
    const partner = await h.client();
    const raw = JSON.stringify(registerBody({ brand: 'x'.repeat(256 * 1024 + 1) }));
    const res = await partner.call('POST', REGISTER, {
      raw,
      headers: { 'Content-Type': 'application/json' },
    });
    const body = expectErrorEnvelope(res, 413, 'payload_too_large');
    expect(body.error.details.limit_bytes).toBe(256 * 1024);
    expect(await demoAccounts(h)).toEqual([]);
  });

  it('envelope: a controls PUT without Idempotency-Key is 400 missing_idempotency_key', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const before = expectOk(await partner.get(CONTROLS(accountId)));
    const res = await partner.call('PUT', CONTROLS(accountId), {
      body: { blockedVerticals: [], domains: [], contentHash: null },
    });
    const body = expectErrorEnvelope(res, 400, 'missing_idempotency_key');
    expect(body.message).toBe(MISSING_IDEMPOTENCY_KEY_MESSAGE);
    expect(body.error.details.header).toBe('Idempotency-Key');
    expect(expectOk(await partner.get(CONTROLS(accountId)))).toEqual(before);
  });

  it('envelope: a status PUT without Idempotency-Key is 400 missing_idempotency_key', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const res = await partner.call('PUT', STATUS(accountId), { body: { status: 'paused' } });
    const body = expectErrorEnvelope(res, 400, 'missing_idempotency_key');
    expect(body.message).toBe(MISSING_IDEMPOTENCY_KEY_MESSAGE);
    expect(expectOk(await partner.get(STATUS(accountId))).status).toBe('active');
  });

  it('envelope: a layout PATCH without Idempotency-Key is 400 missing_idempotency_key', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const layouts = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.layouts;
    const res = await partner.call('PATCH', LAYOUT(accountId, layouts[0].layout_id), {
      body: { name: 'renamed' },
    });
    const body = expectErrorEnvelope(res, 400, 'missing_idempotency_key');
    expect(body.message).toBe(MISSING_IDEMPOTENCY_KEY_MESSAGE);
    const after = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body.layouts;
    expect(after).toEqual(layouts);
  });

  it('envelope: an unknown X-Sandbox-Scenario is 400 unknown_scenario listing the known names', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.register({}, { 'X-Sandbox-Scenario': 'no-such-drill' });
    const body = expectErrorEnvelope(res, 400, 'unknown_scenario');
    expect(body.message).toContain('no-such-drill');
    for (const name of SCENARIO_NAMES) expect(body.message).toContain(name);
    expect(body.error.details.known_scenarios).toEqual(SCENARIO_NAMES);
    expect([...SCENARIO_NAMES].sort()).toEqual([...BUILT_IN_NAMES].sort());
    expect(await demoAccounts(h)).toEqual([]);
  });
});

describe('envelope: success', () => {
  it('envelope: a success is {status 200, error null, message "ok", request_id UUID = X-Request-Id, data}', async () => {
    const h = createHarness();
    const partner = await h.client();
    const res = await partner.get(MAPPINGS);
    expect(res.status).toBe(200);
    expectEnvelopeKeys(res);
    expect(res.body.status).toBe(200);
    expect(res.body.error).toBeNull();
    expect(res.body.message).toBe('ok');
    expect(res.body.request_id).toMatch(UUID);
    expect(res.headers.get('x-request-id')).toBe(res.body.request_id);
    expect(res.body.data.vertical_mappings.length).toBeGreaterThan(0);
    expect(res.body).not.toHaveProperty('dry_run');
  });

  it('envelope: an error carries a UUID request_id equal to X-Request-Id', async () => {
    const h = createHarness();
    const res = await h.request('GET', MAPPINGS);
    const body = expectErrorEnvelope(res, 401, 'unauthorized');
    expect(body.request_id).toMatch(UUID);
    expect(res.headers.get('x-request-id')).toBe(body.request_id);
  });

  it('envelope: every request gets a fresh request_id', async () => {
    const h = createHarness();
    const partner = await h.client();
    const first = await partner.get(MAPPINGS);
    const second = await partner.get(MAPPINGS);
    const third = await partner.register();
    const ids = [first, second, third].map((r) => expectOk(r) && r.body.request_id);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toMatch(UUID);
  });
});

describe('envelope: common response headers', () => {
  it('headers: responses carry X-Content-Type-Options: nosniff and no X-Powered-By', async () => {
    const h = createHarness();
    const partner = await h.client();
    const replies: Reply[] = [
      await partner.get(MAPPINGS),
      await partner.register(),
      await h.request('GET', '/v1/nope'),
      await h.request('DELETE', REGISTER),
      await h.request('GET', MAPPINGS),
      await h.request('POST', '/oauth/token', {
        raw: 'grant_type=client_credentials',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
      await h.request('GET', '/__sandbox/health'),
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 200, 404, 405, 401, 401, 200]);
    for (const r of replies) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.has('x-powered-by')).toBe(false);
    }
  });
});

describe('envelope: dry runs', () => {
  it('dry_run=true: the envelope carries dry_run: true on success and on failure', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const ok = await partner.put(`${CONTROLS(accountId)}?dry_run=true`, {
      blockedVerticals: [],
      domains: [],
      contentHash: null,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.dry_run).toBe(true);
    const failed = await partner.put(`${CONTROLS(accountId)}?dry_run=true`, {
      blockedVerticals: [{ partnerVerticalId: 1, partnerSubVerticalId: 2 }],
      domains: [],
      contentHash: null,
    });
    expectErrorEnvelope(failed, 400, 'vertical_not_mapped');
    expect(failed.body.dry_run).toBe(true);
    const real = await partner.put(CONTROLS(accountId), {
      blockedVerticals: [{ partnerVerticalId: 1, partnerSubVerticalId: 2 }],
      domains: [],
      contentHash: null,
    });
    expectErrorEnvelope(real, 400, 'vertical_not_mapped');
    expect('dry_run' in real.body).toBe(false);
  });

  it('dry_run=true: the answers given before a route is known carry dry_run: true too (405, unknown path, unknown scenario)', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    const before = await h.request('GET', `/__sandbox/accounts/${accountId}`);

    const notAllowed = await partner.call('POST', `${STATUS(accountId)}?dry_run=true`, {
      body: { status: 'paused' },
      headers: { 'Idempotency-Key': 'dry-405' },
    });
    expectErrorEnvelope(notAllowed, 405, 'method_not_allowed');
    expect(notAllowed.body.dry_run).toBe(true);
    expect(notAllowed.headers.get('allow')).toBe('GET, HEAD, PUT');

    const unknownPath = await partner.get('/v1/partnership/nothing-here?dry_run=true');
    expectErrorEnvelope(unknownPath, 404, 'not_found');
    expect(unknownPath.body.dry_run).toBe(true);

    const unknownScenario = await partner.put(
      `${STATUS(accountId)}?dry_run=true`,
      { status: 'paused' },
      { 'X-Sandbox-Scenario': 'no-such-drill' },
    );
    expectErrorEnvelope(unknownScenario, 400, 'unknown_scenario');
    expect(unknownScenario.body.dry_run).toBe(true);

    // The same three without dry_run=true (or with dry_run=false) carry no dry_run key.
    for (const res of [
      await partner.call('POST', STATUS(accountId), { body: { status: 'paused' } }),
      await partner.get('/v1/partnership/nothing-here?dry_run=false'),
      await partner.put(STATUS(accountId), { status: 'paused' }, { 'X-Sandbox-Scenario': 'no-such-drill' }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect('dry_run' in res.body).toBe(false);
    }
    // Nothing was written by any of them; the control plane has no dry run.
    expect((await h.request('GET', `/__sandbox/accounts/${accountId}`)).body).toEqual(before.body);
    const control = await h.request('GET', '/__sandbox/nothing-here?dry_run=true');
    expectErrorEnvelope(control, 404, 'not_found');
    expect('dry_run' in control.body).toBe(false);
  });
});
