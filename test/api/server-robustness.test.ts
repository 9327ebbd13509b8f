import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonTooDeepMessage } from '../../src/contract/api/messages.js';
import { type Running, startServer } from '../../src/server.js';
import {
  createHarness,
  DEMO,
  expectErrorEnvelope,
  registerBody,
  STATUS,
  testConfig,
} from '../helpers/harness.js';
import { demoAccount, demoToken, expectRawEnvelope, parseReply, raw } from '../helpers/raw-http.js';

interface LogLine {
  level: 'info' | 'error';
  msg: string;
  fields?: Record<string, unknown>;
}

/** A server of its own, with a logger that keeps every line. */
async function serve(overrides: Parameters<typeof testConfig>[0] = {}) {
  const lines: LogLine[] = [];
  const running = await startServer(testConfig({ port: 0, ...overrides }), {
    info: (msg, fields) => lines.push({ level: 'info', msg, fields }),
    error: (msg, fields) => lines.push({ level: 'error', msg, fields }),
  });
  return { running, lines };
}

async function json(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  const body: any = await res.json();
  return { status: res.status, headers: res.headers, body };
}

/**
 * The descriptors this process holds for connections accepted on `port` (not the listening
 * socket, not the clients' ends): each fd's socket inode, looked up in /proc/net/tcp{,6}.
 */
function serverFds(port: number): number {
  const accepted = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const localPort = Number.parseInt(cols[1]!.split(':').pop()!, 16);
      if (localPort === port && cols[3] !== '0A' && cols[9] !== '0') accepted.add(cols[9]!);
    }
  }
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
      if (inode && accepted.has(inode)) count++;
    } catch {
      // closed while listed
    }
  }
  return count;
}

/** Waits until `check` holds (the server settles a cut-off request on its next turns). */
async function until(check: () => Promise<boolean>, ms = 2000): Promise<void> {
  const end = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a client that hangs up in the middle of its body', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  let running: Running;
  let token: string;
  let account: string;
  beforeAll(async () => {
    server = await serve();
    running = server.running;
    token = await demoToken(running.url);
    account = await demoAccount(running.url, token);
  });
  afterAll(() => running.close());

  const cut = (path: string, headers: string) =>
    `${path} HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: 100\r\n\r\n{"status":`;

  it('on a status PUT, the token endpoint and the control plane: no error logged, no 500 journaled, nothing written', async () => {
    const partnersBefore = (await json(`${running.url}/__sandbox/partners`)).body.partners.length;
    const auth = `Authorization: Bearer ${token}\r\nX-Platform-Parent-Account-Id: ${DEMO.parent}\r\n`;
    const cases = [
      cut(
        `PUT /v1/partnership/accounts/${account}/status`,
        `${auth}Idempotency-Key: cut-off\r\nContent-Type: application/json\r\n`,
      ),
      cut('POST /oauth/token', 'Content-Type: application/x-www-form-urlencoded\r\n'),
      cut('POST /__sandbox/partners', 'Content-Type: application/json\r\n'),
    ];
    await json(`${running.url}/__sandbox/requests`, { method: 'DELETE' });
    for (const request of cases) expect(await raw(running.port, request, { hangUp: true })).toBe('');

    // Both journaled calls are recorded as the connection-reset drill is: status 0, no answer.
    let entries: {
      path: string;
      status: number;
      request_body: string;
      response_body: unknown;
      warnings: string[];
    }[] = [];
    await until(async () => {
      entries = (await json(`${running.url}/__sandbox/requests`)).body.requests;
      return entries.length === 2;
    });
    for (const entry of entries) {
      expect(entry.status).toBe(0);
      expect(entry.response_body).toBeNull();
      expect(entry.request_body).toBe('{"status":');
      expect(entry.warnings).toEqual([
        expect.stringMatching(/^the client closed the connection after 10 of 100 body bytes/),
      ]);
    }
    expect(entries.map((e) => e.path).sort()).toEqual([
      '/oauth/token',
      `/v1/partnership/accounts/${account}/status`,
    ]);
    expect(server.lines.filter((l) => l.level === 'error')).toEqual([]);

    // Nothing was written: the status is unchanged, the key is free, no partner was added.
    const status = await json(`${running.url}/v1/partnership/accounts/${account}/status`, {
      method: 'PUT',
      headers: {
        Authorization: `Bearer ${token}`,
        'X-Platform-Parent-Account-Id': DEMO.parent,
        'Content-Type': 'application/json',
        'Idempotency-Key': 'cut-off',
      },
      body: JSON.stringify({ status: 'paused' }),
    });
    expect(status.status).toBe(200);
    expect(status.headers.get('idempotent-replayed')).toBeNull();
    expect((await json(`${running.url}/__sandbox/partners`)).body.partners.length).toBe(partnersBefore);
  });
});

describe('requests Node would answer with a bare status: no Host, an unknown Expect', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(() => server.running.close());

  it('an HTTP/1.1 request without Host, with an empty one or with two: 400 malformed_request naming the Host header', async () => {
    const port = server.running.port;
    const missing = parseReply(
      await raw(port, 'GET /__sandbox/health HTTP/1.1\r\nConnection: close\r\n\r\n'),
    );
    expectRawEnvelope(missing, 400, 'malformed_request');
    expect(missing.body.message).toBe(
      'Malformed HTTP request: an HTTP/1.1 request must carry one Host header (RFC 9112 section 3.2), and this one has none.',
    );
    const empty = parseReply(await raw(port, 'GET /__sandbox/health HTTP/1.1\r\nHost:\r\n\r\n'));
    expectRawEnvelope(empty, 400, 'malformed_request');
    expect(empty.body.message).toMatch(/one Host header .*this one is empty\.$/);
    const two = parseReply(await raw(port, 'GET /__sandbox/health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'));
    expectRawEnvelope(two, 400, 'malformed_request');
    expect(two.body.message).toMatch(/one Host header .*this one has 2\.$/);
    // A partnership call too: refused before the app, so not journaled as anything else.
    const write = parseReply(await raw(port, 'POST /oauth/token HTTP/1.1\r\nContent-Length: 0\r\n\r\n'));
    expectRawEnvelope(write, 400, 'malformed_request');
  });

  it('HTTP/1.0 may omit Host: the app sees the address the client reached (never a URL that throws)', async () => {
    const port = server.running.port;
    const health = parseReply(await raw(port, 'GET /__sandbox/health HTTP/1.0\r\n\r\n'));
    expect(health.status, health.text).toBe(200);
    const metadata = parseReply(
      await raw(port, 'GET /.well-known/oauth-authorization-server HTTP/1.0\r\n\r\n'),
    );
    expect(metadata.status, metadata.text).toBe(200);
    expect(metadata.body.token_endpoint).toBe(`http://127.0.0.1:${port}/oauth/token`);
  });

  it('an Expect other than 100-continue: 417 expectation_failed in the envelope; the server keeps serving', async () => {
    const port = server.running.port;
    const res = parseReply(
      await raw(
        port,
        'POST /oauth/token HTTP/1.1\r\nHost: x\r\nExpect: 999-foo\r\nContent-Length: 0\r\n\r\n',
      ),
    );
    expectRawEnvelope(res, 417, 'expectation_failed');
    expect(res.body.message).toBe(
      'Expectation failed: the only expectation this server meets is "Expect: 100-continue" (got "999-foo").',
    );
    expect((await fetch(`${server.running.url}/__sandbox/health`)).status).toBe(200);
  });
});

describe('JSON nested deeper than 64 levels is refused before it is parsed', () => {
  /** `{"status":` + n arrays + `}`: n + 1 levels. */
  const nested = (n: number) => `{"status":${'['.repeat(n)}${']'.repeat(n)}}`;

  it('a partnership write: 64 levels reach validation; 65 are 400 malformed_json naming the limit and where', async () => {
    const h = createHarness();
    const c = await h.client();
    const account = await c.account();
    const put = (raw: string) =>
      c.call('PUT', STATUS(account), {
        raw,
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': crypto.randomUUID() },
      });
    const deepest = await put(nested(63));
    expectErrorEnvelope(deepest, 400, 'validation_error');
    const tooDeep = expectErrorEnvelope(await put(nested(64)), 400, 'malformed_json');
    expect(tooDeep.message).toBe(jsonTooDeepMessage(64, 73));
    expect(tooDeep.error.details).toEqual({ max_depth: 64, byte_offset: 73 });
    // Brackets inside strings, escaped quotes included, are not nesting.
    const inString = await put(`{"status":"\\"${'['.repeat(100)}\\\\","x":"${'{'.repeat(100)}"}`);
    expectErrorEnvelope(inString, 400, 'validation_error');
    // The journal shows the refused body as it arrived (it does not parse it either).
    const journal = await h.request('GET', '/__sandbox/requests?status=400&limit=3');
    expect(journal.body.requests.map((r: { request_body: string }) => r.request_body)).toContain(nested(64));
  });

  it('the token endpoint (RFC 6749 error) and the control plane refuse it the same way', async () => {
    const h = createHarness();
    const token = await h.request('POST', '/oauth/token', {
      raw: `{"grant_type":${'['.repeat(64)}${']'.repeat(64)}}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(token.status).toBe(400);
    expect(token.body).toEqual({
      error: 'invalid_request',
      error_description: 'the request body nests arrays and objects more than 64 levels deep',
    });
    const partner = expectErrorEnvelope(
      await h.request('POST', '/__sandbox/partners', {
        raw: `{"client_id":${'{"a":'.repeat(64)}1${'}'.repeat(64)}}`,
        headers: { 'Content-Type': 'application/json' },
      }),
      400,
      'malformed_json',
    );
    expect(partner.message).toBe(jsonTooDeepMessage(64, 13 + 5 * 63));
  });

  it('a 30 MB bundle of 15,000,000 nested arrays: 400 naming the depth, and health answers quickly meanwhile', async () => {
    const { running } = await serve();
    try {
      const n = 15_000_000;
      const body = `{"kind":${'['.repeat(n)}${']'.repeat(n)}}`;
      let done = false;
      const bundle = fetch(`${running.url}/__sandbox/bundles`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      }).then(async (res) => {
        done = true;
        return { status: res.status, body: (await res.json()) as { message: string; error: unknown } };
      });
      // Health, again and again while the bundle is sent, read and refused: never held up.
      // Before the linear depth scan, JSON.parse held the event loop for the whole 6.8 s of
      // the parse; now health's slowest answer is about 56 ms on a quiet machine and 0.6 s
      // with both cores busy. The bound leaves room for a loaded CI machine while still
      // catching a parse that blocks; health answering several times meanwhile is the
      // event-based half of the check.
      let slowest = 0;
      let answered = 0;
      while (!done) {
        const started = performance.now();
        expect((await fetch(`${running.url}/__sandbox/health`)).status).toBe(200);
        slowest = Math.max(slowest, performance.now() - started);
        answered++;
      }
      expect(answered).toBeGreaterThanOrEqual(2);
      expect(slowest).toBeLessThan(2500);
      const res = await bundle;
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 'malformed_json', details: { max_depth: 64, byte_offset: 71 } });
      expect(res.body.message).toBe(jsonTooDeepMessage(64, 71));
    } finally {
      await running.close();
    }
  }, 30_000);
});

describe('a request that never finishes arriving: the request timeout (SANDBOX_REQUEST_TIMEOUT_SECONDS)', () => {
  it('defaults to 30 s, for headers and body alike', async () => {
    const { running } = await serve();
    try {
      const server = running.server as unknown as { requestTimeout: number; headersTimeout: number };
      expect(server.requestTimeout).toBe(30_000);
      expect(server.headersTimeout).toBe(30_000);
    } finally {
      await running.close();
    }
  });

  it('a chunked body that stalls is answered 408 request_timeout after it; journaled with status 0 and why, no error logged', async () => {
    const { running, lines } = await serve({ requestTimeoutSeconds: 1 });
    try {
      const token = await demoToken(running.url);
      const account = await demoAccount(running.url, token);
      await json(`${running.url}/__sandbox/requests`, { method: 'DELETE' });
      const started = performance.now();
      const reply = parseReply(
        await raw(
          running.port,
          `PUT /v1/partnership/accounts/${account}/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nX-Platform-Parent-Account-Id: ${DEMO.parent}\r\nIdempotency-Key: stalled\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\na\r\n{"status":\r\n`,
        ),
      );
      const took = performance.now() - started;
      expect(reply.status, reply.text).toBe(408);
      expect(reply.body.error).toEqual({ code: 'request_timeout' });
      expect(took).toBeGreaterThanOrEqual(1000);
      expect(took).toBeLessThan(5000);
      let entries: { status: number; response_body: unknown; warnings: string[] }[] = [];
      await until(async () => {
        entries = (await json(`${running.url}/__sandbox/requests`)).body.requests;
        return entries.length === 1;
      });
      expect(entries[0]).toMatchObject({ status: 0, response_body: null });
      expect(entries[0]!.warnings).toEqual([
        'the request was not received within 1 s (after 10 bytes of a chunked body): the server answered 408 request_timeout and closed the connection; nothing was done',
      ]);
      expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    } finally {
      await running.close();
    }
  });

  it.runIf(process.platform === 'linux')(
    'a timed-out connection is destroyed within a second of its 408, even when the client never reads',
    async () => {
      const { running } = await serve({ requestTimeoutSeconds: 1 });
      const clients: Socket[] = [];
      try {
        const stalled = 50;
        for (let i = 0; i < stalled; i++) {
          const socket = connect(running.port, '127.0.0.1');
          socket.pause(); // never reads: the 408 and the server's FIN stay unread in the kernel
          socket.on('error', () => {});
          await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
          socket.write('GET /__sandbox/health HTTP/1.1\r\nHost: x\r\n'); // headers never finish
          clients.push(socket);
        }
        await until(async () => serverFds(running.port) === stalled, 1000);
        const started = performance.now();
        // The 408 comes within the timeout plus Node's check interval (250 ms here), the release 500 ms later.
        await until(async () => serverFds(running.port) === 0, 3000);
        expect(performance.now() - started).toBeLessThan(2500);
        expect(clients.every((c) => !c.destroyed)).toBe(true);
        const health = await fetch(`${running.url}/__sandbox/health`);
        expect(health.status).toBe(200);
      } finally {
        for (const c of clients) c.destroy();
        await running.close();
      }
    },
    10_000,
  );

  it('the latency scenario delays the answer, not the request: a delay past the timeout still answers', async () => {
    const { running } = await serve({ requestTimeoutSeconds: 1 });
    try {
      const started = performance.now();
      const res = await fetch(`${running.url}/oauth/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'X-Sandbox-Scenario': 'latency=2500',
        },
        body: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
      });
      expect(res.status).toBe(200);
      expect(performance.now() - started).toBeGreaterThanOrEqual(2500);
    } finally {
      await running.close();
    }
  }, 10_000);
});

describe('JSON bodies are UTF-8: a Content-Type naming another charset is 415', () => {
  const register = (h: Awaited<ReturnType<typeof createHarness>>, type: string) =>
    h.client().then((c) =>
      c.call('POST', '/v1/accounts/register/partnership', {
        raw: JSON.stringify(registerBody({ external_account_id: `ext-${crypto.randomUUID()}` })),
        headers: { 'Content-Type': type },
      }),
    );
  const createPartner = (h: Awaited<ReturnType<typeof createHarness>>, type: string) =>
    h.request('POST', '/__sandbox/partners', { raw: '{}', headers: { 'Content-Type': type } });

  it('partnership writes and the control plane: charset utf-16 or latin1 is 415 naming the charset', async () => {
    const h = createHarness();
    for (const [type, charset] of [
      ['application/json; charset=utf-16', 'utf-16'],
      ['application/json;charset=latin1', 'latin1'],
      ['application/vnd.partner+json; charset="ISO-8859-1"', 'ISO-8859-1'],
    ] as const) {
      for (const res of [await register(h, type), await createPartner(h, type)]) {
        const body = expectErrorEnvelope(res, 415, 'unsupported_media_type');
        expect(body.message, type).toBe(
          `Content-Type must be application/json, in UTF-8: charset "${charset}" is not read (send charset=utf-8 or none).`,
        );
        expect(body.error.details).toEqual({ header: 'Content-Type' });
      }
    }
    expect((await h.request('GET', '/__sandbox/partners')).body.partners).toHaveLength(2);
  });

  it('charset=utf-8 in any case, quoted or not, and no charset are accepted', async () => {
    const h = createHarness();
    for (const type of [
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json; charset="utf-8"',
      'Application/JSON ; Charset = "UTF-8"',
      'application/problem+json',
    ]) {
      expect((await register(h, type)).status, type).toBe(200);
      expect((await createPartner(h, type)).status, type).toBe(201);
    }
  });

  it('the control plane checks the whole media type: application/jsonx is 415, as on the partner API', async () => {
    const h = createHarness();
    for (const type of ['application/jsonx', 'application/json-patch', 'text/json']) {
      for (const res of [await register(h, type), await createPartner(h, type)]) {
        const body = expectErrorEnvelope(res, 415, 'unsupported_media_type');
        expect(body.message, type).toBe(`Content-Type must be application/json (got "${type}").`);
      }
    }
  });
});

describe('a compressed body (Content-Encoding) is refused naming the header, never read as it is', () => {
  // The sandbox decodes no content coding: a body sent with `Content-Encoding: gzip` was read
  // as plain bytes, so a gzip body failed as "not valid UTF-8 (byte offset 1)" and a plain body
  // wrongly labelled gzip was executed. RFC 9110 §8.4.1: an unsupported coding is 415.
  const message = (coding: string) =>
    `Content-Encoding "${coding}" is not read: send the body uncompressed (no Content-Encoding, or identity).`;
  const register = (h: Awaited<ReturnType<typeof createHarness>>, encoding: string) =>
    h.client().then((c) =>
      c.call('POST', '/v1/accounts/register/partnership', {
        raw: JSON.stringify(registerBody({ external_account_id: `ext-${crypto.randomUUID()}` })),
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
      }),
    );
  const createPartner = (h: Awaited<ReturnType<typeof createHarness>>, encoding: string) =>
    h.request('POST', '/__sandbox/partners', {
      raw: '{"parent_account_id":"pa_encoded"}',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
    });

  it('partnership writes and the control plane: gzip, br or a list is 415 naming Content-Encoding; nothing is written', async () => {
    const h = createHarness();
    for (const coding of ['gzip', 'br', 'gzip, identity']) {
      for (const res of [await register(h, coding), await createPartner(h, coding)]) {
        const body = expectErrorEnvelope(res, 415, 'unsupported_media_type');
        expect(body.message, coding).toBe(message(coding));
        expect(body.error.details).toEqual({ header: 'Content-Encoding' });
        expect(res.headers.get('accept-encoding')).toBe('identity');
      }
    }
    const partners = (await h.request('GET', '/__sandbox/partners')).body.partners;
    expect(partners).toHaveLength(2);
    expect(partners.every((p: { accounts: unknown[] }) => p.accounts.length === 0)).toBe(true);
  });

  it('identity (any case) is the body as it is: accepted', async () => {
    const h = createHarness();
    expect((await register(h, 'identity')).status).toBe(200);
    expect((await createPartner(h, 'Identity')).status).toBe(201);
  });

  it('the token endpoint: invalid_request naming Content-Encoding, no token', async () => {
    const h = createHarness();
    const res = await h.request('POST', '/oauth/token', {
      raw: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'gzip' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: message('gzip') });
  });
});

describe('a transfer coding other than chunked is refused naming Transfer-Encoding, over a socket', () => {
  // Node's parser takes `Transfer-Encoding: gzip, chunked` and hands the chunks on undecoded:
  // a plain body labelled so was executed as it is (RFC 9112 §6.1: a coding not understood
  // must not be read as if absent).
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(() => server.running.close());
  const chunked = (body: string) => `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;

  it('a status PUT, a partner create and a token call with gzip, chunked: refused, nothing written; chunked alone works', async () => {
    const { port } = server.running;
    const url = `http://127.0.0.1:${port}`;
    const token = await demoToken(url);
    const account = await demoAccount(url, token);
    const put = (coding: string, key: string) =>
      raw(
        port,
        `PUT /v1/partnership/accounts/${account}/status HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${token}\r\n` +
          `X-Platform-Parent-Account-Id: ${DEMO.parent}\r\nIdempotency-Key: ${key}\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n${chunked('{"status":"paused"}')}`,
      ).then(parseReply);
    const message =
      'Transfer-Encoding "gzip, chunked" is not read: send the body uncompressed (chunked alone, or a Content-Length).';
    const refused = await put('gzip, chunked', 'te-1');
    expect(refused.status, refused.text).toBe(415);
    expect(refused.body.error).toEqual({
      code: 'unsupported_media_type',
      details: { header: 'Transfer-Encoding' },
    });
    expect(refused.body.message).toBe(message);
    const status = await fetch(`${url}/v1/partnership/accounts/${account}/status`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(((await status.json()) as { data: { status: string } }).data.status).toBe('active');

    const partner = parseReply(
      await raw(
        port,
        `POST /__sandbox/partners HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n` +
          `Transfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n${chunked('{"parent_account_id":"pa_te"}')}`,
      ),
    );
    expect(partner.status, partner.text).toBe(415);
    expect(partner.body.error.details).toEqual({ header: 'Transfer-Encoding' });
    const grant = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`;
    const tokenCall = parseReply(
      await raw(
        port,
        `POST /oauth/token HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
          `Transfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n${chunked(grant)}`,
      ),
    );
    expect(tokenCall.status, tokenCall.text).toBe(400);
    expect(tokenCall.body).toEqual({ error: 'invalid_request', error_description: message });

    const ok = await put('chunked', 'te-2');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.status).toBe('paused');
  });
});

describe('the token endpoint reads JSON by the same media-type rule', () => {
  it('charset=utf-16 is invalid_request naming it; application/jsonx is not JSON; charset=UTF-8 grants', async () => {
    const h = createHarness();
    const grant = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: DEMO.clientId,
      client_secret: DEMO.clientSecret,
    });
    const post = (type: string) =>
      h.request('POST', '/oauth/token', { raw: grant, headers: { 'Content-Type': type } });
    const utf16 = await post('application/json; charset=utf-16');
    expect(utf16.status).toBe(400);
    expect(utf16.body).toEqual({
      error: 'invalid_request',
      error_description:
        'Content-Type must be application/json, in UTF-8: charset "utf-16" is not read (send charset=utf-8 or none).',
    });
    const jsonx = await post('application/jsonx');
    expect(jsonx.status).toBe(400);
    expect(jsonx.body.error_description).toBe(
      'send the request as application/x-www-form-urlencoded or application/json',
    );
    expect((await post('application/json; charset="UTF-8"')).status).toBe(200);
  });
});
