/**
 * `record` and `verify` as the built bin runs them (`node dist/main.js record|verify`, release
 * tests: each starts processes), docs/drift.md:
 * - record: the first stdout line carries the URL; SIGINT and SIGTERM exit 0; the recording then
 *   verifies with exit 0 and the closing line, --report and --junit written;
 * - an upstream reset is a reset for the client; an HTTPS upstream with a self-signed
 *   certificate works through NODE_EXTRA_CA_CERTS (and without it the client gets a 502 and
 *   stderr says why);
 * - after kill -9 the file is still valid HAR, and verifies;
 * - a deviation exits 1 with its difference lines; a bad file or bad flags exit 2 with one line.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import { startDeviantUpstream } from './deviant-upstream.js';
import { Client, CONTROLS, REGISTER, registerBody, STATUS, tour } from './flows.js';
import { baseEnv, ensureBuilt, MAIN, type Recording, startRecord as startBin } from './record-bin.js';

let dir: string;
let upstream: RunningSandbox;
const procs: ChildProcess[] = [];

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'drift-cli-'));
  upstream = await startSandbox();
}, 120_000);
afterEach(() => {
  for (const p of procs.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});
afterAll(async () => {
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `record` as a process (test/drift/record-bin.ts), killed after each test. */
const startRecord = (args: string[], env: Record<string, string> = {}): Promise<Recording> =>
  startBin(args, procs, env);

function runVerify(args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, 'verify', ...args], {
    env: baseEnv,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** runVerify without blocking the event loop: for a server this process runs. */
function runVerifyAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [MAIN, 'verify', ...args], {
    env: baseEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  procs.push(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (c: Buffer) => {
    stdout += c;
  });
  proc.stderr!.on('data', (c: Buffer) => {
    stderr += c;
  });
  return new Promise((resolve) => proc.on('close', (status) => resolve({ status, stdout, stderr })));
}

describe('record, then verify, as the built bin', () => {
  it('the URL is the first stdout line; SIGTERM exits 0; the recording verifies with exit 0, --report and --junit', async () => {
    const out = join(dir, 'tour.har');
    const rec = await startRecord(['--upstream', upstream.url, '--out', out]);
    expect(rec.firstLine).toMatch(
      /^Recording proxy on http:\/\/127\.0\.0\.1:\d+ -> http:\/\/127\.0\.0\.1:\d+, writing .+tour\.har$/,
    );
    await tour(new Client(rec.url));
    rec.proc.kill('SIGTERM');
    expect(await rec.exited).toBe(0);
    const entries = JSON.parse(readFileSync(out, 'utf8')).log.entries.length;
    const report = join(dir, 'tour.json');
    const junit = join(dir, 'tour.xml');
    const v = runVerify([out, '--report', report, '--junit', junit]);
    expect(v.stderr).toBe('');
    expect(v.stdout).toBe(`${entries} entries: ${entries} same, 0 differ, 0 not replayed, 0 ignored\n`);
    expect(v.status).toBe(0);
    expect(JSON.parse(readFileSync(report, 'utf8')).totals).toEqual({
      entries,
      same: entries,
      differ: 0,
      not_replayed: 0,
      ignored: 0,
    });
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites /);
    expect(xml.match(/<testcase /g)).toHaveLength(entries);
    expect(xml).not.toContain('<failure');
  });

  it('SIGINT exits 0 too, and an upstream reset is a reset for the client', async () => {
    const out = join(dir, 'reset.har');
    const rec = await startRecord(['--upstream', upstream.url, '--out', out]);
    const c = new Client(rec.url);
    await c.login();
    const account = (await c.call('POST', REGISTER, { body: registerBody(`reset-${Date.now()}`) })).body.data
      .account_id;
    const err = await c
      .call('GET', STATUS(account), { scenario: 'connection-reset' })
      .catch((e: unknown) => e);
    expect((err as { cause?: { code?: string } }).cause?.code).toBe('ECONNRESET');
    rec.proc.kill('SIGINT');
    expect(await rec.exited).toBe(0);
    const [, , reset] = JSON.parse(readFileSync(out, 'utf8')).log.entries;
    expect(reset.response).toMatchObject({ status: 0, _error: 'net::ERR_CONNECTION_RESET' });
    expect(runVerify([out]).status).toBe(0);
  });

  it('after kill -9 the file is valid HAR holding every exchange answered, and it verifies', async () => {
    const out = join(dir, 'killed.har');
    const rec = await startRecord(['--upstream', upstream.url, '--out', out]);
    const c = new Client(rec.url);
    await c.login();
    const account = (await c.call('POST', REGISTER, { body: registerBody(`killed-${Date.now()}`) })).body.data
      .account_id;
    for (let i = 0; i < 20; i++) await c.call('GET', CONTROLS(account));
    // one more in flight (slow), then the kill
    const inFlight = c.call('GET', STATUS(account), { scenario: 'latency=2000' }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 200));
    rec.proc.kill('SIGKILL');
    await rec.exited;
    await inFlight;
    const har = JSON.parse(readFileSync(out, 'utf8'));
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries).toHaveLength(22);
    const v = runVerify([out]);
    expect(v.stdout).toBe('22 entries: 22 same, 0 differ, 0 not replayed, 0 ignored\n');
    expect(v.status).toBe(0);
  });

  it('a deviation exits 1 and names it', async () => {
    const deviant = await startDeviantUpstream(upstream.url);
    try {
      const out = join(dir, 'deviant.har');
      const rec = await startRecord(['--upstream', deviant.url, '--out', out]);
      const c = new Client(rec.url);
      await c.login();
      await c.call('GET', STATUS('acct_not_there'));
      rec.proc.kill('SIGTERM');
      expect(await rec.exited).toBe(0);
      expect(rec.stderr()).toContain(
        'partnership-sandbox record: entries[1] GET /v1/partnership/accounts/acct_not_there/status 404: body /error/code must be equal to one of the allowed values',
      );
      const v = runVerify([out]);
      expect(v.stdout).toBe(
        [
          'entries[1] GET /v1/partnership/accounts/acct_not_there/status',
          '  body.error.code: recorded "not_found", sandbox "account_not_found"',
          '2 entries: 1 same, 1 differ, 0 not replayed, 0 ignored',
          '',
        ].join('\n'),
      );
      expect(v.status).toBe(1);
    } finally {
      await deviant.close();
    }
  });
});

describe('an HTTPS upstream (self-signed, trusted through NODE_EXTRA_CA_CERTS)', () => {
  let server: Server;
  let httpsUrl: string;
  let ca: string;
  beforeAll(async () => {
    const key = join(dir, 'key.pem');
    ca = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        ca,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    // A TLS front of the sandbox: what a staging service is to record.
    server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(ca) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([n]) => n !== 'host' && n !== 'connection') as [
            string,
            string,
          ][],
        );
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const r = await fetch(`${upstream.url}${req.url}`, { method: req.method, headers, body });
        const answer = Buffer.from(await r.arrayBuffer());
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
        res.end(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    httpsUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('records through TLS when the CA is trusted, and answers 502 saying why when it is not', async () => {
    const out = join(dir, 'https.har');
    const trusted = await startRecord(['--upstream', httpsUrl, '--out', out], { NODE_EXTRA_CA_CERTS: ca });
    const reply = await new Client(trusted.url).login();
    expect(reply.status).toBe(200);
    trusted.proc.kill('SIGTERM');
    expect(await trusted.exited).toBe(0);
    const [entry] = JSON.parse(readFileSync(out, 'utf8')).log.entries;
    expect(entry.request.url).toBe(`${httpsUrl}/oauth/token`);
    expect(entry.response.status).toBe(200);

    const untrusted = await startRecord(['--upstream', httpsUrl, '--out', join(dir, 'untrusted.har')]);
    const refused = await new Client(untrusted.url).login();
    expect(refused.status).toBe(502);
    untrusted.proc.kill('SIGTERM');
    expect(await untrusted.exited).toBe(0);
    expect(untrusted.stderr()).toMatch(
      /record: POST https:\/\/127\.0\.0\.1:\d+\/oauth\/token: upstream unreachable \(DEPTH_ZERO_SELF_SIGNED_CERT\); trust its CA with NODE_EXTRA_CA_CERTS/,
    );
  });
});

describe('redaction', () => {
  it('no recording the built bin wrote here holds the client secret, a Basic pair or an access token', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.har'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    const basic = Buffer.from('sandbox-demo-client:sandbox-demo-secret').toString('base64');
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text, file).not.toContain('sandbox-demo-secret');
      expect(text, file).not.toContain(basic);
      expect(text, file).not.toMatch(/sbx_[A-Za-z0-9_-]{20}/);
    }
  });
});

describe('bad input exits 2 with one line, no stack trace', () => {
  const oneLine = (stderr: string) => {
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
  };

  it.each([
    [
      'not JSON',
      'this is not json',
      /^partnership-sandbox verify: .+ is not JSON \(.+\), so not a HAR file\n$/,
    ],
    [
      'JSON but no HAR',
      '{"hello":1}',
      /^partnership-sandbox verify: .+ is not a HAR file: no "log" object\n$/,
    ],
    [
      'HAR of another site',
      '{"log":{"version":"1.2","entries":[{"startedDateTime":"2026-01-01T00:00:00Z","request":{"method":"GET","url":"https://example.com/"},"response":{"status":200}}]}}',
      /^partnership-sandbox verify: .+ is no recording of the Partnership Accounts API: none of its 1 entries goes to \/oauth\/token or a \/v1\/ path of the API\n$/,
    ],
  ])('verify of %s', (_name, text, message) => {
    const file = join(dir, 'bad.har');
    writeFileSync(file, text);
    const v = runVerify([file]);
    expect(v.status).toBe(2);
    expect(v.stdout).toBe('');
    expect(v.stderr).toMatch(message);
    oneLine(v.stderr);
  });

  it('verify of a file that is not JSON and has several lines: the whole reason, in one line', () => {
    const file = join(dir, 'lines.har');
    writeFileSync(file, 'not json\nat all\n');
    const v = runVerify([file]);
    expect(v.status).toBe(2);
    expect(v.stderr).toMatch(
      /^partnership-sandbox verify: .+lines\.har is not JSON \(.+\), so not a HAR file\n$/,
    );
    oneLine(v.stderr);
  });

  it('verify --url of a sandbox that does not answer; --report or --junit it cannot write', async () => {
    const out = join(dir, 'login.har');
    const rec = await startRecord(['--upstream', upstream.url, '--out', out]);
    await new Client(rec.url).login();
    rec.proc.kill('SIGTERM');
    expect(await rec.exited).toBe(0);
    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down = runVerify([out, '--url', url]);
    expect(down.status).toBe(2);
    expect(down.stderr).toBe(
      `partnership-sandbox verify: no sandbox answers at ${url}: GET /__sandbox/health got no answer (ECONNREFUSED)\n`,
    );
    for (const [flag, file, code] of [
      ['--report', join(dir, 'no-such-folder', 'r.json'), 'ENOENT'],
      ['--junit', dir, 'EISDIR'],
    ] as const) {
      const v = runVerify([out, flag, file]);
      expect(v.status, v.stderr).toBe(2);
      expect(v.stderr).toBe(`partnership-sandbox verify: ${flag} ${file}: cannot write it (${code})\n`);
    }
  });

  it('verify --url of a server that is no sandbox (it answers 200 JSON to anything): exit 2, one line, nothing replayed', async () => {
    const out = join(dir, 'not-a-sandbox.har');
    const rec = await startRecord(['--upstream', upstream.url, '--out', out]);
    await new Client(rec.url).login();
    rec.proc.kill('SIGTERM');
    expect(await rec.exited).toBe(0);
    const seen: string[] = [];
    const other = createHttpServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      const v = await runVerifyAsync([out, '--url', url]);
      expect(v.status, v.stdout).toBe(2);
      expect(v.stdout).toBe('');
      expect(v.stderr).toBe(
        `partnership-sandbox verify: ${url} is no partnership sandbox: GET /__sandbox/health answered 200 "{\\"ok\\":true}", where a sandbox answers 200 {"status":"ok","store":{…}}\n`,
      );
      expect(seen).toEqual(['GET /__sandbox/health']);
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('verify without a file, record without an upstream or with a bad port', () => {
    const v = runVerify([]);
    expect(v.status).toBe(2);
    expect(v.stderr).toBe('partnership-sandbox verify: FILE is required (see --help)\n');
    const r = spawnSync(process.execPath, [MAIN, 'record'], { env: baseEnv, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('partnership-sandbox record: --upstream URL is required (see --help)\n');
    const p = spawnSync(process.execPath, [MAIN, 'record', '--upstream', 'http://x', '--port', 'nine'], {
      env: baseEnv,
      encoding: 'utf8',
    });
    expect(p.status).toBe(2);
    expect(p.stderr).toBe('partnership-sandbox record: --port nine: must be an integer from 0 to 65535\n');
    oneLine(p.stderr);
  });

  it('--help lists the subcommands; record --help and verify --help their flags', () => {
    const help = spawnSync(process.execPath, [MAIN, '--help'], { env: baseEnv, encoding: 'utf8' });
    expect(help.stdout).toMatch(/partnership-sandbox record --upstream URL/);
    expect(help.stdout).toMatch(/partnership-sandbox verify FILE/);
    const rh = spawnSync(process.execPath, [MAIN, 'record', '--help'], { env: baseEnv, encoding: 'utf8' });
    expect(rh.status).toBe(0);
    expect(rh.stdout).toContain('--out FILE');
    const vh = spawnSync(process.execPath, [MAIN, 'verify', '--help'], { env: baseEnv, encoding: 'utf8' });
    expect(vh.status).toBe(0);
    expect(vh.stdout).toContain('--junit F.xml');
  });
});
