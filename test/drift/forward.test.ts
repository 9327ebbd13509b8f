/**
 * What record passes to the upstream, and what it writes of it, since it takes requests there
 * with undici's Pool and writes each entry as JSON text field by field (docs/drift.md,
 * "Performance"), through a real listening proxy in front of an upstream that echoes what it got:
 *
 * - the client's headers as they came, in their order, repeated ones repeated, Host the
 *   upstream's; a request without a body goes as one;
 * - a chunked request body goes whole, with its Content-Length (Transfer-Encoding framed one hop);
 *   `Expect: 100-continue` is answered by record, which sends the request on without it;
 * - a path URL parsing would change (dot segments, what it escapes) goes as `new URL` makes it,
 *   and any other as it came (targetOf, checked against `new URL` for each);
 * - entryText writes the text JSON.stringify gives the same entry as an object.
 */
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EntryParts, entryText, type HarEntry } from '../../src/drift/har.js';
import { targetOf } from '../../src/drift/proxy.js';
import { type Recorder, startRecorder } from '../../src/index.js';

/** A document with no operation: every answer passes the contract check with `[]`. */
const EMPTY_DOCUMENT = { openapi: '3.0.3', info: { title: 'test', version: '1' }, paths: {} };

interface Echo {
  method: string;
  url: string;
  rawHeaders: string[];
  body: string;
}

let dir: string;
let echo: Server;
let upstreamUrl: string;
let recorder: Recorder;
let out: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drift-forward-'));
  echo = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c;
    });
    req.on('end', () => {
      const answer: Echo = { method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, body };
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  echo.listen(0, '127.0.0.1');
  await once(echo, 'listening');
  upstreamUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  out = join(dir, 'forward.har');
  recorder = await startRecorder({ upstream: upstreamUrl, port: 0, out, document: EMPTY_DOCUMENT });
});
afterAll(async () => {
  await recorder.stop();
  echo.closeAllConnections();
  await new Promise((r) => echo.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** One request by node:http (raw headers, chunks, Expect), and what came back. */
function send(
  path: string,
  o: { method?: string; headers?: string[]; chunks?: string[]; expectContinue?: boolean } = {},
): Promise<{ status: number; echo: Echo; continued: boolean }> {
  const { hostname, port } = new URL(recorder.url);
  return new Promise((resolve, reject) => {
    let continued = false;
    // (headers as a list are sent as they are: Host too, which node:http adds only to an object)
    const headers = o.headers && ['Host', `${hostname}:${port}`, ...o.headers];
    const req = request({ host: hostname, port, path, method: o.method ?? 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, echo: JSON.parse(text) as Echo, continued }),
      );
    });
    req.on('error', reject);
    if (o.expectContinue) {
      req.on('continue', () => {
        continued = true;
        for (const c of o.chunks ?? []) req.write(c);
        req.end();
      });
      return;
    }
    for (const c of o.chunks ?? []) req.write(c);
    req.end();
  });
}

const pairs = (raw: string[]) => raw.flatMap((v, i) => (i % 2 ? [] : [[v.toLowerCase(), raw[i + 1]]]));
const entries = (): HarEntry[] => JSON.parse(readFileSync(out, 'utf8')).log.entries;

describe('record passes the request on', () => {
  it('headers in their order, a repeated one repeated, Host the upstream’s; no body, none sent', async () => {
    const { status, echo: got } = await send('/v1/things?a=1', {
      headers: ['X-Dup', 'one', 'Accept', 'application/json', 'X-Dup', 'two'],
    });
    expect(status).toBe(200);
    expect(got).toMatchObject({ method: 'GET', url: '/v1/things?a=1', body: '' });
    const sent = pairs(got.rawHeaders);
    expect(sent.filter(([n]) => n === 'x-dup')).toEqual([
      ['x-dup', 'one'],
      ['x-dup', 'two'],
    ]);
    expect(sent.find(([n]) => n === 'host')).toEqual(['host', new URL(upstreamUrl).host]);
    expect(sent.some(([n]) => n === 'content-length' || n === 'transfer-encoding')).toBe(false);
    const entry = entries().find((e) => e.request.url.endsWith('/v1/things?a=1'))!;
    expect(entry.request.headers.filter((h) => h.name === 'X-Dup').map((h) => h.value)).toEqual([
      'one',
      'two',
    ]);
    expect(entry.request.queryString).toEqual([{ name: 'a', value: '1' }]);
    expect(entry.request.postData).toBeUndefined();
  });

  it('a chunked body goes whole, with its Content-Length and no Transfer-Encoding, and is recorded whole', async () => {
    const { echo: got } = await send('/v1/chunked', {
      method: 'POST',
      headers: ['Content-Type', 'application/json', 'Transfer-Encoding', 'chunked'],
      chunks: ['{"a":', '"b"}'],
    });
    expect(got.body).toBe('{"a":"b"}');
    const sent = pairs(got.rawHeaders);
    expect(sent.find(([n]) => n === 'content-length')).toEqual(['content-length', '9']);
    expect(sent.some(([n]) => n === 'transfer-encoding')).toBe(false);
    const entry = entries().find((e) => e.request.url.endsWith('/v1/chunked'))!;
    expect(entry.request.postData).toEqual({ mimeType: 'application/json', text: '{"a":"b"}' });
    expect(entry.request.bodySize).toBe(9);
  });

  it('Expect: 100-continue is answered by record; the request goes on without it, its body whole', async () => {
    const { echo: got, continued } = await send('/v1/expect', {
      method: 'PUT',
      headers: ['Content-Type', 'text/plain', 'Content-Length', '5', 'Expect', '100-continue'],
      chunks: ['hello'],
      expectContinue: true,
    });
    expect(continued).toBe(true);
    expect(got).toMatchObject({ method: 'PUT', body: 'hello' });
    expect(pairs(got.rawHeaders).some(([n]) => n === 'expect')).toBe(false);
  });

  it('an empty body with Content-Length: 0 goes as one, its Content-Length once', async () => {
    const { status, echo: got } = await send('/v1/empty', {
      method: 'POST',
      headers: ['Content-Type', 'application/json', 'Content-Length', '0'],
    });
    expect(status).toBe(200);
    expect(got).toMatchObject({ method: 'POST', body: '' });
    expect(pairs(got.rawHeaders).filter(([n]) => n === 'content-length')).toEqual([['content-length', '0']]);
  });

  it('a path with dot segments goes as URL parsing resolves it', async () => {
    const { echo: got } = await send('/v1/a/../b/%2e%2e/c?x=1');
    expect(got.url).toBe('/v1/c?x=1');
    expect(entries().some((e) => e.request.url === `${upstreamUrl}/v1/c?x=1`)).toBe(true);
  });
});

describe('targetOf: a path as new URL makes it, parsed only when parsing could change it', () => {
  const upstream = {
    origin: 'https://api.example.com',
    protocol: 'https:',
    host: 'api.example.com',
    hostname: 'api.example.com',
    port: '',
    prefix: '/base',
  };
  it.each([
    '/v1/partnership/accounts/acct_1/marketplacecontrolslists',
    '/v1/x?a=1&b=two%20words',
    '/v1/x?',
    '/v1/x?#frag',
    "/v1/it's?q='1'",
    '/v1/a b?c d',
    '/v1/./x/../y',
    '/v1/%2E%2e/z',
    '/v1/.well-known/x',
    '//other.example/x',
    '/v1/{x}|^`"<>',
    '/v1/x\\y',
    '/v1/é?q=é',
    '/v1/%zz?%zz',
  ])('%s', (path) => {
    const url = new URL(`${upstream.origin}${upstream.prefix}${path}`);
    expect(targetOf(upstream, path)).toEqual({
      path: `${url.pathname}${url.search}`,
      href: url.href,
      search: url.search,
    });
  });
});

describe('entryText', () => {
  it('is the text JSON.stringify gives the same entry as an object (escapes, optional fields)', () => {
    const parts: EntryParts = {
      startedMs: Date.UTC(2026, 10, 26, 21, 0, 0, 123),
      time: 12,
      method: 'POST',
      url: 'https://api.example.com/oauth/token?x="1"',
      httpVersion: 'HTTP/1.1',
      requestHeaders: ['Host', 'api.example.com', 'X-Odd', 'a "quoted" \\ back\tslash é'],
      queryString: [{ name: 'x', value: '"1"' }],
      postData: { mimeType: 'application/x-www-form-urlencoded', text: 'client_secret=[redacted:1]\n' },
      requestBodySize: 27,
      status: 200,
      statusText: 'OK',
      responseHeaders: ['content-type', 'application/json'],
      content: { size: 3, mimeType: 'application/octet-stream', text: 'AAEC', encoding: 'base64' },
      error: undefined,
      timings: { send: 0, wait: 10, receive: 2 },
      contract: ['body /data must be object', 'header Retry-After is missing'],
    };
    const headers = (raw: readonly string[]) =>
      raw.flatMap((v, i) => (i % 2 ? [] : [{ name: v, value: raw[i + 1]! }]));
    const expected: HarEntry = {
      startedDateTime: '2026-11-26T21:00:00.123Z',
      time: 12,
      request: {
        method: 'POST',
        url: parts.url,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: headers(parts.requestHeaders),
        queryString: [{ name: 'x', value: '"1"' }],
        postData: parts.postData,
        headersSize: -1,
        bodySize: 27,
      },
      response: {
        status: 200,
        statusText: 'OK',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: headers(parts.responseHeaders),
        content: parts.content,
        redirectURL: '',
        headersSize: -1,
        bodySize: 3,
      },
      cache: {},
      timings: parts.timings,
      _contract: [...parts.contract],
    };
    expect(entryText(parts)).toBe(JSON.stringify(expected));

    // A reset: no body either way, `_error`, no problems.
    const reset: EntryParts = {
      ...parts,
      postData: undefined,
      queryString: [],
      status: 0,
      statusText: '',
      responseHeaders: [],
      content: { size: 0, mimeType: '' },
      error: 'net::ERR_CONNECTION_RESET',
      contract: [],
    };
    const { postData: _, ...request } = expected.request;
    expect(entryText(reset)).toBe(
      JSON.stringify({
        ...expected,
        request: { ...request, queryString: [] },
        response: {
          ...expected.response,
          status: 0,
          statusText: '',
          headers: [],
          content: { size: 0, mimeType: '' },
          bodySize: 0,
          _error: 'net::ERR_CONNECTION_RESET',
        },
        _contract: [],
      }),
    );
  });
});
