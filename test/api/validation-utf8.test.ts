/**
 * JSON bodies must be UTF-8 (RFC 8259 §8.1). A body whose bytes are not is 400
 * malformed_json naming the byte offset of the first bad sequence, and nothing is
 * written: decoding it leniently turned every bad byte into U+FFFD, so `bad\xC3` and
 * `bad\xC4` became one merchant. In process (the Fetch body) and over a socket (Node's
 * request stream), on every partnership write and on the control plane's bodies.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { invalidUtf8Message } from '../../src/contract/api/messages.js';
import { startServer } from '../../src/server.js';
import {
  CONTROLS,
  createHarness,
  DEMO,
  expectErrorEnvelope,
  expectOk,
  type Harness,
  LAYOUT,
  REGISTER,
  type Reply,
  registerBody,
  STATUS,
  testConfig,
} from '../helpers/harness.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...utf8(p)] : p)));

/** A register body whose external_account_id ends in the given raw bytes. */
function registerBytes(idPrefix: string, bad: number[]): Uint8Array {
  const json = JSON.stringify(registerBody({ external_account_id: `${idPrefix}@@` }));
  const [head, tail] = json.split('@@') as [string, string];
  return concat(head, bad, tail);
}

/** Sends raw bytes through app.request() (the harness's helper takes text only). */
async function sendBytes(
  h: Harness,
  method: string,
  path: string,
  bytes: Uint8Array,
  headers: Record<string, string>,
): Promise<Reply> {
  const res = await h.app.request(path, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: bytes,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) };
}

function expectInvalidUtf8(res: Reply, offset: number) {
  const body = expectErrorEnvelope(res, 400, 'malformed_json');
  expect(body.message).toBe(invalidUtf8Message(offset));
  expect(body.error.details).toEqual({ byte_offset: offset });
}

async function world() {
  const h = createHarness();
  const partner = await h.client();
  const accountId = await partner.account();
  const detail = (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body;
  const state = async () => ({
    account: (await h.request('GET', `/__sandbox/accounts/${accountId}`)).body,
    partners: (await h.request('GET', '/__sandbox/partners')).body,
  });
  return { h, partner, accountId, layoutId: detail.layouts[0].layout_id as string, state };
}

describe('invalid UTF-8 in a JSON body is 400 malformed_json naming the byte offset', () => {
  it('register: "bad\\xC3" and "bad\\xC4" are both rejected, nothing is created; "badé" (valid UTF-8) is accepted', async () => {
    const { h, partner, state } = await world();
    const before = await state();
    for (const bad of [[0xc3], [0xc4]]) {
      const bytes = registerBytes('bad', bad);
      const offset = bytes.indexOf(bad[0]!);
      expectInvalidUtf8(await sendBytes(h, 'POST', REGISTER, bytes, partner.headers), offset);
    }
    expect(await state()).toEqual(before);
    const ok = await sendBytes(h, 'POST', REGISTER, registerBytes('bad', [0xc3, 0xa9]), partner.headers);
    expectOk(ok);
    const detail = (await h.request('GET', `/__sandbox/accounts/${ok.body.data.account_id}`)).body;
    expect(detail.account.external_account_id).toBe('badé');
  });

  it('controls PUT, status PUT and layout PATCH: 400, nothing written, the Idempotency-Key stays free', async () => {
    const { h, partner, accountId, layoutId, state } = await world();
    const before = await state();
    const writes: [string, string, Uint8Array][] = [
      [
        'PUT',
        CONTROLS(accountId),
        concat('{"blockedVerticals":[],"domains":[{"domain":"a', [0xff], '.com"}],"contentHash":null}'),
      ],
      ['PUT', STATUS(accountId), concat('{"status":"paused', [0xed, 0xa0, 0x80], '"}')],
      ['PATCH', LAYOUT(accountId, layoutId), concat('{"name":"x', [0xc0, 0xaf], '"}')],
    ];
    for (const [method, path, bytes] of writes) {
      const key = `utf8-${method}-${path}`;
      const res = await sendBytes(h, method, path, bytes, { ...partner.headers, 'Idempotency-Key': key });
      const offset = bytes.findIndex((b) => b >= 0x80);
      expectInvalidUtf8(res, offset);
      // the key was not kept: a valid write with it executes (no replay of the 400)
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await state()).toEqual(before);
    const again = await partner.put(
      STATUS(accountId),
      { status: 'paused' },
      { 'Idempotency-Key': `utf8-PUT-${STATUS(accountId)}` },
    );
    expect(expectOk(again).status).toBe('paused');
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  const offsets: [string, Uint8Array, number][] = [
    ['a lone continuation byte', concat('{"status":"', [0x80], '"}'), 11],
    ['an overlong "/" (C0 AF)', concat('{"status":"', [0xc0, 0xaf], '"}'), 11],
    ['a UTF-16 surrogate encoded (ED A0 80)', concat('{"status":"', [0xed, 0xa0, 0x80], '"}'), 11],
    ['a code point above U+10FFFF (F4 90 80 80)', concat('{"status":"', [0xf4, 0x90, 0x80, 0x80], '"}'), 11],
    ['a byte that never occurs (F5)', concat('{"status":"ok', [0xf5], '"}'), 13],
    ['a sequence cut off at the end (E2 82)', concat('{"status":"é"}', [0xe2, 0x82]), 15],
    ['bad bytes after valid multi-byte ones', concat('{"status":"€😀', [0xfe], '"}'), 18],
  ];
  for (const [label, bytes, offset] of offsets) {
    it(`status PUT with ${label}: byte offset ${offset}`, async () => {
      const { h, partner, accountId, state } = await world();
      const before = await state();
      const res = await sendBytes(h, 'PUT', STATUS(accountId), bytes, {
        ...partner.headers,
        'Idempotency-Key': crypto.randomUUID(),
      });
      expectInvalidUtf8(res, offset);
      expect(await state()).toEqual(before);
    });
  }

  it('the journal shows what arrived, decoded with U+FFFD', async () => {
    const { h, partner } = await world();
    await sendBytes(h, 'POST', REGISTER, registerBytes('journal', [0xc3]), partner.headers);
    const journal = (await h.request('GET', '/__sandbox/requests?status=400')).body;
    const entry = journal.requests.find((r: { path: string }) => r.path === REGISTER);
    expect(entry.request_body).toContain('journal\ufffd');
  });

  it('control plane: a vertical-mappings body with invalid UTF-8 is 400 malformed_json; the mapping is unchanged', async () => {
    const h = createHarness();
    const before = h.sandbox.store.partners.mappings(DEMO.parent);
    const bytes = concat(
      '{"vertical_mappings":[{"partner_vertical_id":1,"partner_vertical_name":"A',
      [0xc3],
      '","partner_sub_vertical_id":2,"partner_sub_vertical_name":"B","vertical_name":"C"}]}',
    );
    const res = await sendBytes(h, 'PUT', `/__sandbox/partners/${DEMO.parent}/vertical-mappings`, bytes, {});
    expectInvalidUtf8(res, bytes.indexOf(0xc3));
    expect(h.sandbox.store.partners.mappings(DEMO.parent)).toEqual(before);
  });
});

describe("invalid UTF-8 over a socket (the body read from Node's request stream)", () => {
  function post(url: string, path: string, headers: Record<string, string>, body: Uint8Array) {
    return new Promise<{ status: number; body: Record<string, never> & Record<string, unknown> }>(
      (resolve, reject) => {
        const req = httpRequest(new URL(path, url), { method: 'POST', headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
            }),
          );
        });
        req.on('error', reject);
        req.end(body);
      },
    );
  }

  it('register: 400 malformed_json with the byte offset, and no account is created', async () => {
    const running = await startServer(testConfig({ port: 0 }));
    try {
      const form = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`;
      const grant = await post(
        running.url,
        '/oauth/token',
        { 'Content-Type': 'application/x-www-form-urlencoded' },
        utf8(form),
      );
      const headers = {
        Authorization: `Bearer ${grant.body.access_token}`,
        'X-Platform-Parent-Account-Id': DEMO.parent,
        'Content-Type': 'application/json',
      };
      const bytes = registerBytes('socket', [0xc4]);
      const res = await post(running.url, REGISTER, headers, bytes);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        status: 400,
        error: { code: 'malformed_json', details: { byte_offset: bytes.indexOf(0xc4) } },
        message: invalidUtf8Message(bytes.indexOf(0xc4)),
        data: null,
      });
      expect(running.sandbox.store.accounts.byExternal(DEMO.parent, 'socket\ufffd')).toBeUndefined();
      // the same body with valid bytes registers
      const ok = await post(running.url, REGISTER, headers, registerBytes('socket', [0xc4, 0x80]));
      expect(ok.status).toBe(200);
    } finally {
      await running.close();
    }
  });
});
