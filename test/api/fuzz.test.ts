/**
 * Property-based robustness (fast-check, fixed seed): generated hostile requests to every
 * route — the seven partnership routes, POST /oauth/token and the /__sandbox control
 * plane — sent through `app.request()` of one harness per property. Invariants:
 *   - never a 5xx (except the one the caller asked for with the server-error scenario),
 *   - every /v1 answer is the spec §1 envelope {status === HTTP status, error, message,
 *     request_id, data}; every control-plane error is the same envelope; token errors
 *     are RFC 6749 bodies,
 *   - a rejected (non-2xx) request changes nothing: the control-plane view of the
 *     accounts, the partners' account lists, the mappings, the clock and the armed
 *     scenarios read back identical,
 *   - the app keeps answering (health 200 at the end).
 *
 * Default: FUZZ_SEED=20240611, a few hundred runs in total. Longer:
 *   FUZZ_RUNS=20000 npx vitest run test/api/fuzz.test.ts   (each property runs FUZZ_RUNS times)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  build,
  describeSent,
  diff,
  expectEnvelope,
  expectNo5xx,
  expectTokenAnswer,
  partnershipRequest,
  runs,
  SEED,
  type Sent,
  send,
  setUp,
  snapshot,
  stateChangedByDesign,
  timeout,
} from '../helpers/fuzz.js';
import { CONTROLS, createHarness, DEMO, LAYOUT, REGISTER, registerBody, STATUS } from '../helpers/harness.js';

// ---- properties -------------------------------------------------------------------------

describe('fuzz: partnership routes and /oauth/token', () => {
  it(
    'never a 5xx, always the envelope on /v1, never a state change from a rejected request',
    async () => {
      const h = createHarness();
      const w = await setUp(h);
      let before = await snapshot(w);
      const seen = new Map<number, number>();

      await fc.assert(
        fc.asyncProperty(partnershipRequest, async (r) => {
          const s = await build(w, r);
          const res = await send(w, s);
          seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
          expectNo5xx(res, s);
          const pathname = new URL(s.path, 'http://sandbox.test').pathname;
          if (s.method !== 'HEAD') {
            if (pathname.startsWith('/v1/')) expectEnvelope(res, s);
            else if (pathname === '/oauth/token') expectTokenAnswer(res, s);
          }
          const after = await snapshot(w);
          if ((res.status < 200 || res.status >= 300) && !stateChangedByDesign(res)) {
            if (after !== before) {
              throw new Error(
                `state changed by a rejected request (${res.status}): ${describeSent(s)}\n${diff(before, after)}`,
              );
            }
          }
          before = after;
        }),
        { seed: SEED, numRuns: runs(400), endOnFailure: true },
      );

      // the run covered success, client errors of several kinds, and the other partner's account
      expect(seen.get(200) ?? 0).toBeGreaterThan(0);
      expect([...seen.keys()].filter((st) => st >= 400 && st < 500).length).toBeGreaterThanOrEqual(6);
      const health = await h.request('GET', '/__sandbox/health');
      expect(health.status).toBe(200);
      // and the partner can still work normally
      const partner = await h.client();
      const fresh = await partner.account();
      expect((await partner.get(CONTROLS(fresh))).status).toBe(200);
      h.sandbox.close();
    },
    timeout(45_000),
  );
});

// ---- the control plane -------------------------------------------------------------------

describe('fuzz: targeted hostile inputs on the writes', () => {
  it('invalid UTF-8, duplicate keys, deep nesting, SQL metacharacters and undocumented query parameters on every write leave the account as it was unless answered 2xx', async () => {
    const h = createHarness();
    const w = await setUp(h);
    const writes: [string, string, Record<string, string>][] = [
      ['PUT', CONTROLS(w.accountA), { 'Idempotency-Key': 'targeted' }],
      ['PUT', STATUS(w.accountA), { 'Idempotency-Key': 'targeted' }],
      ['PATCH', LAYOUT(w.accountA, w.layoutA), { 'Idempotency-Key': 'targeted' }],
      ['POST', REGISTER, {}],
    ];
    const payloads: (string | Uint8Array)[] = [
      Uint8Array.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      Uint8Array.from([0xc3, 0x28]),
      `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
      `{"status":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
      '{"status":"paused","status":"paused\'; DROP TABLE variants; --"}',
      '{"blockedVerticals":[],"domains":[{"domain":"x.com\'; DELETE FROM accounts; --"}],"contentHash":null}',
      JSON.stringify(
        registerBody({ external_account_id: "'); DELETE FROM accounts; --", country_code: "U'" }),
      ),
      JSON.stringify(registerBody({ brand: 'x'.repeat(201) })),
    ];
    let before = await snapshot(w);
    for (const [method, path, extra] of writes) {
      for (const payload of payloads) {
        const s: Sent = {
          method,
          path,
          headers: {
            Authorization: `Bearer ${w.token}`,
            'X-Platform-Parent-Account-Id': DEMO.parent,
            'Content-Type': 'application/json',
            ...extra,
          },
          body: payload,
        };
        const res = await send(w, s);
        expectNo5xx(res, s);
        expectEnvelope(res, s);
        expect(res.status, describeSent(s)).toBeGreaterThanOrEqual(400);
        if (payload instanceof Uint8Array) {
          // not UTF-8: named as such (it was decoded with U+FFFD and validated as text)
          expect(res.body.error.code, describeSent(s)).toBe('malformed_json');
          expect(res.body.message, describeSent(s)).toMatch(
            /^Request body is not valid UTF-8 \(byte offset \d+\)/,
          );
        }
        const after = await snapshot(w);
        if (after !== before) throw new Error(`state changed: ${describeSent(s)}\n${diff(before, after)}`);
        before = after;
      }
    }
    // an undocumented query parameter (a near miss of dry_run or any other) is 400 on every
    // write, even with a valid body: it is never ignored
    const valid: Record<string, string> = {
      [CONTROLS(w.accountA)]: JSON.stringify({ blockedVerticals: [], domains: [], contentHash: null }),
      [STATUS(w.accountA)]: JSON.stringify({ status: 'paused' }),
      [LAYOUT(w.accountA, w.layoutA)]: JSON.stringify({ name: 'renamed' }),
      [REGISTER]: JSON.stringify(registerBody()),
    };
    for (const [method, path, extra] of writes) {
      for (const query of ['dryRun=true', 'dry-run=true', 'DRY_RUN=true', 'dry_run=1', 'x=%00']) {
        const s: Sent = {
          method,
          path: `${path}?${query}`,
          headers: {
            Authorization: `Bearer ${w.token}`,
            'X-Platform-Parent-Account-Id': DEMO.parent,
            'Content-Type': 'application/json',
            ...extra,
          },
          body: valid[path],
        };
        const res = await send(w, s);
        expectEnvelope(res, s);
        expect(res.status, describeSent(s)).toBe(400);
        expect(res.body.error.code, describeSent(s)).toBe('validation_error');
        const after = await snapshot(w);
        if (after !== before) throw new Error(`state changed: ${describeSent(s)}\n${diff(before, after)}`);
      }
    }
    // the key used by all those rejected writes was never kept: a real write with it executes
    const res = await send(w, {
      method: 'PUT',
      path: STATUS(w.accountA),
      headers: {
        Authorization: `Bearer ${w.token}`,
        'X-Platform-Parent-Account-Id': DEMO.parent,
        'Content-Type': 'application/json',
        'Idempotency-Key': 'targeted',
      },
      body: JSON.stringify({ status: 'paused' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.body.data.status).toBe('paused');
    h.sandbox.close();
  });
});
