/**
 * Idempotency keys on controls PUT, status PUT and layout PATCH (spec §4 rule 4, §8;
 * docs/api.md#idempotency, docs/where-the-spec-is-silent.md), through HTTP.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  DIFFERENT_PAYLOAD_WARNING,
  DRY_RUN_KEY_WARNING,
  IDEMPOTENCY_REUSED_MESSAGE,
  idempotencyKeyOtherOperationMessage,
  MISSING_IDEMPOTENCY_KEY_MESSAGE,
  STALE_CONTENT_HASH_MESSAGE,
} from '../../src/contract/api/messages.js';
import { IN_PROGRESS_BOUND_MS } from '../../src/store/idempotency-table.js';
import {
  blockedSubs,
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  LAYOUT,
  MAPPINGS,
  pair,
  type Reply,
  STATUS,
} from '../helpers/harness.js';

// biome-ignore lint/suspicious/noExplicitAny: response data is asserted field by field
type Data = any;

const PRESET_BLOCKED = [4002, 4003, 5003];

const BODY_A = {
  blockedVerticals: [pair(10, 1001)],
  domains: [{ domain: 'a.example.com' }],
  contentHash: null,
};
const BODY_B = {
  blockedVerticals: [pair(30, 3001)],
  domains: [{ domain: 'b.example.com' }],
  contentHash: null,
};

let keySeq = 0;
const freshKey = () => `idem-${++keySeq}-${Date.now()}`;

function key(k: string) {
  return { 'Idempotency-Key': k };
}

function expectReplayOf(replay: Reply, original: Reply) {
  expect(replay.status).toBe(original.status);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(original.body);
  expect(replay.body.request_id).toBe(original.body.request_id);
}

function expectExecuted(res: Reply) {
  const data = expectOk(res);
  expect(res.headers.get('idempotent-replayed')).toBeNull();
  return data;
}

async function setup(overrides: Parameters<typeof createHarness>[0] = {}) {
  const h = createHarness(overrides);
  const partner = await h.client();
  const accountId = await partner.account();
  const read = async () => expectOk(await partner.get(CONTROLS(accountId)));
  const detail = async () => (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body;
  return { h, partner, accountId, read, detail };
}

describe('idempotency: replay (spec §4 rule 4, docs/api.md#idempotency)', () => {
  it('same key, same payload: executes once; the retry replays the identical body (request_id included) with Idempotent-Replayed: true', async () => {
    const { partner, accountId, read, detail } = await setup();
    const k = freshKey();
    const first = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    const data = expectExecuted(first);
    const hash = data.marketplace_controls_list.content_hash;

    const second = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    expectReplayOf(second, first);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('x-sandbox-warning')).toBeNull();

    // Had it executed twice, the second write (contentHash null) would be a 409, or the hash would advance.
    const after = await read();
    expect(after.marketplace_controls_list.content_hash).toBe(hash);
    expect(blockedSubs(after)).toEqual([1001]);
    expect((await detail()).controls.version).toBe(1);
  });

  it('same key, different payload: replays the first response with X-Sandbox-Warning DIFFERENT_PAYLOAD_WARNING; the new payload is not applied', async () => {
    const { partner, accountId, read } = await setup();
    const k = freshKey();
    const first = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    const hash = expectExecuted(first).marketplace_controls_list.content_hash;

    const second = await partner.put(CONTROLS(accountId), { ...BODY_B, contentHash: hash }, key(k));
    expectReplayOf(second, first);
    expect(second.headers.get('x-sandbox-warning')).toBe(DIFFERENT_PAYLOAD_WARNING);

    const after = await read();
    expect(after.marketplace_controls_list.content_hash).toBe(hash);
    expect(blockedSubs(after)).toEqual([1001]);
    expect(after.marketplace_controls_list.domains).toEqual([{ domain: 'a.example.com', policy: 'Block' }]);
  });

  it('the dry-run key trap: a real write with a key used by a dry run replays the dry-run body with DRY_RUN_KEY_WARNING and persists nothing', async () => {
    const { partner, accountId, read, detail } = await setup();
    const before = await read();
    const k = freshKey();
    const dry = await partner.put(`${CONTROLS(accountId)}?dry_run=true`, BODY_A, key(k));
    expect(expectExecuted(dry).account_id).toBe(accountId);
    expect(dry.body.dry_run).toBe(true);

    const real = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    expectReplayOf(real, dry);
    expect(real.body.dry_run).toBe(true);
    expect(real.headers.get('x-sandbox-warning')).toBe(DRY_RUN_KEY_WARNING);

    const after = await read();
    expect(after).toEqual(before);
    expect(blockedSubs(after)).toEqual(PRESET_BLOCKED);
    expect((await detail()).controls.version).toBe(0);
  });
});

describe('idempotency: what is not stored (docs/api.md#idempotency)', () => {
  it('key reuse after a 409 stale-hash rejection: the same key with the new payload executes (200, not replayed)', async () => {
    const { partner, accountId, read } = await setup();
    expectExecuted(await partner.put(CONTROLS(accountId), BODY_A));
    const k = freshKey();
    const stale = await partner.put(CONTROLS(accountId), BODY_B, key(k));
    expect(expectErrorEnvelope(stale, 409, 'content_hash_mismatch').message).toBe(STALE_CONTENT_HASH_MESSAGE);

    const current = await read();
    const retry = await partner.put(
      CONTROLS(accountId),
      { ...BODY_B, contentHash: current.marketplace_controls_list.content_hash },
      key(k),
    );
    const data = expectExecuted(retry);
    expect(retry.body.request_id).not.toBe(stale.body.request_id);
    expect(blockedSubs(data)).toEqual([3001]);
    expect(blockedSubs(await read())).toEqual([3001]);
  });

  it('key reuse after a 400: the same key with a valid payload executes', async () => {
    const { partner, accountId, read } = await setup();
    const k = freshKey();
    const bad = await partner.put(
      CONTROLS(accountId),
      { ...BODY_A, blockedVerticals: [pair(10, 9999)] },
      key(k),
    );
    expectErrorEnvelope(bad, 400, 'vertical_not_mapped');

    const good = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    expect(blockedSubs(expectExecuted(good))).toEqual([1001]);
    expect(blockedSubs(await read())).toEqual([1001]);
  });

  it('a missing Idempotency-Key is 400 missing_idempotency_key naming the header, and nothing is written', async () => {
    const { partner, accountId, read, detail } = await setup();
    const before = await read();
    const res = await partner.call('PUT', CONTROLS(accountId), { body: BODY_A });
    const body = expectErrorEnvelope(res, 400, 'missing_idempotency_key');
    expect(body.message).toBe(MISSING_IDEMPOTENCY_KEY_MESSAGE);
    expect(body.message).toContain('Idempotency-Key');
    expect(body.error.details).toEqual({ header: 'Idempotency-Key' });
    expect(await read()).toEqual(before);
    expect((await detail()).controls.version).toBe(0);
  });
});

describe('idempotency: a key that is not one key', () => {
  it('a key with a blank in it is 400 naming the header; two key lines (joined by ", ") say the key was sent twice', async () => {
    const { partner, accountId, read } = await setup();
    const before = await read();
    for (const [value, message] of [
      ['two words', 'must be 1 to 255 visible ASCII characters (a UUID)'],
      ['key-a, key-b', 'was sent more than once: send one key per request'],
    ]) {
      const res = await partner.put(CONTROLS(accountId), BODY_A, { 'Idempotency-Key': value! });
      const body = expectErrorEnvelope(res, 400, 'validation_error');
      expect(body.error.details.fields).toEqual([{ field: 'Idempotency-Key', message }]);
    }
    expect(await read()).toEqual(before);
  });
});

describe('idempotency: window and scope (spec §8, docs/api.md#idempotency)', () => {
  it('key expiry: after the clock advances 24 h (86400 s) the same key executes again', async () => {
    const { h, partner, accountId } = await setup();
    const k = freshKey();
    const first = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    const hash = expectExecuted(first).marketplace_controls_list.content_hash;
    // Still inside the window: a replay.
    expectReplayOf(await partner.put(CONTROLS(accountId), BODY_A, key(k)), first);

    const advanced = await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 86400 } });
    expect(advanced.status).toBe(200);
    // The token expired too (3600 s): a fresh client with a fresh token.
    const later = await h.client();
    const again = await later.put(CONTROLS(accountId), { ...BODY_B, contentHash: hash }, key(k));
    const data = expectExecuted(again);
    expect(again.body.request_id).not.toBe(first.body.request_id);
    expect(blockedSubs(data)).toEqual([3001]);
    const after = expectOk(await later.get(CONTROLS(accountId)));
    expect(blockedSubs(after)).toEqual([3001]);
    expect(after.marketplace_controls_list.content_hash).not.toBe(hash);
  });

  it('keys are scoped per parent: a second partner using the same key string executes its own request', async () => {
    const { h, partner, accountId, read } = await setup();
    const mappings = expectOk(await partner.get(MAPPINGS)).vertical_mappings.map((m: Data) => ({
      partner_vertical_id: m.partner_vertical_id,
      partner_vertical_name: m.partner_vertical_name,
      partner_sub_vertical_id: m.partner_sub_vertical_id,
      partner_sub_vertical_name: m.partner_sub_vertical_name,
      vertical_name: m.vertical_name,
    }));
    const created = await h.request('POST', '/__sandbox/partners', {
      body: { parent_account_id: 'pa_second_platform' },
    });
    expect(created.status).toBe(201);
    const seeded = await h.request('PUT', '/__sandbox/partners/pa_second_platform/vertical-mappings', {
      body: { vertical_mappings: mappings },
    });
    expect(seeded.status).toBe(200);
    const second = await h.client({
      parent: created.body.parent_account_id,
      clientId: created.body.client_id,
      clientSecret: created.body.client_secret,
    });
    expect(second.parent).not.toBe(DEMO.parent);
    const otherAccount = await second.account();

    const k = freshKey();
    const mine = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    expectExecuted(mine);
    const theirs = await second.put(CONTROLS(otherAccount), BODY_B, key(k));
    const data = expectExecuted(theirs);
    expect(theirs.headers.get('x-sandbox-warning')).toBeNull();
    expect(theirs.body.request_id).not.toBe(mine.body.request_id);
    expect(data.account_id).toBe(otherAccount);
    expect(blockedSubs(expectOk(await second.get(CONTROLS(otherAccount))))).toEqual([3001]);
    expect(blockedSubs(await read())).toEqual([1001]);
  });
});

describe('idempotency: a key belongs to its operation (docs/api.md#idempotency)', () => {
  for (const strictIdempotency of [false, true]) {
    it(`${strictIdempotency ? 'strict' : 'default'} mode: a key used on a status PUT, reused on a controls PUT or on another account's status PUT, is 422 naming where it was first used, and nothing executes`, async () => {
      const { partner, accountId, read } = await setup({ strictIdempotency });
      const other = await partner.account();
      const k = freshKey();
      expectExecuted(await partner.put(STATUS(accountId), { status: 'paused' }, key(k)));
      const controlsBefore = await read();

      const onControls = await partner.put(CONTROLS(accountId), BODY_A, key(k));
      const body = expectErrorEnvelope(onControls, 422, 'idempotency_key_reused');
      expect(body.message).toBe(idempotencyKeyOtherOperationMessage(`PUT ${STATUS(accountId)}`));
      expect(body.error.details).toEqual({
        header: 'Idempotency-Key',
        first_used: { method: 'PUT', path: STATUS(accountId) },
      });
      expect(onControls.headers.get('idempotent-replayed')).toBeNull();
      expect(await read()).toEqual({ ...controlsBefore });

      const otherStatusBefore = expectOk(await partner.get(STATUS(other)));
      const onOther = await partner.put(STATUS(other), { status: 'paused' }, key(k));
      expect(expectErrorEnvelope(onOther, 422, 'idempotency_key_reused').message).toBe(
        idempotencyKeyOtherOperationMessage(`PUT ${STATUS(accountId)}`),
      );
      expect(expectOk(await partner.get(STATUS(other)))).toEqual(otherStatusBefore);

      // On its own operation the key still replays.
      const again = await partner.put(STATUS(accountId), { status: 'paused' }, key(k));
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });
  }

  it('a key still in progress on one operation is 422 on another, not 409', async () => {
    const { partner, accountId } = await setup();
    const k = freshKey();
    const slow = partner.put(
      STATUS(accountId),
      { status: 'paused' },
      { ...key(k), 'X-Sandbox-Scenario': 'latency=300' },
    );
    await new Promise((r) => setTimeout(r, 50));
    const elsewhere = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    expectErrorEnvelope(elsewhere, 422, 'idempotency_key_reused');
    expectExecuted(await slow);
  });

  it('a reservation is never stuck: past the bound (120 s of real time) an unfinished one is free again', async () => {
    const { partner, accountId } = await setup();
    const k = freshKey();
    const slow = partner.put(CONTROLS(accountId), BODY_A, { ...key(k), 'X-Sandbox-Scenario': 'latency=300' });
    await new Promise((r) => setTimeout(r, 50));
    expectErrorEnvelope(
      await partner.put(CONTROLS(accountId), BODY_A, key(k)),
      409,
      'idempotency_key_in_progress',
    );
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + IN_PROGRESS_BOUND_MS + 1000 });
    try {
      expectExecuted(await partner.put(CONTROLS(accountId), BODY_A, key(k)));
    } finally {
      vi.useRealTimers();
    }
    await slow;
  });

  it('409 idempotency_key_in_progress carries Retry-After (seconds) and says to wait and resend the same request', async () => {
    const { partner, accountId } = await setup();
    const k = freshKey();
    const slow = partner.put(CONTROLS(accountId), BODY_A, { ...key(k), 'X-Sandbox-Scenario': 'latency=300' });
    await new Promise((r) => setTimeout(r, 50));
    const busy = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    const body = expectErrorEnvelope(busy, 409, 'idempotency_key_in_progress');
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(body.error.details).toEqual({ header: 'Idempotency-Key', retry_after_seconds: 1 });
    expect(body.message).toMatch(/wait for Retry-After, then send the same request with the same key/);
    const first = await slow;
    expectExecuted(first);
    expectReplayOf(await partner.put(CONTROLS(accountId), BODY_A, key(k)), first);
  });
});

describe('idempotency: strict mode (docs/api.md#idempotency)', () => {
  it('strict mode compares canonical JSON: the same body with its keys in another order replays', async () => {
    const { partner, accountId } = await setup({ strictIdempotency: true });
    const k = freshKey();
    const first = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    expectExecuted(first);
    const reordered = {
      contentHash: null,
      domains: [{ domain: 'a.example.com' }],
      blockedVerticals: [{ partnerSubVerticalId: 1001, partnerVerticalId: 10 }],
    };
    expectReplayOf(await partner.put(CONTROLS(accountId), reordered, key(k)), first);
  });

  it('strict mode: a stored key with a different payload is 422 idempotency_key_reused; the same payload still replays', async () => {
    const { partner, accountId, read } = await setup({ strictIdempotency: true });
    const k = freshKey();
    const first = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    const hash = expectExecuted(first).marketplace_controls_list.content_hash;

    const reused = await partner.put(CONTROLS(accountId), { ...BODY_B, contentHash: hash }, key(k));
    const body = expectErrorEnvelope(reused, 422, 'idempotency_key_reused');
    expect(body.message).toBe(IDEMPOTENCY_REUSED_MESSAGE);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();

    expectReplayOf(await partner.put(CONTROLS(accountId), BODY_A, key(k)), first);
    const after = await read();
    expect(after.marketplace_controls_list.content_hash).toBe(hash);
    expect(blockedSubs(after)).toEqual([1001]);
  });

  it("strict mode: a dry run's key reused for the real write (same body) is 422: dry_run is part of the request compared; nothing is written", async () => {
    const { partner, accountId, read } = await setup({ strictIdempotency: true });
    const before = await read();
    const k = freshKey();
    const dry = await partner.put(`${CONTROLS(accountId)}?dry_run=true`, BODY_A, key(k));
    expect(dry.status, dry.text).toBe(200);
    const real = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    expectErrorEnvelope(real, 422, 'idempotency_key_reused');
    expect(real.headers.get('idempotent-replayed')).toBeNull();
    expect(await read()).toEqual(before);
  });
});

describe('idempotency: status PUT and layout PATCH', () => {
  it('status PUT: the same key replays (Idempotent-Replayed: true) without executing again', async () => {
    const { h, partner, accountId, detail } = await setup();
    const k = freshKey();
    const first = await partner.put(STATUS(accountId), { status: 'paused' }, key(k));
    expect(expectExecuted(first).status).toBe('paused');
    expect(expectOk(await partner.get(STATUS(accountId))).status).toBe('paused');

    // Someone re-enables one variant; a second execution of the PUT would pause it again.
    const variant = (await detail()).variants[0];
    const patched = await h.request('PATCH', `/__sandbox/variants/${variant.variant_id}`, {
      body: { enabled: true },
    });
    expect(patched.status).toBe(200);

    const replay = await partner.put(STATUS(accountId), { status: 'paused' }, key(k));
    expectReplayOf(replay, first);
    expect(expectOk(await partner.get(STATUS(accountId))).status).toBe('mixed');
  });

  it('layout PATCH: the same key replays; a different payload with that key replays with a warning and is not applied', async () => {
    const h = createHarness();
    const partner = await h.client();
    const registered = expectOk(await partner.register());
    const accountId = registered.account_id;
    const layoutId = registered.pages[0].layout_id;
    const k = freshKey();
    const first = await partner.patch(LAYOUT(accountId, layoutId), { name: 'First name' }, key(k));
    expect(expectExecuted(first).layout_id).toBe(layoutId);

    expectReplayOf(await partner.patch(LAYOUT(accountId, layoutId), { name: 'First name' }, key(k)), first);
    const different = await partner.patch(
      LAYOUT(accountId, layoutId),
      { name: 'Second name', layout_type: 'Embedded' },
      key(k),
    );
    expectReplayOf(different, first);
    expect(different.headers.get('x-sandbox-warning')).toBe(DIFFERENT_PAYLOAD_WARNING);

    const detail = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body;
    const layout = detail.layouts.find((l: Data) => l.layout_id === layoutId);
    expect(layout.name).toBe('First name');
    expect(layout.layout_type).toBe('Overlay');
    expect(first.body.data.layout_type).toBe('Overlay');
  });
});

describe('idempotency: the key table stays bounded', () => {
  it('expired keys are pruned as new keys are stored', async () => {
    const h = createHarness();
    const partner = await h.client();
    const accountId = await partner.account();
    for (const status of ['paused', 'active']) {
      expect((await partner.put(STATUS(accountId), { status })).status).toBe(200);
    }
    expect(h.sandbox.store.idempotency.count()).toBe(2);
    await h.request('POST', '/__sandbox/clock/advance', { body: { seconds: 24 * 3600 + 1 } });
    const fresh = await h.client();
    expect((await fresh.put(STATUS(accountId), { status: 'paused' })).status).toBe(200);
    expect(h.sandbox.store.idempotency.count()).toBe(1);
  });

  it('each key goes with the first new key after it expired, not before: keys stored 12 h apart leave one by one', async () => {
    const h = createHarness();
    const accountId = await (await h.client()).account();
    const advance = async (seconds: number) =>
      expect((await h.request('POST', '/__sandbox/clock/advance', { body: { seconds } })).status).toBe(200);
    const put = async (status: string, k: string) =>
      expectExecuted(await (await h.client()).put(STATUS(accountId), { status }, key(k)));
    await put('paused', 'first');
    await advance(12 * 3600);
    await put('active', 'second');
    expect(h.sandbox.store.idempotency.count()).toBe(2);
    await advance(12 * 3600 + 1);
    // The first key expired: the next new key prunes it, and the second stays.
    await put('paused', 'third');
    expect(h.sandbox.store.idempotency.count()).toBe(2);
    const replay = await (await h.client()).put(STATUS(accountId), { status: 'active' }, key('second'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await advance(12 * 3600);
    await put('active', 'fourth');
    expect(h.sandbox.store.idempotency.count()).toBe(2);
    // The second went (its 24 h are up), the third stays: a new key, and a replay.
    expectExecuted(await (await h.client()).put(STATUS(accountId), { status: 'paused' }, key('second')));
    expect(
      (await (await h.client()).put(STATUS(accountId), { status: 'active' }, key('third'))).headers.get(
        'idempotent-replayed',
      ),
    ).toBe('true');
  });
});

describe('idempotency: a controls PUT and its stored answer commit together', () => {
  it('a write that fails once its answer was stored under the key leaves neither: a 500, the list as it was, and a retry with the key writes once', async () => {
    const { h, partner, accountId, read, detail } = await setup();
    const before = await read();
    const k = freshKey();
    // The answer is stored, then something fails before the commit (what a crash there would be).
    const store = h.sandbox.store.idempotency;
    const complete = store.complete;
    store.complete = (...args) => {
      complete(...args);
      throw new Error('failed after the stored answer');
    };
    let failed: Reply;
    try {
      failed = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    } finally {
      store.complete = complete;
    }
    expectErrorEnvelope(failed, 500, 'internal_error');
    expect(await read()).toEqual(before);
    expect((await detail()).controls.version).toBe(0);

    // Neither the write nor its answer stayed: the key runs the write, once.
    const retry = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    const data = expectExecuted(retry);
    expect(blockedSubs(data)).toEqual([1001]);
    expect((await detail()).controls.version).toBe(1);
    const replay = await partner.put(CONTROLS(accountId), BODY_A, key(k));
    expectReplayOf(replay, retry);
    expect(replay.text).toBe(retry.text);
    expect((await detail()).controls.version).toBe(1);
  });

  it('a dry run stores its answer under the key with nothing else: the same dry run replays it byte for byte', async () => {
    const { partner, accountId, read } = await setup();
    const before = await read();
    const k = freshKey();
    const first = await partner.put(`${CONTROLS(accountId)}?dry_run=true`, BODY_A, key(k));
    expect(expectExecuted(first).marketplace_controls_list.content_hash).not.toBe(
      before.marketplace_controls_list.content_hash,
    );
    const replay = await partner.put(`${CONTROLS(accountId)}?dry_run=true`, BODY_A, key(k));
    expectReplayOf(replay, first);
    expect(replay.text).toBe(first.text);
    expect(await read()).toEqual(before);
  });
});
