/**
 * The generators and invariants of the property-based robustness suites (fast-check, fixed
 * seed): test/api/fuzz.test.ts (partnership routes, the token endpoint, targeted hostile writes)
 * and test/control/fuzz-control.test.ts (the control plane).
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import {
  CONTROLS,
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
export type Json = any;

export const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
export const LONG = process.env.FUZZ_RUNS !== undefined;
export const runs = (fallback: number) => (LONG ? Number(process.env.FUZZ_RUNS) : fallback);
export const timeout = (fallback: number) =>
  LONG ? Math.max(60_000, Number(process.env.FUZZ_RUNS) * 20) : fallback;

// ---- the world one property works in -------------------------------------------------

export interface World {
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

export async function setUp(h: Harness): Promise<World> {
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
export async function snapshot(w: World): Promise<string> {
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
export function diff(before: string, after: string): string {
  let i = 0;
  while (i < before.length && before[i] === after[i]) i++;
  return `at ${i}: before …${before.slice(Math.max(0, i - 120), i + 80)}… after …${after.slice(Math.max(0, i - 120), i + 80)}…`;
}

// ---- generators ----------------------------------------------------------------------

export const NASTY = [
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

export const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 300_000 }).map((n) => 'x'.repeat(n)) },
);

export const nastyNumber = fc.oneof(
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
export const deep = fc.integer({ min: 1, max: 3000 }).map((d) => new Deep(d));

export const anyValue: fc.Arbitrary<Json> = fc.oneof(
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
export function paths(v: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) out.push(...paths(v[i], [...prefix, i]));
  } else if (v && typeof v === 'object')
    for (const k of Object.keys(v)) out.push(...paths(v[k], [...prefix, k]));
  return out;
}

export type Mutation =
  | { op: 'set'; at: number; value: Json }
  | { op: 'delete'; at: number }
  | { op: 'extra'; at: number; key: string; value: Json }
  | { op: 'replace'; value: Json }
  | { op: 'bigArray'; field: 'blockedVerticals' | 'domains' | 'pages'; n: number };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
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
export function copy(v: Json): Json {
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

export function mutate(base: Json, muts: Mutation[]): Json {
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
export const enc = (s: string) =>
  encodeURIComponent(
    s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );

/** A header value a client can actually send (ByteString, no CR/LF/NUL). */
export const headerValue = (s: string) =>
  s
    .split('')
    .filter((ch) => {
      const c = ch.charCodeAt(0);
      return c === 9 || (c >= 0x20 && c <= 0xff && c !== 0x7f);
    })
    .join('');

export const CONTENT_TYPES = [
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
export const rawBody = fc.oneof(
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
export const badUtf8 = fc.oneof(
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

export type Body =
  | { kind: 'none' }
  | { kind: 'json'; muts: Mutation[] }
  | { kind: 'valid' }
  | { kind: 'raw'; text: string }
  | { kind: 'bytes'; bytes: Uint8Array };

export const body: fc.Arbitrary<Body> = fc.oneof(
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
export type IdChoice =
  | { kind: 'mine' }
  | { kind: 'theirs' }
  | { kind: 'raw'; text: string }
  | { kind: 'encoded'; text: string };
export const TRAVERSAL = [
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
export const idChoice: fc.Arbitrary<IdChoice> = fc.oneof(
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

export const VALID_SCENARIOS = [
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
export const scenarioHeader = fc.option(
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

export const idemKey = fc.option(
  fc.oneof(
    fc.uuid(),
    fc.constantFrom('k-1', 'k-2', ' ', 'a b', 'k\u00ff', '"', "'; DROP TABLE idempotency_keys; --"),
    fc.integer({ min: 250, max: 600 }).map((n) => 'k'.repeat(n)),
    nastyString.map(headerValue),
  ),
  { nil: undefined },
);

export const query = fc.option(
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

export const ROUTES = [
  'mappings',
  'register',
  'controls.get',
  'controls.put',
  'status.get',
  'status.put',
  'layout.patch',
  'token',
] as const;
export type Route = (typeof ROUTES)[number];

export const partnershipRequest = fc.record({
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
export type PartnershipRequest = typeof partnershipRequest extends fc.Arbitrary<infer T> ? T : never;

// ---- building and sending --------------------------------------------------------------

export function pathId(choice: IdChoice, mine: string, theirs: string): string {
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

export function validBody(route: Route, currentHash: string | null): Json {
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

export const DEFAULT_METHOD: Record<Route, string> = {
  mappings: 'GET',
  register: 'POST',
  'controls.get': 'GET',
  'controls.put': 'PUT',
  'status.get': 'GET',
  'status.put': 'PUT',
  'layout.patch': 'PATCH',
  token: 'POST',
};

export interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

export async function build(w: World, r: PartnershipRequest): Promise<Sent> {
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

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

export async function send(w: World, s: Sent): Promise<Answer> {
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

export const describeSent = (s: Sent) =>
  `${s.method} ${s.path.slice(0, 300)} headers=${JSON.stringify(s.headers).slice(0, 500)} body=${
    typeof s.body === 'string'
      ? JSON.stringify(s.body.slice(0, 300))
      : s.body
        ? `bytes[${s.body.length}]`
        : 'none'
  }`;

/** A 5xx is only acceptable when the caller asked for it with the server-error scenario. */
export function expectNo5xx(res: Answer, s: Sent) {
  const injected = (res.headers.get('x-sandbox-scenario-applied') ?? '').includes('server-error');
  if (res.status >= 500 && !injected) {
    throw new Error(`5xx for ${describeSent(s)}: ${res.status} ${res.text.slice(0, 500)}`);
  }
}

/** Spec §1 envelope (also used by the control plane for its errors). */
export function expectEnvelope(res: Answer, s: Sent) {
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

export function expectTokenAnswer(res: Answer, s: Sent) {
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

export const stateChangedByDesign = (res: Answer) =>
  // stale-content-hash simulates another writer: it changes the list, then answers 409
  (res.headers.get('x-sandbox-scenario-applied') ?? '').includes('stale-content-hash');
