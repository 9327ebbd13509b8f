/**
 * record's first step alone (src/drift/capture.ts): the request listener behind its interface
 * (CaptureContext), with no redaction and no file, between a client and a plain upstream over
 * real sockets. What it hands on is the exchange as it went; what it refuses it answers itself
 * and never hands on.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Captured, captureExchanges } from '../../src/drift/capture.js';
import { Pool } from '../../src/drift/openapi-validator.js';
import { parseUpstream } from '../../src/drift/upstream.js';

const servers: Server[] = [];
async function listen(server: Server): Promise<string> {
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const captured: Captured[] = [];
const lines: string[] = [];
let proxy: string;
let upstreamHost: string;
let pool: InstanceType<typeof Pool>;

beforeAll(async () => {
  const upstream = await listen(
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(201, { 'Content-Type': 'application/json', 'X-Host-Seen': req.headers.host ?? '' });
        res.end(JSON.stringify({ got: Buffer.concat(chunks).toString(), path: req.url }));
      });
    }),
  );
  upstreamHost = new URL(upstream).host;
  const target = parseUpstream(upstream);
  pool = new Pool(target.origin);
  proxy = await listen(
    createServer(
      captureExchanges({
        upstream: target,
        pool,
        maxBody: 64,
        maxAnswerHeaderBytes: 1024 * 1024,
        report: (line) => lines.push(line),
        begin: () => () => {},
        complete: (exchange, finish, done) => {
          captured.push(exchange);
          finish();
          done();
        },
      }),
    ),
  );
});

afterAll(async () => {
  await pool.close();
  for (const s of servers) s.close();
});

describe('capture alone, behind its interface', () => {
  it('passes an exchange through unchanged but for Host and hands it on whole', async () => {
    const res = await fetch(`${proxy}/v1/things?q=1`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ got: '{"a":1}', path: '/v1/things?q=1' });
    // The upstream saw its own host, not the proxy's.
    expect(res.headers.get('x-host-seen')).toBe(upstreamHost);
    expect(captured).toHaveLength(1);
    const [exchange] = captured;
    expect(exchange).toMatchObject({
      method: 'POST',
      path: '/v1/things?q=1',
      status: 201,
      requestMime: 'application/json',
    });
    expect(exchange!.requestBody.toString()).toBe('{"a":1}');
    expect(JSON.parse(Buffer.concat(exchange!.answer).toString())).toEqual({
      got: '{"a":1}',
      path: '/v1/things?q=1',
    });
    expect(exchange!.firstByteAt).toBeGreaterThanOrEqual(exchange!.startedAt);
    expect(exchange!.end).toBeGreaterThanOrEqual(exchange!.firstByteAt);
  });

  it('answers a request body over the limit 413 itself: not sent, not handed on, one line said', async () => {
    const before = captured.length;
    const res = await fetch(`${proxy}/v1/things`, { method: 'POST', body: 'x'.repeat(100) });
    expect(res.status).toBe(413);
    expect(await res.text()).toBe('record keeps request bodies up to 64 bytes\n');
    expect(captured).toHaveLength(before);
    expect(lines.at(-1)).toBe(
      'record: POST /v1/things: a request body over 64 bytes; answered 413, not sent, not recorded',
    );
  });
});
