/**
 * Concurrency against a real listening server (startServer, port 0): the content-hash
 * guard lets exactly one of many racing writers win, one Idempotency-Key executes once
 * however many copies are in flight, and register matches on external_account_id under
 * a burst of identical registrations.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_IN_PROGRESS_MESSAGE,
  STALE_CONTENT_HASH_MESSAGE,
} from '../../src/contract/api/messages.js';
import { type Running, startServer } from '../../src/server.js';
import { CONTROLS, DEMO, REGISTER, registerBody, testConfig } from '../helpers/harness.js';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
type Json = any;

interface Answer {
  status: number;
  headers: Headers;
  body: Json;
  text: string;
}

const N = 50;

let server: Running;
let token: string;

async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Json = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: res.status, headers: res.headers, body: parsed, text } satisfies Answer;
}

const auth = () => ({ Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent });

async function newAccount(): Promise<string> {
  const res = await call('POST', REGISTER, auth(), registerBody());
  expect(res.status).toBe(200);
  return res.body.data.account_id;
}

async function detail(accountId: string): Promise<Json> {
  const res = await call('GET', `/__sandbox/accounts/${accountId}`);
  expect(res.status).toBe(200);
  return res.body;
}

function blockedSubs(data: Json): number[] {
  return data.translated_verticals
    .filter((t: Json) => t.policy === 'Block')
    .map((t: Json) => t.vertical_id as number)
    .sort((a: number, b: number) => a - b);
}

/** All mapped fixture pairs: (vertical, sub-vertical). */
const PAIRS: [number, number][] = [
  ...[1001, 1002, 1003, 1004].map((s) => [10, s] as [number, number]),
  ...[2001, 2002, 2003, 2004].map((s) => [20, s] as [number, number]),
  ...[3001, 3002, 3003].map((s) => [30, s] as [number, number]),
  ...[4001, 4002, 4003, 4004].map((s) => [40, s] as [number, number]),
  ...[5001, 5002, 5003].map((s) => [50, s] as [number, number]),
];

/** A distinct body per writer: its own domain and its own subset of blocked pairs. */
function bodyFor(i: number, contentHash: string) {
  const blocked = PAIRS.filter((_, j) => ((i + 1) >> (j % 6)) & 1 || j === i % PAIRS.length).map(
    ([v, s]) => ({ partnerVerticalId: v, partnerSubVerticalId: s }),
  );
  return {
    name: `writer ${i}`,
    blockedVerticals: blocked,
    domains: [{ domain: `writer-${i}.example.com` }, { domain: `Shared-${i % 3}.Example.org` }],
    contentHash,
  };
}

beforeEach(async () => {
  server = await startServer(testConfig({ port: 0 }));
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEMO.clientId,
      client_secret: DEMO.clientSecret,
    }),
  });
  expect(res.status).toBe(200);
  token = ((await res.json()) as { access_token: string }).access_token;
});

afterEach(async () => {
  await server.close();
});

describe('concurrent controls PUTs racing on one content hash', () => {
  it(`${N} writers with the same current contentHash: exactly one 200, ${N - 1} are 409 content_hash_mismatch, and the stored list is the winner's`, async () => {
    const accountId = await newAccount();
    const before = await call('GET', CONTROLS(accountId), auth());
    expect(before.status).toBe(200);
    const hash: string = before.body.data.marketplace_controls_list.content_hash;
    const versionBefore = (await detail(accountId)).controls.version;

    const bodies = Array.from({ length: N }, (_, i) => bodyFor(i, hash));
    // every body really is different (otherwise "the winner's body" would be ambiguous)
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(N);

    const answers = await Promise.all(
      bodies.map((b, i) =>
        call('PUT', CONTROLS(accountId), { ...auth(), 'Idempotency-Key': `race-${i}` }, b),
      ),
    );

    const winners = answers.map((a, i) => ({ a, i })).filter(({ a }) => a.status === 200);
    const losers = answers.filter((a) => a.status !== 200);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(N - 1);
    for (const l of losers) {
      expect(l.status).toBe(409);
      expect(l.body).toMatchObject({
        status: 409,
        error: { code: 'content_hash_mismatch' },
        message: STALE_CONTENT_HASH_MESSAGE,
        data: null,
      });
    }

    const { a: win, i: w } = winners[0]!;
    const sent = bodies[w]!;
    const after = await call('GET', CONTROLS(accountId), auth());
    expect(after.status).toBe(200);
    // the stored list is exactly what the winner was told was written
    expect(after.body.data).toEqual(win.body.data);
    expect(after.body.data.marketplace_controls_list.content_hash).not.toBe(hash);
    // ... and that is the winner's body: its blocked set and its domains (lower-cased)
    expect(blockedSubs(after.body.data)).toEqual(
      sent.blockedVerticals.map((p) => p.partnerSubVerticalId).sort((a, b) => a - b),
    );
    expect(after.body.data.marketplace_controls_list.domains).toEqual(
      sent.domains.map((d) => ({ domain: d.domain.toLowerCase(), policy: 'Block' })),
    );
    const d = await detail(accountId);
    expect(d.controls.version).toBe(versionBefore + 1);
    expect(d.controls.name).toBe(sent.name);
  });
});

describe('one Idempotency-Key, many copies in flight', () => {
  it(`${N} concurrent copies (same key, same body, latency=300) execute once: one 200, the rest replays or 409 idempotency_key_in_progress`, async () => {
    const accountId = await newAccount();
    const versionBefore: number = (await detail(accountId)).controls.version;
    const body = {
      blockedVerticals: [{ partnerVerticalId: 30, partnerSubVerticalId: 3002 }],
      domains: [{ domain: 'once.example.com' }],
      contentHash: null,
    };
    const headers = {
      ...auth(),
      'Idempotency-Key': 'one-key-many-copies',
      'X-Sandbox-Scenario': 'latency=300',
    };

    // Half now, half while the first ones are still sleeping in the latency scenario, and
    // a tail after the first has completed, so all three outcomes can be observed.
    const wave = (n: number) =>
      Array.from({ length: n }, () => call('PUT', CONTROLS(accountId), headers, body));
    const first = wave(25);
    await new Promise((r) => setTimeout(r, 100));
    const second = wave(15);
    await new Promise((r) => setTimeout(r, 600));
    const third = wave(10);
    const answers = await Promise.all([...first, ...second, ...third]);
    expect(answers).toHaveLength(N);

    const executed = answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null);
    const replays = answers.filter(
      (a) => a.status === 200 && a.headers.get('idempotent-replayed') === 'true',
    );
    const inProgress = answers.filter((a) => a.status === 409);
    expect(executed).toHaveLength(1);
    expect(executed.length + replays.length + inProgress.length).toBe(N);
    // the tail arrived after completion: there were replays, and the early copies saw in-progress
    expect(replays.length).toBeGreaterThanOrEqual(10);
    expect(inProgress.length).toBeGreaterThanOrEqual(1);

    const original = executed[0]!;
    expect(original.body.status).toBe(200);
    for (const r of replays) {
      expect(r.body).toEqual(original.body);
      expect(r.body.request_id).toBe(original.body.request_id);
    }
    for (const p of inProgress) {
      expect(p.body).toMatchObject({
        status: 409,
        error: { code: 'idempotency_key_in_progress' },
        message: IDEMPOTENCY_IN_PROGRESS_MESSAGE,
        data: null,
      });
      expect(typeof p.body.request_id).toBe('string');
    }

    const after = await detail(accountId);
    expect(after.controls.version).toBe(versionBefore + 1);
    expect(after.controls.content_hash).toBe(original.body.data.marketplace_controls_list.content_hash);
    expect(after.controls.domains.map((d: Json) => d.domain)).toEqual(['once.example.com']);
  });
});

describe('concurrent registers with one external_account_id', () => {
  it(`${N} concurrent registers match one account: all 200 with the same account_id, one account in the partner list`, async () => {
    const external = `burst-${Date.now()}`;
    const body = registerBody({ external_account_id: external });
    const answers = await Promise.all(Array.from({ length: N }, () => call('POST', REGISTER, auth(), body)));
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body.status).toBe(200);
    }
    const accountIds = new Set(answers.map((a) => a.body.data.account_id as string));
    expect(accountIds.size).toBe(1);
    const [accountId] = [...accountIds];

    const partners = await call('GET', '/__sandbox/partners');
    expect(partners.status).toBe(200);
    const demo = partners.body.partners.find((p: Json) => p.parent_account_id === DEMO.parent);
    const matching = demo.accounts.filter((a: Json) => a.external_account_id === external);
    expect(matching).toHaveLength(1);
    expect(matching[0].account_id).toBe(accountId);
    // exactly one set of default pages was created for it
    expect((await detail(accountId!)).pages).toHaveLength(2);
  });
});
