/**
 * `record` against bodies and upstreams built to break it (docs/drift.md, "What it does with
 * each exchange"), as the built bin runs it, in front of a test upstream that answers each
 * path its own way:
 *
 * - a body nested 10,000 deep (a request's, an answer's) holding a secret or a `\u` escape is
 *   passed on and recorded without the secret, and the recorder goes on (no stack trace, no exit);
 * - no secret reaches the file in any shape a client or an upstream may send it: a form key
 *   percent-encoded, a secret whose value is an array or an object, a form sent as text/plain,
 *   the headers the journal redacts (X-Api-Key, X-Access-Token), an answer compressed with
 *   zstd or twice with gzip, sent as application/octet-stream, with a byte-order mark, in a
 *   coding record cannot decode, or binary (what cannot be decoded and scanned is not written as
 *   content, only its size and type);
 * - the bound on what one entry holds counts decoded bytes: an answer of a few KB that decodes
 *   past it is passed on whole and recorded without its body (decoding stops at the bound);
 * - kill -9 under the load of 50 concurrent clients: every exchange a client received whole is
 *   in the file, and the file is whole HAR.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder } from '../../src/index.js';
import { ensureBuilt, startRecord } from './record-bin.js';

let dir: string;
let hostile: Server;
let hostileUrl: string;
const procs: ChildProcess[] = [];

const DEPTH = 10_000;
/** A JSON value nested DEPTH objects deep around `inner`. */
const nested = (inner: string) => `${'{"a":'.repeat(DEPTH)}${inner}${'}'.repeat(DEPTH)}`;

/** What the test upstream answers, by path. */
const ANSWERS: Record<string, (req: IncomingMessage, body: Buffer, res: ServerResponse) => void> = {
  '/echo': (req, body, res) => {
    res.writeHead(200, { 'Content-Type': req.headers['content-type'] ?? 'application/json' }).end(body);
  },
  '/deep-answer': (_req, _body, res) => {
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(nested('{"access_token":"deep-token-1","note":"\\u0041"}'));
  },
  /** An answer whose entry takes a while to build: a token to redact and 16,000 array items to scan. */
  '/slow-entry': (req, _body, res) => {
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id');
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(`{"id":"${id}","access_token":"t","pad":[${'0,'.repeat(16_000)}0]}`);
  },
  '/answer': (req, _body, res) => {
    const shape = ANSWER_SHAPES[new URL(req.url ?? '/', 'http://x').searchParams.get('shape') ?? ''];
    if (!shape) return void res.writeHead(404).end();
    res.writeHead(200, shape.headers).end(shape.body);
  },
};

/** Answers that carry a token, each in a shape a redactor may miss. */
const ANSWER_SHAPES: Record<string, { headers: IncomingHttpHeaders; body: Buffer }> = {
  zstd: {
    headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' },
    body: zstdCompressSync(Buffer.from('{"access_token":"tok-zstd-1"}')),
  },
  gzipTwice: {
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip, gzip' },
    body: gzipSync(gzipSync(Buffer.from('{"access_token":"tok-gzip2-1"}'))),
  },
  octetStream: {
    headers: { 'content-type': 'application/octet-stream' },
    body: Buffer.from('{"access_token":"tok-octet-1"}'),
  },
  bom: {
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('\uFEFF{"access_token":"tok-bom-1","token_type":"bearer"}'),
  },
  plainForm: {
    headers: { 'content-type': 'text/plain' },
    body: Buffer.from('access_token=tok-plainform-1&token_type=bearer'),
  },
  objectValue: {
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{"access_token":{"value":"tok-object-1"},"refresh_token":["tok-array-1"]}'),
  },
  unknownCoding: {
    headers: { 'content-type': 'application/json', 'content-encoding': 'x-custom' },
    body: Buffer.from('{"access_token":"tok-coding-1"}'),
  },
  binary: {
    headers: { 'content-type': 'application/octet-stream' },
    body: Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from('access_token=tok-binary-1')]),
  },
  /** 16 MiB of text in 16 KB. */
  bomb: {
    headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' },
    body: gzipSync(Buffer.alloc(16 * 1024 * 1024, 'a')),
  },
  bombTwice: {
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip, gzip' },
    body: gzipSync(gzipSync(Buffer.alloc(16 * 1024 * 1024, 'b'))),
  },
  invalidJson: {
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{"access_token": "tok-invalid-1", "refresh_token": ["tok-invalid-2"], oops'),
  },
};

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'record-hostile-'));
  hostile = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = ANSWERS[new URL(req.url ?? '/', 'http://x').pathname];
      if (answer) answer(req, Buffer.concat(chunks), res);
      else res.writeHead(404).end();
    });
  });
  hostile.listen(0, '127.0.0.1');
  await once(hostile, 'listening');
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
}, 120_000);
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});
afterAll(async () => {
  hostile.closeAllConnections();
  await new Promise<void>((resolve) => hostile.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

/** The file's entries (it must be whole HAR). */
function entriesOf(file: string): { request: { url: string }; response: { status: number } }[] {
  return JSON.parse(readFileSync(file, 'utf8')).log.entries;
}

describe('a body nested 10,000 deep', () => {
  it('with a secret field or a \\u escape, in a request or an answer: passed on, recorded without the secret, and record goes on', async () => {
    const out = join(dir, 'deep.har');
    const rec = await startRecord(['--upstream', hostileUrl, '--out', out], procs);
    const post = (body: string) =>
      fetch(`${rec.url}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    const secret = nested('{"client_secret":"deep-secret-1"}');
    const escaped = nested('"\\u0041"');
    for (const body of [secret, escaped]) {
      const r = await post(body);
      expect(r.status).toBe(200);
      expect(await r.text()).toBe(body);
    }
    const deep = await fetch(`${rec.url}/deep-answer`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('deep-token-1');
    const after = await post('{"ok":true}');
    expect(after.status).toBe(200);
    rec.proc.kill('SIGTERM');
    expect(await rec.exited).toBe(0);
    expect(rec.stderr()).not.toMatch(/\n\s+at /);
    const text = readFileSync(out, 'utf8');
    expect(entriesOf(out).map((e) => e.response.status)).toEqual([200, 200, 200, 200]);
    expect(text).not.toContain('deep-secret-1');
    expect(text).not.toContain('deep-token-1');
  });
});

describe('no secret reaches the file, whatever its shape', () => {
  /** The secrets sent: each must be absent from the file, in clear and in any base64 text. */
  const REQUESTS: { body?: string; type?: string; headers?: Record<string, string>; secret: string }[] = [
    {
      body: 'grant_type=client_credentials&client%5Fsecret=sec-pct-1',
      type: 'application/x-www-form-urlencoded',
      secret: 'sec-pct-1',
    },
    {
      body: `${[...'client_secret'].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')}=sec-allpct-1`,
      type: 'application/x-www-form-urlencoded',
      secret: 'sec-allpct-1',
    },
    { body: '{"client_secret":["sec-array-1"]}', type: 'application/json', secret: 'sec-array-1' },
    {
      body: 'grant_type=client_credentials&client_secret=sec-plain-1',
      type: 'text/plain',
      secret: 'sec-plain-1',
    },
    {
      headers: { 'X-Api-Key': 'sec-apikey-1', 'X-Access-Token': 'sec-accesstoken-1' },
      secret: 'sec-apikey-1',
    },
  ];
  const SECRETS = [
    ...REQUESTS.map((r) => r.secret),
    'sec-accesstoken-1',
    ...['zstd', 'gzip2', 'octet', 'bom', 'plainform', 'object', 'array', 'coding', 'binary'].map(
      (t) => `tok-${t}-1`,
    ),
    'tok-invalid-1',
    'tok-invalid-2',
  ];

  it('every shape: the client gets what the upstream sent, the file holds none of the secrets', async () => {
    expect(SECRETS).toHaveLength(17);
    const out = join(dir, 'shapes.har');
    const rec = await startRecord(['--upstream', hostileUrl, '--out', out], procs);
    for (const r of REQUESTS) {
      const res = await fetch(`${rec.url}/echo`, {
        method: r.body === undefined ? 'GET' : 'POST',
        headers: { ...(r.type ? { 'Content-Type': r.type } : {}), ...r.headers },
        ...(r.body === undefined ? {} : { body: r.body }),
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(r.body ?? '');
    }
    for (const [shape, { body }] of Object.entries(ANSWER_SHAPES).filter(([s]) => !s.startsWith('bomb'))) {
      const res = await fetch(`${rec.url}/answer?shape=${shape}`, {
        headers: { 'Accept-Encoding': 'identity' },
      });
      expect(res.status, shape).toBe(200);
      if (!/zstd|gzip/.test(shape))
        expect(Buffer.from(await res.arrayBuffer()).equals(body), shape).toBe(true);
      else await res.arrayBuffer();
    }
    rec.proc.kill('SIGTERM');
    expect(await rec.exited).toBe(0);
    const text = readFileSync(out, 'utf8');
    const entries = JSON.parse(text).log.entries as {
      response: { content: { text?: string; encoding?: string } };
    }[];
    expect(entries).toHaveLength(REQUESTS.length + Object.keys(ANSWER_SHAPES).length - 2);
    const decoded = entries
      .map((e) => e.response.content)
      .filter((c) => c.encoding === 'base64' && c.text)
      .map((c) => Buffer.from(c.text!, 'base64').toString('latin1'));
    for (const secret of SECRETS) {
      expect(text, secret).not.toContain(secret);
      for (const d of decoded) expect(d, secret).not.toContain(secret);
    }
  });
});

describe('the bound on one entry counts decoded bytes', () => {
  it('answers of a few KB that decode past it: passed on whole, recorded without their body, and a line each', async () => {
    const out = join(dir, 'bomb.har');
    const lines: string[] = [];
    const recorder = await startRecorder({
      upstream: hostileUrl,
      port: 0,
      out,
      maxBodyBytes: 1024 * 1024,
      onContractBreak: (l) => lines.push(l),
    });
    try {
      for (const shape of ['bomb', 'bombTwice', 'bomb']) {
        const res = await fetch(`${recorder.url}/answer?shape=${shape}`, {
          headers: { 'Accept-Encoding': 'gzip' },
        });
        expect(res.status).toBe(200);
        // fetch undoes one gzip: the client has every byte the upstream sent
        const body = Buffer.from(await res.arrayBuffer());
        if (shape === 'bomb') expect(body.length).toBe(16 * 1024 * 1024);
      }
      const ok = await fetch(`${recorder.url}/answer?shape=octetStream`);
      expect(ok.status).toBe(200);
    } finally {
      await recorder.stop();
    }
    const text = readFileSync(out, 'utf8');
    expect(text.length).toBeLessThan(64 * 1024);
    const entries = JSON.parse(text).log.entries as {
      response: { content: { size: number; text?: string; comment?: string } };
    }[];
    expect(entries.map((e) => e.response.content.text)).toEqual([
      undefined,
      undefined,
      undefined,
      '{"access_token":"[redacted:1]"}',
    ]);
    expect(entries[0]!.response.content).toEqual({
      size: -1,
      mimeType: 'text/plain',
      comment: 'not recorded: the body decodes to over 1048576 bytes',
    });
    expect(lines).toEqual([
      'record: GET /answer?shape=bomb 200: an answer body that decodes to over 1048576 bytes; passed on, recorded without its body',
      'record: GET /answer?shape=bombTwice 200: an answer body that decodes to over 1048576 bytes; passed on, recorded without its body',
      'record: GET /answer?shape=bomb 200: an answer body that decodes to over 1048576 bytes; passed on, recorded without its body',
    ]);
  });
});

describe('kill -9 under load', () => {
  it('50 concurrent clients: every exchange a client received whole is in the file, which is whole HAR', async () => {
    const out = join(dir, 'killed.har');
    const rec = await startRecord(['--upstream', hostileUrl, '--out', out], procs);
    const received: string[] = [];
    let n = 0;
    let killed = false;
    const client = async () => {
      while (!killed) {
        const id = `c${n++}`;
        try {
          const res = await fetch(`${rec.url}/slow-entry?id=${id}`);
          if ((await res.text()).startsWith(`{"id":"${id}"`)) received.push(id);
        } catch {
          return; // the recorder is gone
        }
      }
    };
    const clients = Array.from({ length: 50 }, client);
    while (received.length < 100) await new Promise((r) => setTimeout(r, 5));
    rec.proc.kill('SIGKILL');
    killed = true;
    await rec.exited;
    await Promise.all(clients);
    expect(JSON.parse(readFileSync(out, 'utf8')).log.version).toBe('1.2');
    const entries = entriesOf(out);
    const recorded = new Set(entries.map((e) => new URL(e.request.url).searchParams.get('id')));
    expect(received.filter((id) => !recorded.has(id))).toEqual([]);
    expect(received.length).toBeGreaterThanOrEqual(100);
  });
});
