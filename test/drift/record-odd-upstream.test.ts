/**
 * `record` in front of an upstream that answers in ways HTTP allows but few servers use, and
 * clients that send what few clients send (docs/drift.md, "What it does with each exchange"),
 * through a real listening recorder and a raw TCP upstream:
 *
 * - an interim `100 Continue` before the final answer: the client gets the final answer;
 * - a reason phrase with a byte Node cannot send (DEL): the client gets the answer, the file
 *   the reason as the upstream sent it;
 * - an answer with 5,000 headers: passed on and recorded, not a 502;
 * - some 1,000 short request headers (11 KB): passed on, not record's own 431;
 * - `--out` naming a FIFO: exit 2 with one line, at once (the built bin).
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Recorder, startRecorder } from '../../src/index.js';
import { baseEnv, ensureBuilt, MAIN } from './record-bin.js';

/** A document with no operation: every answer passes the contract check with `[]`. */
const EMPTY_DOCUMENT = { openapi: '3.0.3', info: { title: 'test', version: '1' }, paths: {} };

const MANY = Array.from({ length: 5000 }, (_, i) => `X-H-${i}: v${i}\r\n`).join('');

/** The raw answers, by path; `/count` answers the number of header lines the request had. */
const RAW: Record<string, string> = {
  '/continue':
    'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"ok":true}',
  '/del': 'HTTP/1.1 200 O\x7fK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok',
  '/many': `HTTP/1.1 200 OK\r\n${MANY}Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nok`,
};

let dir: string;
let raw: Server;
let recorder: Recorder;
let out: string;
const lines: string[] = [];

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'record-odd-'));
  raw = createServer((socket: Socket) => {
    let head = '';
    socket.on('data', (c: Buffer) => {
      head += c.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      const [requestLine, ...headerLines] = head.slice(0, end).split('\r\n');
      head = head.slice(end + 4);
      const path = requestLine!.split(' ')[1]!;
      const count = String(headerLines.length);
      socket.write(
        RAW[path] ??
          `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${count.length}\r\n\r\n${count}`,
      );
    });
    socket.on('error', () => {});
  });
  raw.listen(0, '127.0.0.1');
  await once(raw, 'listening');
  const address = raw.address() as { port: number };
  out = join(dir, 'odd.har');
  recorder = await startRecorder({
    upstream: `http://127.0.0.1:${address.port}`,
    port: 0,
    out,
    document: EMPTY_DOCUMENT,
    onContractBreak: (l) => lines.push(l),
  });
}, 120_000);
afterAll(async () => {
  await recorder.stop();
  await new Promise<void>((resolve) => raw.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** One request by node:http (any headers), its status, reason, headers and body. */
function get(
  path: string,
  headers: [string, string][] = [],
): Promise<{ status: number; reason: string; headers: string[]; body: string }> {
  const { hostname, port } = new URL(recorder.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path,
        headers: [['Host', `${hostname}:${port}`], ...headers].flat(),
        maxHeaderSize: 1 << 20,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            reason: res.statusMessage ?? '',
            headers: res.rawHeaders,
            body,
          }),
        );
      },
    );
    req.maxHeadersCount = 0; // every header of the answer, not Node's first 1,000
    req.on('error', reject);
    req.end();
  });
}

function entries(): {
  request: { url: string };
  response: { status: number; statusText: string; headers: unknown[] };
}[] {
  return JSON.parse(readFileSync(out, 'utf8')).log.entries;
}

describe('odd answers from the upstream', () => {
  it('a 100 Continue before the final answer: the client gets the final answer, and it is recorded', async () => {
    const r = await get('/continue');
    expect(r.status).toBe(200);
    expect(r.body).toBe('{"ok":true}');
    expect(entries().at(-1)?.response.status).toBe(200);
  });

  it('a reason phrase with a DEL byte: the client gets the answer (the reason without it), the file the reason sent', async () => {
    const r = await get('/del');
    expect(r.status).toBe(200);
    expect(r.reason).toBe('OK');
    expect(r.body).toBe('ok');
    expect(entries().at(-1)?.response.statusText).toBe('O\x7fK');
  });

  it('an answer with 5,000 headers: passed on and recorded, not a 502', async () => {
    const r = await get('/many');
    expect(r.status).toBe(200);
    expect(r.body).toBe('ok');
    expect(r.headers.filter((h) => h.startsWith('X-H-'))).toHaveLength(5000);
    expect(entries().at(-1)?.response.headers.length).toBeGreaterThanOrEqual(5000);
  });
});

describe('many short request headers', () => {
  it('1,000 headers (11 KB) reach the upstream; its answer comes back', async () => {
    const headers = Array.from({ length: 1000 }, (_, i) => [`X-${i}`, 'v'] as [string, string]);
    const r = await get('/count', headers);
    expect(r.status).toBe(200);
    expect(Number(r.body)).toBeGreaterThanOrEqual(1000);
  });
});

describe('--out that is no regular file', () => {
  it('a FIFO: exit 2 with one line, at once', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const proc: ChildProcess = spawn(
      process.execPath,
      [MAIN, 'record', '--port', '0', '--upstream', 'http://127.0.0.1:9', '--out', fifo],
      {
        env: baseEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    proc.stderr!.on('data', (c: Buffer) => {
      stderr += c;
    });
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    const [code] = (await once(proc, 'exit')) as [number | null];
    clearTimeout(timer);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `partnership-sandbox record: --out ${fifo}: not a regular file (a FIFO); record writes a HAR file\n`,
    );
  }, 30_000);
});
