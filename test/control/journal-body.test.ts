/**
 * What the journal keeps of a body (issue 25, item 5): at most SANDBOX_JOURNAL_BODY_BYTES
 * (default 16 KiB) of each request and response body, redacted first and then cut (never
 * inside a character), marked with `*_body_truncated: {original_bytes}`; `body_contains`
 * searches only what was kept and says how many bodies it could not search whole; bundles
 * carry the cut bodies as they are.
 */
import { describe, expect, it } from 'vitest';
import { StartupError } from '../../src/base/startup-error.js';
import { loadConfig } from '../../src/core/config.js';
import { REDACTED } from '../../src/core/journal-redact.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  type Harness,
  MAPPINGS,
  REGISTER,
  registerBody,
  STATUS,
} from '../helpers/harness.js';
import { count } from '../helpers/tenants.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

async function lastEntry(h: Harness, path = REGISTER) {
  const res = await h.request('GET', `/__sandbox/requests?path=${encodeURIComponent(path)}&limit=1`);
  expect(res.status).toBe(200);
  return res.body.requests[0];
}

describe('the journal shows the answer as sent', () => {
  it('byte for byte, for every kind of answer', async () => {
    const h = createHarness();
    const partner = await h.client();
    // Characters past ASCII, quotes and a backslash in what the answers echo back.
    const account = await partner.account({ brand: 'Brändé "中" \\ 😀' });
    const read = await partner.get(CONTROLS(account));
    const hash = read.body.data.marketplace_controls_list.content_hash;
    const key = { 'Idempotency-Key': `journal-text-${Date.now()}` };
    const answers = [
      read,
      await partner.register({ brand: 'Other ünïcode' }),
      await partner.register({ external_account_id: '' }),
      await partner.get(MAPPINGS),
      await partner.put(
        CONTROLS(account),
        { blockedVerticals: [], domains: [{ domain: 'shop.example.com' }], contentHash: hash },
        key,
      ),
      await partner.put(
        CONTROLS(account),
        { blockedVerticals: [], domains: [{ domain: 'shop.example.com' }], contentHash: hash },
        key,
      ),
      await partner.put(STATUS(account), { status: 'paused' }),
      await partner.put(STATUS(account), { status: 'active' }, { 'X-Sandbox-Dry-Run': 'true' }),
      await partner.get(CONTROLS('acc_none')),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 400, 200, 200, 200, 200, 200, 404]);
    const res = await h.request('GET', `/__sandbox/requests?limit=${answers.length}`);
    expect(res.status).toBe(200);
    const shown = res.body.requests.reverse().map((e: { response_body: string }) => e.response_body);
    expect(shown).toEqual(answers.map((a) => a.text));
  });
});

describe('the journal keeps at most SANDBOX_JOURNAL_BODY_BYTES of each body', () => {
  it('a 200 KiB body: the first 16 KiB by default, marked as cut with its whole length', async () => {
    const h = createHarness();
    const partner = await h.client();
    const body = registerBody({ brand: 'b'.repeat(200 * 1024) });
    const res = await partner.register(body);
    expect(res.status).toBe(400);
    const sent = JSON.stringify(body);

    const entry = await lastEntry(h);
    expect(bytes(entry.request_body)).toBe(16 * 1024);
    expect(sent.startsWith(entry.request_body)).toBe(true);
    expect(entry.request_body_truncated).toEqual({ original_bytes: bytes(sent) });
    // The answer is short: whole.
    expect(entry.response_body).toBe(res.text);
    expect(entry.response_body_truncated).toBeNull();
  });

  it('a short body is whole, and says so', async () => {
    const h = createHarness();
    const partner = await h.client();
    const body = registerBody();
    await partner.register(body);
    const entry = await lastEntry(h);
    expect(entry.request_body).toBe(JSON.stringify(body));
    expect(entry.request_body_truncated).toBeNull();
    expect(entry.response_body_truncated).toBeNull();
  });

  it('a smaller setting cuts request and response bodies, never inside a character', async () => {
    const h = createHarness({ journalBodyBytes: 100 });
    const partner = await h.client();
    // Two-byte characters from byte 2 of the brand on: a cut at 100 bytes could fall in one.
    for (const lead of ['', 'x']) {
      const body = registerBody({ brand: `${lead}${'é'.repeat(400)}` });
      const res = await partner.register(body);
      const entry = await lastEntry(h);
      expect(bytes(entry.request_body)).toBeLessThanOrEqual(100);
      expect(bytes(entry.request_body)).toBeGreaterThanOrEqual(99);
      expect(entry.request_body).not.toContain('\ufffd');
      expect(JSON.stringify(body).startsWith(entry.request_body)).toBe(true);
      expect(entry.request_body_truncated).toEqual({ original_bytes: bytes(JSON.stringify(body)) });
      // The answer (a 400 naming the brand's length) is longer than 100 bytes too.
      expect(res.text.startsWith(entry.response_body)).toBe(true);
      expect(bytes(entry.response_body)).toBeLessThanOrEqual(100);
      expect(entry.response_body_truncated).toEqual({ original_bytes: bytes(res.text) });
    }
  });

  it('0 keeps no body at all, only its length', async () => {
    const h = createHarness({ journalBodyBytes: 0 });
    const partner = await h.client();
    const body = registerBody();
    await partner.register(body);
    const entry = await lastEntry(h);
    expect(entry.request_body).toBe('');
    expect(entry.request_body_truncated).toEqual({ original_bytes: bytes(JSON.stringify(body)) });
  });

  it('redacts first, then cuts: a secret across the cut shows no part of itself', async () => {
    const secret = 'sk_live_0123456789abcdefghijklmnopqrstuvwxyz';
    // `{"padding":"p…p","api_key":"` is 75 bytes: the secret spans bytes 75 to 118 as sent.
    for (const limit of [76, 80, 90, 100, 110]) {
      const h = createHarness({ journalBodyBytes: limit });
      const partner = await h.client();
      const fields = { padding: 'p'.repeat(50), api_key: secret, ...registerBody() };
      const raw = JSON.stringify(fields);
      await partner.call('POST', REGISTER, { raw, headers: { 'Content-Type': 'application/json' } });
      const entry = await lastEntry(h);
      expect(entry.request_body_truncated).not.toBeNull();
      expect(JSON.stringify({ ...fields, api_key: REDACTED }).startsWith(entry.request_body)).toBe(true);
      expect(entry.request_body).toContain('"api_key":"[');
      for (let i = 0; i + 4 <= secret.length; i++)
        expect(entry.request_body).not.toContain(secret.slice(i, i + 4));
    }
  });
});

describe('POST /__sandbox/requests/count: body_contains searches what was kept', () => {
  it('a substring past the cut is not found, and the answer says how many bodies were cut', async () => {
    const h = createHarness({ journalBodyBytes: 1024 });
    const partner = await h.client();
    await partner.register(registerBody({ brand: `${'a'.repeat(3000)}NEEDLE` }));
    await partner.register(registerBody({ brand: 'NEEDLE short' }));

    const res = await h.request('POST', '/__sandbox/requests/count', {
      body: { body_contains: 'NEEDLE', parent_account_id: DEMO.parent },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 1, bodies_truncated: 1 });
    expect(await count(h, { body_contains: 'aaaa', path: REGISTER })).toBe(1);
    // Without body_contains the answer is the count alone.
    const plain = await h.request('POST', '/__sandbox/requests/count', { body: { path: REGISTER } });
    expect(plain.body).toEqual({ count: 2 });
  });
});

describe('bundles carry the cut bodies as they are', () => {
  it('exported cut, with the marker; imported into another sandbox the same', async () => {
    const h = createHarness({ journalBodyBytes: 512 });
    const partner = await h.client();
    const body = registerBody({ brand: 'c'.repeat(5000) });
    await partner.register(body);
    const exported = await h.request('GET', `/__sandbox/partners/${DEMO.parent}/bundle`);
    expect(exported.status).toBe(200);
    const cut = exported.body.journal.find((e: { path: string }) => e.path === REGISTER);
    expect(bytes(cut.request_body)).toBe(512);
    expect(cut.request_body_truncated).toEqual({ original_bytes: bytes(JSON.stringify(body)) });

    // Another sandbox, keeping less by default: the bundle's bodies are kept as they came.
    const other = createHarness();
    const imported = await other.request('POST', '/__sandbox/bundles', { body: exported.body });
    expect(imported.status).toBe(200);
    const entry = await lastEntry(other);
    expect(entry.request_body).toBe(cut.request_body);
    expect(entry.request_body_truncated).toEqual(cut.request_body_truncated);

    // A bundle written before the marker existed (no *_truncated) still loads: whole bodies.
    const old = structuredClone(exported.body);
    for (const e of old.journal) {
      delete e.request_body_truncated;
      delete e.response_body_truncated;
    }
    const third = createHarness();
    expect((await third.request('POST', '/__sandbox/bundles', { body: old })).status).toBe(200);
    expect((await lastEntry(third)).request_body_truncated).toBeNull();
  });
});

describe('SANDBOX_JOURNAL_BODY_BYTES is validated like the other settings', () => {
  it.each(['abc', '-1', '1.5', String(1024 * 1024 + 1)])('%s stops start-up naming it', (value) => {
    expect(() => loadConfig([], { SANDBOX_JOURNAL_BODY_BYTES: value })).toThrow(StartupError);
    expect(() => loadConfig([], { SANDBOX_JOURNAL_BODY_BYTES: value })).toThrow(
      `invalid configuration: SANDBOX_JOURNAL_BODY_BYTES=${JSON.stringify(value)}: must be a whole number from 0 to 1048576`,
    );
  });

  it('a whole number of bytes from 0 to 1 MiB is taken; unset is 16 KiB', () => {
    expect(loadConfig([], {}).journalBodyBytes).toBe(16 * 1024);
    expect(loadConfig([], { SANDBOX_JOURNAL_BODY_BYTES: '0' }).journalBodyBytes).toBe(0);
    expect(loadConfig([], { SANDBOX_JOURNAL_BODY_BYTES: '1048576' }).journalBodyBytes).toBe(1024 * 1024);
  });
});
