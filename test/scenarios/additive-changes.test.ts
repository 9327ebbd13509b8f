/**
 * The additive-changes scenario (docs/fault-injection.md): the answer as usual plus what a
 * compatible release could add (unknown fields in the envelope and in each object of data,
 * the known fields in another order, an unknown header), the known fields' values unchanged,
 * drawn from a seed so a run repeats; by header, armed, and drawn by chaos when named. Through
 * `app.request()` directly: these answers carry fields the document does not list, on purpose,
 * so the harness's contract check (every answer checked against the document) is not used.
 */
import { describe, expect, it } from 'vitest';
import {
  CONTROLS,
  createHarness,
  DEMO,
  MAPPINGS,
  REGISTER,
  registerBody,
  STATUS,
} from '../helpers/harness.js';

type Json = Record<string, unknown>;
const ADDED_HEADERS = ['x-api-release', 'x-edge-region', 'x-request-cost'];

async function setUp() {
  const h = createHarness();
  const c = await h.client();
  const registered = await c.call('POST', REGISTER, { body: registerBody() });
  const account: string = registered.body.data.account_id;
  const auth = { Authorization: `Bearer ${c.token}`, 'X-Platform-Parent-Account-Id': DEMO.parent };
  const raw = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
    const res = await h.app.request(path, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as Json };
  };
  return { h, c, account, raw };
}

/** Every field of `known` is in `got` with the same value, at any depth (objects compared by their known fields). */
function expectKnownKept(got: unknown, known: unknown, path = '$'): void {
  if (Array.isArray(known)) {
    expect(Array.isArray(got), path).toBe(true);
    expect((got as unknown[]).length, path).toBe(known.length);
    for (const [i, k] of known.entries()) expectKnownKept((got as unknown[])[i], k, `${path}[${i}]`);
  } else if (known && typeof known === 'object') {
    for (const [k, v] of Object.entries(known)) expectKnownKept((got as Json)[k], v, `${path}.${k}`);
  } else expect(got, path).toEqual(known);
}

const added = (got: Json, known: Json) => Object.keys(got).filter((k) => !Object.hasOwn(known, k));

describe('additive-changes', () => {
  it('by header: unknown fields in the envelope and in each object of data, the known ones reordered with their values, an unknown header', async () => {
    const { account, raw } = await setUp();
    const plain = await raw('GET', CONTROLS(account));
    const shaped = await raw('GET', CONTROLS(account), { 'X-Sandbox-Scenario': 'additive-changes' });
    expect(shaped.status).toBe(200);
    expect(shaped.headers.get('x-sandbox-scenario-applied')).toBe('additive-changes=1');
    expect(ADDED_HEADERS.filter((h) => shaped.headers.get(h) !== null)).toHaveLength(1);
    const { request_id: _a, ...knownEnvelope } = plain.body;
    expectKnownKept(shaped.body, knownEnvelope);
    expect(added(shaped.body, plain.body).length).toBeGreaterThan(0);
    expect(Object.keys(shaped.body).filter((k) => Object.hasOwn(plain.body, k))).not.toEqual(
      Object.keys(plain.body),
    );
    // each object of data, at any depth
    const data = shaped.body.data as Json;
    const plainData = plain.body.data as Json;
    expect(added(data, plainData).length).toBeGreaterThan(0);
    const list = data.marketplace_controls_list as Json;
    expect(added(list, plainData.marketplace_controls_list as Json).length).toBeGreaterThan(0);
    const first = (data.translated_verticals as Json[])[0]!;
    expect(added(first, (plainData.translated_verticals as Json[])[0]!).length).toBeGreaterThan(0);
    // the same seed, the same additions (but request_id, which is the call's own)
    const again = await raw('GET', CONTROLS(account), { 'X-Sandbox-Scenario': 'additive-changes' });
    expect(again.text.replace(/"request_id":"[^"]+"/, '')).toBe(
      shaped.text.replace(/"request_id":"[^"]+"/, ''),
    );
    // another seed, other additions
    const other = await raw('GET', CONTROLS(account), { 'X-Sandbox-Scenario': 'additive-changes=99' });
    expect(other.text.replace(/"request_id":"[^"]+"/, '')).not.toBe(
      shaped.text.replace(/"request_id":"[^"]+"/, ''),
    );
  });

  it('on errors too (the envelope), and on the token answer (at its top); never without being asked', async () => {
    const { h, raw } = await setUp();
    const missing = await raw('GET', STATUS('acct_never_issued'), {
      'X-Sandbox-Scenario': 'additive-changes',
    });
    expect(missing.status).toBe(404);
    expect((missing.body.error as Json).code).toBe('account_not_found');
    expect(missing.body.data).toBeNull();
    expect(Object.keys(missing.body).length).toBeGreaterThan(5);
    const token = await h.app.request('/oauth/token', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Sandbox-Scenario': 'additive-changes=3',
      },
      body: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
    });
    const grant = (await token.json()) as Json;
    expect(token.status).toBe(200);
    expect(grant).toMatchObject({ token_type: 'Bearer', scope: 'partnership' });
    expect(typeof grant.access_token).toBe('string');
    expect(Object.keys(grant).length).toBeGreaterThan(4);
    const plain = await raw('GET', MAPPINGS);
    expect(Object.keys(plain.body)).toEqual(['status', 'error', 'message', 'request_id', 'data']);
    expect(ADDED_HEADERS.filter((name) => plain.headers.get(name) !== null)).toEqual([]);
  });

  it("armed with a seed for a parent; an idempotent replay of a reshaped write replays the spec's fields only", async () => {
    const { h, account, raw } = await setUp();
    const arm = await h.request('PUT', '/__sandbox/scenarios', {
      body: { scenario: 'additive-changes', value: 7, parent_account_id: DEMO.parent, times: 1 },
    });
    expect(arm.status).toBe(200);
    const write = await raw(
      'PUT',
      STATUS(account),
      { 'Idempotency-Key': 'additive-key' },
      { status: 'paused' },
    );
    expect(write.status).toBe(200);
    expect(write.headers.get('x-sandbox-scenario-applied')).toBe('additive-changes=7');
    expect(Object.keys(write.body).length).toBeGreaterThan(5);
    const replay = await raw(
      'PUT',
      STATUS(account),
      { 'Idempotency-Key': 'additive-key' },
      { status: 'paused' },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(Object.keys(replay.body)).toEqual(['status', 'error', 'message', 'request_id', 'data']);
    expect(replay.body.request_id).toBe(write.body.request_id);
    // the journal shows what was sent
    const journal = await h.request('GET', `/__sandbox/requests?method=PUT&parent_account_id=${DEMO.parent}`);
    const sent = journal.body.requests.find(
      (e: Json) =>
        e.request_id === write.body.request_id && !(e.response_headers as Json)['idempotent-replayed'],
    );
    expect(Object.keys(JSON.parse(sent.response_body)).length).toBeGreaterThan(5);
  });

  it('drawn by chaos when a profile names it, never by default; the report names the calls and whether the client repeated them', async () => {
    const { h, account, raw } = await setUp();
    const defaults = await h.request('PUT', '/__sandbox/chaos', {
      body: { rate: 0.5, seed: 1, parent_account_id: 'pa_unseeded_platform' },
    });
    expect(defaults.body.profile.scenarios).not.toContain('additive-changes');
    const chaos = await h.request('PUT', '/__sandbox/chaos', {
      body: { rate: 1, seed: 42, scenarios: ['additive-changes'], parent_account_id: DEMO.parent },
    });
    expect(chaos.status).toBe(200);
    const first = await raw('GET', STATUS(account));
    expect(first.headers.get('x-sandbox-scenario-applied')).toBe('additive-changes');
    expect(first.headers.get('x-sandbox-chaos')).toMatch(/^seed=42; call=1$/);
    expect(Object.keys(first.body).length).toBeGreaterThan(5);
    await raw('GET', STATUS(account)); // repeated: the next call of the same method and path (chaos lets it through)
    await raw('GET', CONTROLS(account)); // drawn again: the client moves on
    await raw('GET', MAPPINGS);
    const report = await h.request('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}`);
    const part = report.body.resilience.find((r: Json) => r.scenario === 'additive-changes');
    expect(part).toMatchObject({ scenario: 'additive-changes', outcome: 'failed' });
    expect(part.injected).toBeGreaterThanOrEqual(2);
    expect(part.evidence[0]).toMatch(
      /^#\d+ GET \/v1\/partnership\/accounts\/[^/]+\/status -> 200 \(request_id [^)]+\): repeated/,
    );
    expect(part.evidence.some((e: string) => /marketplacecontrolslists -> 200 .*: taken as is/.test(e))).toBe(
      true,
    );
    const junit = await h.request('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}&format=junit`);
    expect(junit.text).toContain('Took a compatible release: additive-changes (');
  });

  it('is in the catalogue GET /__sandbox/scenarios shows, with its value', async () => {
    const h = createHarness();
    const res = await h.request('GET', '/__sandbox/scenarios');
    const entry = res.body.built_ins.find((b: Json) => b.name === 'additive-changes');
    expect(entry.value).toBe('an integer 0 to 2147483647 (seed), default 1');
    expect(entry.applies_to).toContain('token');
  });
});
