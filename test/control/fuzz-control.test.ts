/**
 * Property-based robustness of the /__sandbox control plane (fast-check, fixed seed; the
 * generators are test/helpers/fuzz.ts): generated hostile requests to every control-plane route.
 * Never a 5xx, JSON answers, errors in the envelope, never a state change from a rejected
 * request. Longer: FUZZ_RUNS=20000 npx vitest run test/control/fuzz-control.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  body,
  CONTENT_TYPES,
  describeSent,
  diff,
  enc,
  expectEnvelope,
  expectNo5xx,
  idChoice,
  type Json,
  mutate,
  nastyString,
  pathId,
  runs,
  SEED,
  type Sent,
  send,
  setUp,
  snapshot,
  timeout,
  type World,
} from '../helpers/fuzz.js';
import { createHarness, DEMO } from '../helpers/harness.js';

const ADMIN_ROUTES = [
  ['GET', '/__sandbox/health'],
  ['GET', '/__sandbox/partners'],
  ['POST', '/__sandbox/partners'],
  ['PUT', '/__sandbox/partners/{parent}/vertical-mappings'],
  ['DELETE', '/__sandbox/partners/{parent}/vertical-mappings'],
  ['GET', '/__sandbox/accounts/{account}'],
  ['POST', '/__sandbox/accounts/{account}/variants'],
  ['PATCH', '/__sandbox/variants/{variant}'],
  ['GET', '/__sandbox/clock'],
  ['POST', '/__sandbox/clock/advance'],
  ['GET', '/__sandbox/requests'],
  ['DELETE', '/__sandbox/requests'],
  ['GET', '/__sandbox/scenarios'],
  ['PUT', '/__sandbox/scenarios'],
  ['DELETE', '/__sandbox/scenarios'],
  ['POST', '/__sandbox/reset'],
] as const;

function adminBase(path: string, w: World): Json {
  if (path === '/__sandbox/partners')
    return { parent_account_id: 'pa_fuzz', client_id: 'fuzz-client', client_secret: 'fuzz-secret-123' };
  if (path.endsWith('/vertical-mappings'))
    return {
      vertical_mappings: [
        {
          partner_vertical_id: 10,
          partner_vertical_name: 'Apparel',
          partner_sub_vertical_id: 1001,
          partner_sub_vertical_name: 'Women',
          vertical_name: 'Apparel > Womenswear',
        },
      ],
    };
  if (path.endsWith('/variants')) return { page_id: w.pageA, name: 'fuzz variant', enabled: false };
  if (path.includes('/variants/')) return { enabled: false, archived: false };
  if (path.endsWith('/clock/advance')) return { seconds: 1 };
  if (path === '/__sandbox/scenarios')
    return { scenario: 'latency', value: 1, account_id: w.accountA, times: 1 };
  return {};
}

const ADMIN_QUERIES = [
  'status=abc',
  'status=1.5',
  'status=200',
  'limit=0',
  'limit=-1',
  'limit=99999999999999999999',
  'limit=1e3',
  'method=%00',
  "path=' OR 1=1 --",
  'account_id=%3Cscript%3E',
  'since=not-a-date',
  'parent_account_id=pa_demo_platform',
];

const adminRequest = fc.record({
  route: fc.nat({ max: ADMIN_ROUTES.length - 1 }),
  method: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), {
    nil: undefined,
    freq: 5,
  }),
  id: idChoice,
  body,
  query: fc.option(
    fc.oneof(
      fc.constantFrom(...ADMIN_QUERIES),
      nastyString.filter((x) => x.length < 500).map((x) => `status=${enc(x)}`),
    ),
    { nil: undefined },
  ),
  contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined, freq: 3 }),
});
type AdminRequest = typeof adminRequest extends fc.Arbitrary<infer T> ? T : never;

function buildAdmin(w: World, r: AdminRequest): Sent {
  const [defaultMethod, template] = ADMIN_ROUTES[r.route]!;
  const method = r.method ?? defaultMethod;
  let path: string = template
    .replace('{parent}', pathId(r.id, DEMO.parent, 'pa_nobody'))
    .replace('{account}', pathId(r.id, w.accountA, w.accountB))
    .replace('{variant}', pathId(r.id, w.variantA, 'no-such-variant'));
  if (r.query !== undefined) path += `?${r.query}`;
  let payload: string | Uint8Array | undefined;
  const base = adminBase(
    template.replace('{parent}', 'p').replace('{account}', 'a').replace('{variant}', 'v'),
    w,
  );
  switch (r.body.kind) {
    case 'none':
      payload = undefined;
      break;
    case 'valid':
      payload = JSON.stringify(base);
      break;
    case 'json':
      payload = JSON.stringify(mutate(base, r.body.muts));
      break;
    case 'raw':
      payload = r.body.text;
      break;
    case 'bytes':
      payload = r.body.bytes;
      break;
  }
  const headers: Record<string, string> = {};
  if (payload !== undefined || r.contentType !== undefined)
    headers['Content-Type'] = r.contentType ?? 'application/json';
  return { method, path, headers, body: method === 'GET' ? undefined : payload };
}

describe('fuzz: the /__sandbox control plane', () => {
  it(
    'never a 5xx, JSON answers, errors in the envelope, never a state change from a rejected request',
    async () => {
      const h = createHarness();
      let w = await setUp(h);
      let before = await snapshot(w);
      const seen = new Map<number, number>();

      await fc.assert(
        fc.asyncProperty(adminRequest, async (r) => {
          const s = buildAdmin(w, r);
          const res = await send(w, s);
          seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
          expectNo5xx(res, s);
          const where = () => `${describeSent(s)} -> ${res.status} ${res.text.slice(0, 300)}`;
          expect(res.headers.get('content-type') ?? '', where()).toMatch(/^application\/json/);
          if (res.status >= 400) expectEnvelope(res, s);
          else expect(res.body, where()).toBeTypeOf('object');
          const ok = res.status >= 200 && res.status < 300;
          if (ok && s.path.startsWith('/__sandbox/reset')) {
            // a reset wipes the world: build it again
            w = await setUp(h);
          }
          const after = await snapshot(w);
          if (!ok && after !== before) {
            throw new Error(
              `state changed by a rejected request (${res.status}): ${describeSent(s)}\n${diff(before, after)}`,
            );
          }
          before = after;
        }),
        { seed: SEED + 1, numRuns: runs(250), endOnFailure: true },
      );
      expect(seen.get(200) ?? 0).toBeGreaterThan(0);
      expect([...seen.keys()].filter((st) => st >= 400 && st < 500).length).toBeGreaterThanOrEqual(4);
      expect((await h.request('GET', '/__sandbox/health')).status).toBe(200);
      h.sandbox.close();
    },
    timeout(45_000),
  );
});
