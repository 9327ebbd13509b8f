/**
 * The Go and Python partner examples (examples/go, examples/python) run against a started
 * sandbox, as a partner's CI would run them: the whole flow, the drills, strict decoding of
 * every answer into the spec's tables, and (Go) every answer validated against
 * /openapi-3.0.json with kin-openapi. They need Debian's golang-go and Go packages, and
 * python3-authlib, python3-httpx and python3-requests (.ci/run installs them).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../src/server.js';
import { DEMO, testConfig } from './harness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Debian's interpreter: it has python3-authlib, -httpx and -requests (a pyenv python3 on PATH may not). */
const PYTHON = process.env.SANDBOX_EXAMPLES_PYTHON ?? '/usr/bin/python3';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(
  file: string,
  args: string[],
  env: Record<string, string> = {},
  timeout = 120_000,
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: root, env: { ...process.env, ...env }, timeout }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr: stderr || (error && !stdout ? String(error) : '') });
    });
  });
}

/** The lines printed, so a failure shows the whole run. */
function expectLines(result: Run, patterns: RegExp[]): void {
  const lines = result.stdout.trim().split('\n');
  for (const pattern of patterns) {
    expect(
      lines.some((l) => pattern.test(l)),
      `no line matches ${pattern}:\n${result.stdout}${result.stderr}`,
    ).toBe(true);
  }
  expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
  expect(lines.at(-1)).toBe('done');
}

let server: Running;
let work: string;
beforeAll(async () => {
  server = await startServer(testConfig({ port: 0 }));
  work = mkdtempSync(join(tmpdir(), 'sandbox-examples-'));
});
afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('examples/go', () => {
  it('builds offline from Debian Go packages and runs the whole flow and drills against the sandbox', async () => {
    const binary = join(work, 'partner-go');
    // A stable build cache: the first build compiles kin-openapi and x/oauth2, later ones reuse it.
    const gocache = process.env.GOCACHE ?? join(tmpdir(), 'partnership-sandbox-go-build');
    const build = await run('bash', ['examples/go/build-offline.sh', binary], { GOCACHE: gocache }, 240_000);
    expect(build.code, build.stderr).toBe(0);

    const result = await run(binary, [], { SANDBOX_URL: server.url, SANDBOX_WAIT: 'clock' });
    expectLines(result, [
      /^contract: .*\/openapi-3\.0\.json loaded and valid \(OpenAPI 3\.0\.\d, 8 operations\)$/,
      /^partner: pa_\w+ created and seeded on the control plane$/,
      /^token: Bearer, expires in \d+ s by x\/oauth2's clock \(secret "go\+s3cr%t\/:x" over HTTP Basic\)$/,
      /^mappings: 6 sub-verticals$/,
      /^register: acct_\w+, 2 pages; the same external_account_id again matched it$/,
      /^propagation: (40[13], )+then 200 \(retried every 20s\)$/,
      /^rule 5: blocked \[2002 4002 4003\] after 1 conflict/,
      /^status: dry run showed paused while the account stayed active; then paused \(2 variants\)$/,
      /^layout: [0-9a-f-]{36} is Embedded$/,
      /^rate-limited: 429 with Retry-After: 1s, waited 1\.\d s, then 200$/,
      /^token refresh: the clock moved past expires_in; 401 invalid_token, new token, retried: 200$/,
      /^connection-reset, keep-alive: the caller saw 200; the sandbox received 2 calls/,
      /^connection-reset, DisableKeepAlives: the caller saw .*connection reset by peer$/,
      /^contract: every answer matched the document \(8 operations: editLayout, /,
    ]);
  }, 300_000);
});

describe('examples/python', () => {
  it('runs the whole flow and drills with authlib, httpx and requests against the sandbox', async () => {
    const result = await run(PYTHON, ['examples/python/partner.py'], {
      SANDBOX_URL: server.url,
      SANDBOX_WAIT: 'clock',
    });
    expectLines(result, [
      /^partner: pa_\w+ created and seeded on the control plane$/,
      // authlib's client_secret_basic sends the secret without RFC 6749 §2.3.1's form-encoding,
      // and the sandbox says that the value as sent would have matched
      /^basic auth, authlib client_secret_basic, secret 'py\+secret\/42': invalid_client: .*not form-encoded before Base64 \(RFC 6749 section 2\.3\.1\), and the value as sent matches this client/,
      /^basic auth, authlib client_secret_basic, secret 's3cr%t\+\/:x': invalid_request: malformed HTTP Basic credentials: .*the value as sent matches this client/,
      // ... and works once the example form-encodes, or with client_secret_post
      /^basic auth, form-encoded first: 200$/,
      /^client_secret_post: 200$/,
      /^token: Bearer, expires in \d+ s by authlib's clock$/,
      /^mappings: 6 sub-verticals$/,
      /^register: acct_\w+, 2 pages; the same external_account_id again matched it$/,
      /^propagation: (40[13], )+then 200 \(retried every 20 s\)$/,
      /^rule 5: blocked \[2002, 4002, 4003\] after 1 conflict/,
      /^status: dry run showed paused while the account stayed active; then paused \(2 variants\)$/,
      /^layout: [0-9a-f-]{36} is Embedded$/,
      /^rate-limited: 429 with Retry-After: 1, waited 1\.\d s, then 200$/,
      /^urllib3 Retry on a 503 without Retry-After: 503 by default, 200 with status_forcelist=\[503\]$/,
      /^token refresh: the clock moved past expires_in; 401 invalid_token, new token, retried: 200$/,
      /^connection-reset: httpx raised ReadError: .*Connection reset by peer$/,
    ]);
  }, 120_000);
});

describe('connection-reset is a TCP reset', () => {
  it('a plain Node client sees ECONNRESET, not a clean close (docs/fault-injection.md)', async () => {
    const grant = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
    });
    const { access_token } = (await grant.json()) as { access_token: string };
    const error = await new Promise<NodeJS.ErrnoException>((resolve, reject) => {
      const req = httpRequest(
        new URL('/v1/partnership/vertical-mappings', server.url),
        {
          headers: {
            Authorization: `Bearer ${access_token}`,
            'X-Sandbox-Scenario': 'connection-reset',
            Connection: 'close',
          },
        },
        (res) => reject(new Error(`answered ${res.statusCode}`)),
      );
      req.on('error', resolve);
      req.end();
    });
    // A clean close would be Node's "socket hang up" (code ECONNRESET too, but no syscall).
    expect(error.code).toBe('ECONNRESET');
    expect(error.syscall).toBe('read');
  });
});
