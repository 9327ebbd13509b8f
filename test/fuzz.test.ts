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
 *   FUZZ_RUNS=20000 npx vitest run test/fuzz.test.ts   (each property runs FUZZ_RUNS times)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTROLS,
  createHarness,
  DEMO,
  type Harness,
  LAYOUT,
  MAPPINGS,
  REGISTER,
  registerBody,
  STATUS,
  UNSEEDED,
} from './harness.js';

// biome-ignore lint/suspicious/noExplicitAny: generated bodies and parsed answers are untyped
type Json = any;

const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const LONG = process.env.FUZZ_RUNS !== undefined;
const runs = (fallback: number) => (LONG ? Number(process.env.FUZZ_RUNS) : fallback);
const timeout = (fallback: number) =>
  LONG ? Math.max(60_000, Number(process.env.FUZZ_RUNS) * 20) : fallback;

// ---- the world one property works in -------------------------------------------------

interface World {
  h: Harness;
  token: string;
  unseededToken: string;
  accountA: string;
  layoutA: string;
  variantA: string;
  pageA: string;
  /** An account of the other partner (UNSEEDED): never reachable with DEMO's token. */
  accountB: string;
}

async function setUp(h: Harness): Promise<World> {
  const token = await h.token();
  const unseededToken = await h.token(UNSEEDED.clientId, UNSEEDED.clientSecret);
  const demo = { Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent };
  const reg = await h.request('POST', REGISTER, { headers: demo, body: registerBody() });
  expect(reg.status).toBe(200);
  const accountA: string = reg.body.data.account_id;
  // the other partner's account: register it under a temporary scenario-free mapping
  const seed = await h.request('PUT', `/__sandbox/partners/${UNSEEDED.parent}/vertical-mappings`, {
    body: {
      vertical_mappings: [
        {
          partner_vertical_id: 10,
          partner_vertical_name: 'Apparel',
          partner_sub_vertical_id: 1001,
          partner_sub_vertical_name: 'Women',
          vertical_name: 'Apparel > Womenswear',
        },
      ],
    },
  });
  expect(seed.status).toBe(200);
  const regB = await h.request('POST', REGISTER, {
    headers: { Authorization: `Bearer ${unseededToken}`, 'X-Platform-Parent-Account-Id': UNSEEDED.parent },
    body: registerBody({ platform_parent_account_id: UNSEEDED.parent }),
  });
  expect(regB.status).toBe(200);
  const detail = (await h.request('GET', `/__sandbox/accounts/${accountA}`)).body;
  return {
    h,
    token,
    unseededToken,
    accountA,
    accountB: regB.body.data.account_id,
    layoutA: detail.layouts[0].layout_id,
    pageA: detail.pages[0].page_id,
    variantA: detail.variants[0].variant_id,
  };
}

/** Everything a request could change, read back through the control plane. */
async function snapshot(w: World): Promise<string> {
  const { h } = w;
  const parts = await Promise.all([
    h.request('GET', `/__sandbox/accounts/${w.accountA}`),
    h.request('GET', `/__sandbox/accounts/${w.accountB}`),
    h.request('GET', '/__sandbox/partners'),
    h.request('GET', '/__sandbox/clock'),
    h.request('GET', '/__sandbox/scenarios'),
  ]);
  const mappings = [DEMO.parent, UNSEEDED.parent].map((p) => h.sandbox.store.partners.mappings(p));
  // the clock runs in real time: only its offset is state
  const [a, b, partners, clock, scenarios] = parts.map((p) => [p.status, p.body]);
  return JSON.stringify({
    accountA: a,
    accountB: b,
    partners,
    clockOffset: clock?.[1]?.offset_seconds,
    armed: (scenarios?.[1] as Json)?.armed,
    mappings,
  });
}

/** Where two snapshots first differ, with a little context. */
function diff(before: string, after: string): string {
  let i = 0;
  while (i < before.length && before[i] === after[i]) i++;
  return `at ${i}: before …${before.slice(Math.max(0, i - 120), i + 80)}… after …${after.slice(Math.max(0, i - 120), i + 80)}…`;
}

// ---- generators ----------------------------------------------------------------------

const NASTY = [
  "' OR '1'='1",
  "'; DROP TABLE accounts; --",
  'Robert"); DELETE FROM controls_lists; --',
  '1; SELECT * FROM partners',
  '%',
  '_',
  '\\',
  '\u0000',
  '\u0000abc',
  '\r\n\r\nX-Injected: 1',
  '\u202e\u2066',
  '\ud800',
  '\udfff\ud800',
  '𝕏𝔂𝔃 👩‍👩‍👧‍👦',
  'İıﬀ',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%2e%2e%2f%2e%2e%2f',
  `$${'{'}jndi:ldap://x/a}`,
  '{{7*7}}',
  '__proto__',
  'constructor',
  ' ',
  '',
  'null',
  'true',
  '-0',
  '1e400',
];

const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 300_000 }).map((n) => 'x'.repeat(n)) },
);

const nastyNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, 5e-324, 10.5, 1001.0000001),
);

/** A deeply nested value, built only when serialised (so counterexamples print short). */
class Deep {
  readonly #depth: number;
  constructor(depth: number) {
    this.#depth = depth;
  }
  toJSON(): Json {
    let v: Json = 1;
    for (let i = 0; i < this.#depth; i++) v = i % 2 ? [v] : { a: v };
    return v;
  }
  [fc.toStringMethod](): string {
    return `Deep(${this.#depth})`;
  }
}
const deep = fc.integer({ min: 1, max: 3000 }).map((d) => new Deep(d));

const anyValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: nastyString },
  { weight: 2, arbitrary: nastyNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deep },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1001, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
  },
);

/** Every path (list of keys) into a JSON value, the root included. */
function paths(v: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) out.push(...paths(v[i], [...prefix, i]));
  } else if (v && typeof v === 'object')
    for (const k of Object.keys(v)) out.push(...paths(v[k], [...prefix, k]));
  return out;
}

type Mutation =
  | { op: 'set'; at: number; value: Json }
  | { op: 'delete'; at: number }
  | { op: 'extra'; at: number; key: string; value: Json }
  | { op: 'replace'; value: Json }
  | { op: 'bigArray'; field: 'blockedVerticals' | 'domains' | 'pages'; n: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: anyValue }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('extra' as const),
      at: fc.nat(),
      key: fc.oneof(
        fc.constantFrom(
          'content_hash',
          'blocked_verticals',
          'partner_vertical_id',
          'Brand',
          'externalAccountId',
          '__proto__',
          'constructor',
          'status',
          'position_1_policy',
        ),
        nastyString.filter((s) => s.length < 100),
      ),
      value: anyValue,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('replace' as const), value: anyValue }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('bigArray' as const),
      field: fc.constantFrom('blockedVerticals' as const, 'domains' as const, 'pages' as const),
      n: fc.integer({ min: 21, max: 1500 }),
    }),
  },
);

/** A copy of a generated value (fast-check may hand out one object twice; no cycles). */
function copy(v: Json): Json {
  if (v instanceof Deep || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copy);
  const out: Json = {};
  for (const k of Object.keys(v)) {
    Object.defineProperty(out, k, {
      value: copy(v[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

function mutate(base: Json, muts: Mutation[]): Json {
  let v: Json = structuredClone(base);
  for (const m of muts) {
    if (m.op === 'replace') {
      v = copy(m.value);
      continue;
    }
    if (m.op === 'bigArray') {
      if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
      v[m.field] = Array.from({ length: m.n }, (_, i) =>
        m.field === 'domains'
          ? { domain: `d${i}.example.com` }
          : m.field === 'pages'
            ? { surface: 'returns', layout_type: 'Overlay' }
            : { partnerVerticalId: 10, partnerSubVerticalId: 1001 + (i % 4) },
      );
      continue;
    }
    const all = paths(v);
    const path = all[m.at % all.length]!;
    if (m.op === 'set') {
      if (path.length === 0) v = copy(m.value);
      else {
        const parent = path.slice(0, -1).reduce((o: Json, k) => o[k], v);
        parent[path[path.length - 1]!] = copy(m.value);
      }
    } else if (m.op === 'delete') {
      if (path.length === 0) continue;
      const parent = path.slice(0, -1).reduce((o: Json, k) => o[k], v);
      if (Array.isArray(parent)) parent.splice(Number(path[path.length - 1]), 1);
      else delete parent[path[path.length - 1]!];
    } else {
      const target = path.reduce((o: Json, k) => o[k], v);
      if (target && typeof target === 'object' && !Array.isArray(target)) {
        Object.defineProperty(target, m.key, {
          value: copy(m.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
  }
  return v;
}

/** encodeURIComponent, with lone surrogates (which it cannot encode) replaced. */
const enc = (s: string) =>
  encodeURIComponent(
    s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );

/** A header value a client can actually send (ByteString, no CR/LF/NUL). */
const headerValue = (s: string) =>
  s
    .split('')
    .filter((ch) => {
      const c = ch.charCodeAt(0);
      return c === 9 || (c >= 0x20 && c <= 0xff && c !== 0x7f);
    })
    .join('');

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/vnd.partner+json',
  'application/json;charset=latin1',
  'application/jsonp',
  'application/json-patch+json',
  'text/json',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/xml',
  '*/*',
  '',
];

/** Raw body texts that JSON.stringify cannot produce. */
const rawBody = fc.oneof(
  fc.constantFrom(
    '{"blockedVerticals":[],"domains":[],"contentHash":null,"domains":[{"domain":"dup.example.com"}]}',
    '{"status":"active","status":"mixed"}',
    '{"layout_type":"Overlay","layout_type":"Sideways"}',
    '{"brand":"a","brand":1}',
    '{"__proto__":{"polluted":true},"blockedVerticals":[],"domains":[],"contentHash":null}',
    '{"constructor":{"prototype":{"polluted":true}},"status":"paused"}',
    '{',
    '}',
    '[]',
    '"just a string"',
    '123',
    'null',
    'NaN',
    '{"a":1,}',
    "{'single':'quotes'}",
    '\ufeff{"status":"active"}',
    '{"status":"active"}\u0000',
    '{"status":"active"} trailing',
    ' \t\r\n ',
    '{"domains":[{"domain":"\\ud800.example.com"}],"blockedVerticals":[],"contentHash":null}',
    '{"blockedVerticals":[{"partnerVerticalId":1e2,"partnerSubVerticalId":1.001e3}],"domains":[],"contentHash":null}',
    '{"blockedVerticals":[{"partnerVerticalId":10,"partnerSubVerticalId":99999999999999999999999}],"domains":[],"contentHash":null}',
  ),
  fc.integer({ min: 100, max: 60_000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
  fc.integer({ min: 100, max: 30_000 }).map((d) => `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

/** Bytes that are not valid UTF-8, inside and outside JSON strings. */
const badUtf8 = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 300 }),
  fc
    .constantFrom(
      [0xff, 0xfe, 0xfd],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xe2, 0x28, 0xa1],
    )
    .map((bad) => {
      const enc = new TextEncoder();
      const head = enc.encode('{"status":"paused","name":"');
      const tail = enc.encode('"}');
      return Uint8Array.from([...head, ...bad, ...tail]);
    }),
);

type Body =
  | { kind: 'none' }
  | { kind: 'json'; muts: Mutation[] }
  | { kind: 'valid' }
  | { kind: 'raw'; text: string }
  | { kind: 'bytes'; bytes: Uint8Array };

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'valid' as const }) },
  {
    weight: 8,
    arbitrary: fc
      .array(mutation, { minLength: 1, maxLength: 3 })
      .map((muts) => ({ kind: 'json' as const, muts })),
  },
  { weight: 2, arbitrary: rawBody.map((text) => ({ kind: 'raw' as const, text })) },
  { weight: 1, arbitrary: badUtf8.map((bytes) => ({ kind: 'bytes' as const, bytes })) },
);

/** Path IDs: the right one, the other partner's, traversal and encoding tricks, garbage. */
type IdChoice =
  | { kind: 'mine' }
  | { kind: 'theirs' }
  | { kind: 'raw'; text: string }
  | { kind: 'encoded'; text: string };
const TRAVERSAL = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E%2F%2E%2E',
  '..%2f..%2f__sandbox%2freset',
  '..%5c..%5c',
  '%252e%252e%252f',
  '%00',
  '%c0%ae%c0%ae',
  'acct_x%2Fstatus',
  ';',
  '%20',
  '~',
  'acct_%27%20OR%201%3D1',
  '%3Cscript%3E',
  '..;',
];
const idChoice: fc.Arbitrary<IdChoice> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'mine' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'theirs' as const }) },
  { weight: 2, arbitrary: fc.constantFrom(...TRAVERSAL).map((text) => ({ kind: 'raw' as const, text })) },
  {
    weight: 2,
    arbitrary: nastyString
      .filter((s) => s.length > 0 && s.length < 5000)
      .map((text) => ({ kind: 'encoded' as const, text })),
  },
);

const VALID_SCENARIOS = [
  'latency=0',
  'latency=1',
  'unseeded-mappings',
  'token-expired',
  'rate-limited',
  'rate-limited=2',
  'auth-propagation',
  'status-partial-failure',
  'status-partial-failure=1',
  'stale-content-hash',
  'flaky-network',
];
const scenarioHeader = fc.option(
  fc.oneof(
    fc.constantFrom(...VALID_SCENARIOS),
    fc.constantFrom(
      'latency=-1',
      'latency=abc',
      'latency=999999999',
      'server-error=418',
      'nope',
      ',,,',
      '=',
      'latency==1',
      'unseeded-mappings=1',
      'LATENCY=1',
    ),
    nastyString.map(headerValue),
  ),
  { nil: undefined },
);

const idemKey = fc.option(
  fc.oneof(
    fc.uuid(),
    fc.constantFrom('k-1', 'k-2', ' ', 'a b', 'k\u00ff', '"', "'; DROP TABLE idempotency_keys; --"),
    fc.integer({ min: 250, max: 600 }).map((n) => 'k'.repeat(n)),
    nastyString.map(headerValue),
  ),
  { nil: undefined },
);

const query = fc.option(
  fc.oneof(
    fc.constantFrom(
      'dry_run=true',
      'dry_run=false',
      'dry_run=TRUE',
      'dry_run=1',
      'dry_run=',
      'dry_run',
      'dry_run=true&dry_run=false',
      'dry_run=false&dry_run=true',
      'dry_run[]=true',
      'dry_run=%00',
      'dry_run=%ZZ',
      'parent_account_id=pa_demo_platform',
      'parent_account_id=pa_unseeded_platform',
      'parent_account_id=',
      "parent_account_id=' OR 1=1",
      // parameters no endpoint documents, near misses of dry_run among them: always 400
      'dryRun=true',
      'dry-run=true',
      'DRY_RUN=true',
      'foo=1',
      'dry_run=true&foo=1',
    ),
    nastyString.filter((s) => s.length < 2000).map((s) => `dry_run=${enc(s)}`),
    nastyString.filter((s) => s.length > 0 && s.length < 500).map((s) => `${enc(s)}=true`),
  ),
  { nil: undefined },
);

const ROUTES = [
  'mappings',
  'register',
  'controls.get',
  'controls.put',
  'status.get',
  'status.put',
  'layout.patch',
  'token',
] as const;
type Route = (typeof ROUTES)[number];

const partnershipRequest = fc.record({
  route: fc.constantFrom(...ROUTES),
  method: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'), {
    nil: undefined,
    freq: 6,
  }),
  id: idChoice,
  layoutId: idChoice,
  body,
  query,
  contentType: fc.option(
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      { weight: 1, arbitrary: nastyString.map(headerValue) },
    ),
    { nil: undefined, freq: 2 },
  ),
  auth: fc.oneof(
    { weight: 8, arbitrary: fc.constant('valid' as const) },
    { weight: 1, arbitrary: fc.constant('other' as const) },
    { weight: 1, arbitrary: fc.constant('none' as const) },
    { weight: 2, arbitrary: nastyString.map((s) => `garbage:${headerValue(s)}` as const) },
  ),
  parent: fc.oneof(
    { weight: 8, arbitrary: fc.constant(DEMO.parent as string) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(UNSEEDED.parent as string) },
    { weight: 1, arbitrary: nastyString.map(headerValue) },
  ),
  idem: idemKey,
  scenario: scenarioHeader,
  tokenStyle: fc.constantFrom('form', 'json', 'basic', 'garbage'),
});
type PartnershipRequest = typeof partnershipRequest extends fc.Arbitrary<infer T> ? T : never;

// ---- building and sending --------------------------------------------------------------

function pathId(choice: IdChoice, mine: string, theirs: string): string {
  switch (choice.kind) {
    case 'mine':
      return mine;
    case 'theirs':
      return theirs;
    case 'raw':
      return choice.text;
    case 'encoded':
      return enc(choice.text);
  }
}

function validBody(route: Route, currentHash: string | null): Json {
  switch (route) {
    case 'register':
      return registerBody();
    case 'controls.put':
    case 'controls.get':
      return {
        name: 'fuzz list',
        blockedVerticals: [
          { partnerVerticalId: 20, partnerSubVerticalId: 2002, policy: 'Block', position1Policy: 'Block' },
        ],
        domains: [{ domain: 'Fuzz.Example.com', policy: 'Block' }],
        contentHash: currentHash,
      };
    case 'status.put':
    case 'status.get':
      return { status: 'paused' };
    case 'layout.patch':
      return { layout_type: 'Embedded', name: 'fuzzed layout' };
    case 'token':
      return {
        grant_type: 'client_credentials',
        client_id: DEMO.clientId,
        client_secret: DEMO.clientSecret,
        scope: 'partnership',
      };
    case 'mappings':
      return {};
  }
}

const DEFAULT_METHOD: Record<Route, string> = {
  mappings: 'GET',
  register: 'POST',
  'controls.get': 'GET',
  'controls.put': 'PUT',
  'status.get': 'GET',
  'status.put': 'PUT',
  'layout.patch': 'PATCH',
  token: 'POST',
};

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

async function build(w: World, r: PartnershipRequest): Promise<Sent> {
  const method = r.method ?? DEFAULT_METHOD[r.route];
  const id = pathId(r.id, w.accountA, w.accountB);
  let path: string;
  switch (r.route) {
    case 'mappings':
      path = MAPPINGS;
      break;
    case 'register':
      path = REGISTER;
      break;
    case 'controls.get':
    case 'controls.put':
      path = CONTROLS(id);
      break;
    case 'status.get':
    case 'status.put':
      path = STATUS(id);
      break;
    case 'layout.patch':
      path = LAYOUT(id, pathId(r.layoutId, w.layoutA, 'no-such-layout'));
      break;
    case 'token':
      path = '/oauth/token';
      break;
  }
  if (r.query !== undefined) path += `?${r.query}`;

  const headers: Record<string, string> = {};
  if (r.route === 'token') {
    if (r.tokenStyle === 'basic') {
      headers.Authorization = `Basic ${Buffer.from(`${DEMO.clientId}:${DEMO.clientSecret}`).toString('base64')}`;
    } else if (r.tokenStyle === 'garbage' && r.auth !== 'valid') {
      headers.Authorization = r.auth.startsWith('garbage:') ? `Basic ${r.auth.slice(8)}` : 'Basic';
    }
  } else if (r.auth === 'valid') headers.Authorization = `Bearer ${w.token}`;
  else if (r.auth === 'other') headers.Authorization = `Bearer ${w.unseededToken}`;
  else if (r.auth !== 'none') headers.Authorization = `Bearer ${r.auth.slice(8)}`;
  if (r.parent !== undefined) headers['X-Platform-Parent-Account-Id'] = r.parent;
  if (r.idem !== undefined) headers['Idempotency-Key'] = r.idem;
  if (r.scenario !== undefined) headers['X-Sandbox-Scenario'] = r.scenario;

  let payload: string | Uint8Array | undefined;
  const current =
    r.route === 'controls.put'
      ? ((await w.h.request('GET', `/__sandbox/accounts/${w.accountA}`)).body?.controls?.content_hash ?? null)
      : null;
  const base = validBody(r.route, current);
  switch (r.body.kind) {
    case 'none':
      payload = undefined;
      break;
    case 'valid':
      payload =
        r.route === 'token' && r.tokenStyle === 'form'
          ? new URLSearchParams(base).toString()
          : JSON.stringify(
              r.route === 'token' && r.tokenStyle === 'basic' ? { grant_type: 'client_credentials' } : base,
            );
      break;
    case 'json': {
      const v = mutate(base, r.body.muts);
      payload =
        r.route === 'token' && r.tokenStyle === 'form' && v && typeof v === 'object'
          ? new URLSearchParams(
              Object.entries(v).map(([k, x]): [string, string] => [
                k,
                typeof x === 'string' ? x : (JSON.stringify(x) ?? ''),
              ]),
            ).toString()
          : JSON.stringify(v);
      break;
    }
    case 'raw':
      payload = r.body.text;
      break;
    case 'bytes':
      payload = r.body.bytes;
      break;
  }
  if (payload !== undefined) {
    headers['Content-Type'] =
      r.contentType ??
      (r.route === 'token' && r.tokenStyle === 'form'
        ? 'application/x-www-form-urlencoded'
        : 'application/json');
  } else if (r.contentType !== undefined) headers['Content-Type'] = r.contentType;
  return { method, path, headers, body: method === 'GET' || method === 'HEAD' ? undefined : payload };
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

async function send(w: World, s: Sent): Promise<Answer> {
  const res = await w.h.app.request(s.path, { method: s.method, headers: s.headers, body: s.body });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

const describeSent = (s: Sent) =>
  `${s.method} ${s.path.slice(0, 300)} headers=${JSON.stringify(s.headers).slice(0, 500)} body=${
    typeof s.body === 'string'
      ? JSON.stringify(s.body.slice(0, 300))
      : s.body
        ? `bytes[${s.body.length}]`
        : 'none'
  }`;

/** A 5xx is only acceptable when the caller asked for it with the server-error scenario. */
function expectNo5xx(res: Answer, s: Sent) {
  const injected = (res.headers.get('x-sandbox-scenario-applied') ?? '').includes('server-error');
  if (res.status >= 500 && !injected) {
    throw new Error(`5xx for ${describeSent(s)}: ${res.status} ${res.text.slice(0, 500)}`);
  }
}

/** Spec §1 envelope (also used by the control plane for its errors). */
function expectEnvelope(res: Answer, s: Sent) {
  const b = res.body;
  const where = () => `${describeSent(s)} -> ${res.status} ${res.text.slice(0, 300)}`;
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw new Error(`no JSON envelope: ${where()}`);
  expect(res.headers.get('content-type') ?? '', where()).toMatch(/^application\/json/);
  expect(b.status, where()).toBe(res.status);
  expect(typeof b.message, where()).toBe('string');
  expect(typeof b.request_id, where()).toBe('string');
  expect('data' in b, where()).toBe(true);
  expect('error' in b, where()).toBe(true);
  if (res.status >= 400) {
    expect(typeof b.error?.code, where()).toBe('string');
    expect(b.data, where()).toBeNull();
  } else if (b.error !== null) {
    expect(b.error.code, where()).toBe('partial_failure');
  }
  if (res.headers.get('idempotent-replayed') !== 'true') {
    expect(res.headers.get('x-request-id'), where()).toBe(b.request_id);
  }
}

function expectTokenAnswer(res: Answer, s: Sent) {
  const where = () => `${describeSent(s)} -> ${res.status} ${res.text.slice(0, 300)}`;
  if (res.status === 200) {
    expect(res.body?.token_type, where()).toBe('Bearer');
    expect(res.body?.access_token, where()).toMatch(/^sbx_/);
  } else if (res.status === 400 || res.status === 401) {
    expect(typeof res.body?.error, where()).toBe('string');
    expect(typeof res.body?.error_description, where()).toBe('string');
  } else {
    // 404/405/413 from the router or the body limit: the partnership envelope
    expectEnvelope(res, s);
  }
}

const stateChangedByDesign = (res: Answer) =>
  // stale-content-hash simulates another writer: it changes the list, then answers 409
  (res.headers.get('x-sandbox-scenario-applied') ?? '').includes('stale-content-hash');

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
