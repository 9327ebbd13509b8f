/**
 * Over a real socket, the sandbox reads request headers from Node's raw header list and
 * writes every partnership answer with its headers in one plain object (the fast path
 * of @hono/node-server). These tests pin that this path answers exactly as the
 * in-process one does: repeated headers joined as Fetch `Headers` joins them, one line
 * per response header, the journal's view of request headers, the warning and
 * scenario headers. They use node:http so that repeated header lines really are sent
 * as separate lines (fetch would merge them before sending).
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect as netConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { CONTROLS, createHarness, DEMO, REGISTER, registerBody, testConfig } from '../helpers/harness.js';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  /** Header names as sent, one entry per line, lower-cased. */
  lines: string[];
  // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
  body: any;
}

let running: Awaited<ReturnType<typeof startServer>>;
let token: string;

/** One request over the socket; a header given as an array is sent as repeated lines. */
function call(
  method: string,
  path: string,
  headers: Record<string, string | string[]> = {},
  body?: string,
): Promise<Raw> {
  const url = new URL(path, running.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          lines: res.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()),
          body: text ? JSON.parse(text) : null,
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const auth = () => ({ Authorization: `Bearer ${token}`, 'X-Platform-Parent-Account-Id': DEMO.parent });

beforeAll(async () => {
  running = await startServer(testConfig({ port: 0, authPropagationSeconds: 0 }));
  const grant = await call(
    'POST',
    '/oauth/token',
    { 'Content-Type': 'application/x-www-form-urlencoded' },
    `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
  );
  token = grant.body.access_token;
});
afterAll(() => running.close());

describe('request headers read from the socket', () => {
  it('a repeated X-Platform-Parent-Account-Id is joined with ", " (as Fetch Headers join it) and so does not match: 403', async () => {
    const res = await call('GET', '/v1/partnership/vertical-mappings', {
      Authorization: `Bearer ${token}`,
      'X-Platform-Parent-Account-Id': [DEMO.parent, DEMO.parent],
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('parent_account_mismatch');

    // In process, the same two values reach the app already joined: the same answer.
    const h = createHarness();
    const bearer = await h.token();
    const inProcess = await h.request('GET', '/v1/partnership/vertical-mappings', {
      headers: {
        Authorization: `Bearer ${bearer}`,
        'X-Platform-Parent-Account-Id': `${DEMO.parent}, ${DEMO.parent}`,
      },
    });
    expect(inProcess.status).toBe(403);
    expect(inProcess.body.error.code).toBe('parent_account_mismatch');
  });

  it('two Authorization lines are not one bearer token: 401 (Node alone would keep the first and let it through)', async () => {
    const res = await call('GET', '/v1/partnership/vertical-mappings', {
      Authorization: [`Bearer ${token}`, `Bearer ${token}`],
      'X-Platform-Parent-Account-Id': DEMO.parent,
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it('header names match in any case, and the route schema sees them (Idempotency-Key in capitals and lower case)', async () => {
    const created = await call(
      'POST',
      REGISTER,
      { ...auth(), 'content-type': 'application/json' },
      JSON.stringify(registerBody()),
    );
    expect(created.status).toBe(200);
    const id = created.body.data.account_id;
    const read = await call('GET', CONTROLS(id), {
      AUTHORIZATION: `Bearer ${token}`,
      'x-platform-parent-account-id': DEMO.parent,
    });
    expect(read.status).toBe(200);
    const hash = read.body.data.marketplace_controls_list.content_hash;
    const body = JSON.stringify({ blockedVerticals: [], domains: [], contentHash: hash });
    const put = await call(
      'PUT',
      CONTROLS(id),
      { ...auth(), 'IDEMPOTENCY-KEY': 'socket-key-1', 'Content-Type': 'application/json' },
      body,
    );
    expect(put.status).toBe(200);
    const replay = await call(
      'PUT',
      CONTROLS(id),
      { ...auth(), 'idempotency-key': 'socket-key-1', 'Content-Type': 'application/json' },
      body,
    );
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(put.body);
  });

  it('the journal shows the request headers lower-cased, repeated ones joined, secrets redacted', async () => {
    await call('GET', '/v1/partnership/vertical-mappings', {
      Authorization: `Bearer ${token}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
      'X-Trace': ['one', 'two'],
    });
    const journal = await call('GET', '/__sandbox/requests?limit=1');
    const entry = journal.body.requests[0];
    expect(entry.path).toBe('/v1/partnership/vertical-mappings');
    expect(entry.request_headers.authorization).toBe('Bearer [REDACTED]');
    expect(entry.request_headers['x-platform-parent-account-id']).toBe(DEMO.parent);
    expect(entry.request_headers['x-trace']).toBe('one, two');
    expect(Object.keys(entry.request_headers)).toEqual(Object.keys(entry.request_headers).sort());
    expect(JSON.stringify(entry)).not.toContain(token);
  });

  it("the journal shows each call's own header values where names and values repeat from call to call (held once)", async () => {
    // one list too long to share (300 headers more), between lists of the same length
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`X-Filler-${i}`, `f${i}`]));
    const sent: Record<string, string>[] = [
      { 'User-Agent': 'agent-one', Accept: 'application/json', 'X-Note': 'first' },
      { 'User-Agent': 'agent-six', Accept: 'application/jsox', 'X-Note': 'second' },
      { 'user-agent': 'agent-two', accept: '*/*', 'x-note': 'third' },
      { 'USER-AGENT': 'agent-one', Accept: 'text/plain', 'X-Note': 'fourth', ...many },
      { 'User-Agent': 'agent-six', Accept: 'application/json', 'X-Note': 'fifth' },
    ];
    const ids: string[] = [];
    for (const headers of sent) {
      const res = await call('GET', '/v1/partnership/vertical-mappings', { ...auth(), ...headers });
      expect(res.status).toBe(200);
      ids.push(String(res.headers['x-request-id']));
    }
    const journal = await call('GET', '/__sandbox/requests?limit=5');
    // biome-ignore lint/suspicious/noExplicitAny: entries are asserted field by field
    const byId = new Map(journal.body.requests.map((e: any) => [e.request_id, e.request_headers]));
    const shown = ids.map((id) => byId.get(id) as Record<string, string>);
    expect(shown.map((h) => [h['user-agent'], h.accept, h['x-note']])).toEqual([
      ['agent-one', 'application/json', 'first'],
      ['agent-six', 'application/jsox', 'second'],
      ['agent-two', '*/*', 'third'],
      ['agent-one', 'text/plain', 'fourth'],
      ['agent-six', 'application/json', 'fifth'],
    ]);
    expect(shown[3]!['x-filler-299']).toBe('f299');
    expect(shown[4]!['x-filler-0']).toBeUndefined();
    expect(shown.every((h) => h.authorization === 'Bearer [REDACTED]')).toBe(true);
  });
});

describe('response headers written in one object', () => {
  it('every header is sent once, content-type and the common headers included, on success and error answers', async () => {
    for (const res of [
      await call('GET', '/v1/partnership/vertical-mappings', auth()),
      await call('GET', '/v1/partnership/vertical-mappings'),
      await call('GET', '/v1/partnership/accounts/acct_missing/status', auth()),
      await call('DELETE', '/v1/partnership/vertical-mappings', auth()),
    ]) {
      const counts = new Map<string, number>();
      for (const name of res.lines) counts.set(name, (counts.get(name) ?? 0) + 1);
      expect(
        [...counts].filter(([, n]) => n > 1),
        `status ${res.status}`,
      ).toEqual([]);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['x-request-id']).toBe(res.body.request_id);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('warnings and applied scenarios are in the answer: a read without the parent header, with latency=0', async () => {
    const res = await call('GET', '/v1/partnership/vertical-mappings', {
      Authorization: `Bearer ${token}`,
      'X-Sandbox-Scenario': 'latency=0',
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-sandbox-warning']).toMatch(/X-Platform-Parent-Account-Id/);
    expect(res.headers['x-sandbox-scenario-applied']).toBe('latency=0');
  });

  it('control-plane answers still get the common headers (added after their handler)', async () => {
    const res = await call('GET', '/__sandbox/health');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('connection-reset over a socket', () => {
  it('the socket closes without an answer, and the journal records the call with status 0 and the scenario applied', async () => {
    await expect(
      call('GET', '/v1/partnership/vertical-mappings', {
        ...auth(),
        'X-Sandbox-Scenario': 'connection-reset',
      }),
    ).rejects.toMatchObject({ code: 'ECONNRESET' });
    const journal = await call('GET', '/__sandbox/requests?limit=1');
    const entry = journal.body.requests[0];
    expect(entry).toMatchObject({
      method: 'GET',
      path: '/v1/partnership/vertical-mappings',
      status: 0,
      scenarios_applied: ['connection-reset'],
      response_body: null,
      parent_account_id: DEMO.parent,
    });
    const filtered = await call('GET', '/__sandbox/requests?status=0');
    expect(filtered.body.requests.map((r: { request_id: string }) => r.request_id)).toContain(
      entry.request_id,
    );
    // The server keeps serving.
    expect((await call('GET', '/v1/partnership/vertical-mappings', auth())).status).toBe(200);
  });
});

describe('connection-reset is a TCP reset (RST), not a clean close (docs/fault-injection.md)', () => {
  it('a raw socket sees ECONNRESET, on a partnership call and on the token endpoint', async () => {
    const url = new URL(running.url);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = netConnect(Number(url.port), url.hostname, () => socket.write(request));
        let got = '';
        socket.on('data', (d) => {
          got += String(d);
        });
        socket.on('error', (e: NodeJS.ErrnoException) => reject(e));
        socket.on('end', () => resolve(`clean close (FIN) after ${JSON.stringify(got)}`));
      });
    const authorization = auth().Authorization;
    await expect(
      raw(
        `GET /v1/partnership/vertical-mappings HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nX-Sandbox-Scenario: connection-reset\r\n\r\n`,
      ),
    ).rejects.toMatchObject({ code: 'ECONNRESET' });
    const form = `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`;
    await expect(
      raw(
        `POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\nX-Sandbox-Scenario: connection-reset\r\n\r\n${form}`,
      ),
    ).rejects.toMatchObject({ code: 'ECONNRESET' });
  });
});

describe('coaching: a silent retry after a connection-reset drill (issues 18 item 5, 31 item 1)', () => {
  const arm = async (times = 1) => {
    const armed = await call(
      'PUT',
      '/__sandbox/scenarios',
      { 'Content-Type': 'application/json' },
      JSON.stringify({ scenario: 'connection-reset', parent_account_id: DEMO.parent, times }),
    );
    expect(armed.status).toBe(200);
  };
  const warning = (res: Raw) => String(res.headers['x-sandbox-warning'] ?? '');
  const SILENT =
    /repeats one that the connection-reset drill cut off \d+ ms ago: your HTTP client sent it again on its own/;

  it("the same GET right after an armed reset gets a 200 with X-Sandbox-Warning saying the client resent it (Go's net/http on a reused keep-alive connection)", async () => {
    await arm();
    const go = { ...auth(), 'User-Agent': 'Go-http-client/1.1' };
    await expect(call('GET', '/v1/partnership/vertical-mappings', go)).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    const retry = await call('GET', '/v1/partnership/vertical-mappings', go);
    expect(retry.status).toBe(200);
    expect(warning(retry)).toMatch(SILENT);
    expect(warning(retry)).toContain('Transport.DisableKeepAlives = true');
    // Only once: the next call is an ordinary one.
    const later = await call('GET', '/v1/partnership/vertical-mappings', go);
    expect(warning(later)).not.toMatch(/connection-reset drill/);
  });

  it('a deliberate retry 500 ms after a reset gets no warning: only a repeat within 100 ms is the library resending', async () => {
    await arm();
    await expect(call('GET', '/v1/partnership/vertical-mappings', auth())).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const retry = await call('GET', '/v1/partnership/vertical-mappings', auth());
    expect(retry.status).toBe(200);
    expect(retry.body.error).toBeNull();
    expect(warning(retry)).not.toMatch(/connection-reset drill/);
  });

  it('a POST register (no Idempotency-Key) resent at once after a reset gets the warning, worded for libcurl by its User-Agent; one with another body does not', async () => {
    const headers = { ...auth(), 'Content-Type': 'application/json', 'User-Agent': 'GuzzleHttp/7' };
    const body = JSON.stringify(registerBody());
    await arm();
    await expect(call('POST', REGISTER, headers, body)).rejects.toMatchObject({ code: 'ECONNRESET' });
    const resent = await call('POST', REGISTER, headers, body);
    expect(resent.status).toBe(200);
    expect(resent.body.data.account_id).toMatch(/^acct_/);
    expect(warning(resent)).toMatch(SILENT);
    expect(warning(resent)).toContain('CURLOPT_FORBID_REUSE');

    // The same method and path with another body is another request: the caller's, not a resend.
    await arm();
    await expect(call('POST', REGISTER, headers, JSON.stringify(registerBody()))).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    const other = await call('POST', REGISTER, headers, JSON.stringify(registerBody()));
    expect(other.status).toBe(200);
    expect(warning(other)).not.toMatch(/connection-reset drill/);
  });

  it.each([
    ['Ruby', 'max_retries = 0'],
    ['Faraday v1.1.0', 'give it an interval'],
    ['curl/7.88.1', 'CURLOPT_FORBID_REUSE'],
    ['Java-http-client/17.0.15', '-Djdk.httpclient.redirects.retrylimit=1'],
    ['python-requests/2.28.1', 'Retry(total=0)'],
    ['Go-http-client/1.1', 'DisableKeepAlives'],
    ['Mozilla/5.0 (a client the sandbox does not know)', "turn off the library's automatic retries"],
  ])('the advice names the setting of the client in the User-Agent: %s', async (agent, advice) => {
    await arm();
    const headers = { ...auth(), 'User-Agent': agent };
    await expect(call('GET', '/v1/partnership/vertical-mappings', headers)).rejects.toMatchObject({
      code: 'ECONNRESET',
    });
    const retry = await call('GET', '/v1/partnership/vertical-mappings', headers);
    expect(retry.status).toBe(200);
    expect(warning(retry)).toMatch(SILENT);
    expect(warning(retry)).toContain(advice);
  });
});

describe('connection-reset on a write with an Idempotency-Key', () => {
  it('frees the key: the same key without the scenario executes (200, not a replay)', async () => {
    const created = await call(
      'POST',
      REGISTER,
      { ...auth(), 'Content-Type': 'application/json' },
      JSON.stringify(registerBody()),
    );
    const status = `/v1/partnership/accounts/${created.body.data.account_id}/status`;
    const headers = { ...auth(), 'Content-Type': 'application/json', 'Idempotency-Key': 'reset-then-retry' };
    const body = JSON.stringify({ status: 'paused' });
    await expect(
      call('PUT', status, { ...headers, 'X-Sandbox-Scenario': 'connection-reset' }, body),
    ).rejects.toThrow();
    const retry = await call('PUT', status, headers, body);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.body.data.status).toBe('paused');
  });
});
