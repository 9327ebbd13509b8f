/**
 * The partner examples in Go, Python, Ruby, PHP and Java (examples/go, examples/python,
 * examples/ruby, examples/php, examples/java) run against a started sandbox, as a partner's CI
 * would run them: the whole flow, the drills, decoding of every answer into the spec's tables,
 * and (Go) every answer validated against /openapi-3.0.json with kin-openapi; Ruby, PHP and
 * Java also the partial failure, what a reset looks like and a chaos run that converges
 * (docs/other-languages.md). They need Debian's packages, which .ci/run installs: golang-go
 * and Go packages; python3-authlib, python3-httpx and python3-requests; ruby-faraday and
 * ruby-oauth2; php-cli, php-curl and php-guzzlehttp-guzzle; a headless JDK,
 * libjackson2-databind-java and libgoogle-oauth-client-java.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { DEMO, testConfig } from '../helpers/harness.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Debian's interpreter: it has python3-authlib, -httpx and -requests (a pyenv python3 on PATH may not). */
const PYTHON = process.env.SANDBOX_EXAMPLES_PYTHON ?? '/usr/bin/python3';
/** Debian's interpreters and JDK (ruby-faraday, ruby-oauth2; php-curl, php-guzzlehttp-guzzle). */
const RUBY = process.env.SANDBOX_EXAMPLES_RUBY ?? '/usr/bin/ruby';
const PHP = process.env.SANDBOX_EXAMPLES_PHP ?? '/usr/bin/php';
const JAVA = process.env.SANDBOX_EXAMPLES_JAVA ?? '/usr/bin/java';

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

/** What the Ruby, PHP and Java examples print alike: the tour, the drills, chaos. */
const TOUR = [
  /^token: Bearer, expires in \d+ s$/,
  /^mappings: 6 sub-verticals$/,
  /^register: acct_\w+, 2 pages; the same external_account_id again matched it$/,
  /^propagation: (40[13], )+then 200 \(retried every 20 s\)$/,
  /^rule 5: blocked \[2002, 4002, 4003\] after 1 conflict/,
  /^status: dry run showed paused .*while the account stayed active; then paused \(2 variants\)$/,
  /^partial failure: 200 partial_failure, status mixed, kept request_id [0-9a-f-]{36}; re-checked mixed, retried with a fresh key: active$/,
  // every injected failure recovered by the caller's own code, none hidden by its HTTP library
  /^chaos: seed 31, every injected failure recovered: (\S+ (\d+)\/\2 passed(, |$))+/,
];
// The sandbox's own explanation of an RFC 6749 §2.3.1 mistake, as the token endpoint words it.
const NOT_FORM_ENCODED =
  /invalid_client: .*not form-encoded before Base64 \(RFC 6749 section 2\.3\.1\), and the value as sent matches this client/;

describe('examples/ruby', () => {
  it('runs the tour, the drills and a chaos run with Faraday, the oauth2 gem and Net::HTTP against the sandbox', async () => {
    const result = await run(RUBY, ['examples/ruby/partner.rb'], {
      SANDBOX_URL: server.url,
      SANDBOX_WAIT: 'clock',
    });
    expectLines(result, [
      /^partner: pa_\w+ created and seeded on the control plane$/,
      new RegExp(
        `^basic auth, oauth2 gem auth_scheme: :basic_auth, secret "rb\\+secret/42": ${NOT_FORM_ENCODED.source}`,
      ),
      /^basic auth, form-encoded first: 200$/,
      /^client_secret_post \(auth_scheme: :request_body\): 200$/,
      ...TOUR,
      /^status: dry run showed paused \(dry_run true\)/,
      /^connection-reset, Faraday: Faraday::ConnectionFailed: Connection reset by peer$/,
      /^connection-reset, Faraday retry middleware \(defaults\): Faraday::ConnectionFailed, not retried$/,
      /^connection-reset, Faraday retry middleware with exceptions: \[ConnectionFailed\]: the caller saw 200; X-Sandbox-Warning names the retry interval$/,
      /^connection-reset, Net::HTTP default: the caller saw 200; X-Sandbox-Warning: this request repeats one that the connection-reset drill cut off \d+ ms ago/,
      /^connection-reset, Net::HTTP max_retries = 0: Errno::ECONNRESET$/,
    ]);
  }, 120_000);
});

describe('examples/php', () => {
  it('runs the tour, the drills and a chaos run with Guzzle over libcurl against the sandbox', async () => {
    const result = await run(PHP, ['examples/php/partner.php'], {
      SANDBOX_URL: server.url,
      SANDBOX_WAIT: 'clock',
    });
    expectLines(result, [
      /^partner: pa_\w+ created and seeded on the control plane$/,
      new RegExp(`^basic auth, Guzzle auth, secret "php\\+secret/42": ${NOT_FORM_ENCODED.source}`),
      /^basic auth, form-encoded first: 200$/,
      /^client_secret_post: 200$/,
      ...TOUR,
      /^status: dry run showed paused \(dry_run true\)/,
      // a reset on a fresh connection: RequestException, so a retry on ConnectException misses it
      /^connection-reset, fresh connection: GuzzleHttp\\Exception\\RequestException "cURL error 56: /,
      // on a reused connection libcurl resends it, a POST register without a key included
      /^connection-reset, reused connection: the caller saw 200; X-Sandbox-Warning names CURLOPT_FORBID_REUSE$/,
      /^connection-reset, reused connection, POST register: resent by libcurl, the caller saw 200$/,
    ]);
  }, 120_000);
});

describe('examples/java', () => {
  it('runs the tour, the drills and a chaos run with the JDK HttpClient, Jackson and google-oauth-client against the sandbox', async () => {
    const classpath = readFileSync(join(root, 'examples/java/classpath'), 'utf8').trim();
    const result = await run(
      JAVA,
      ['-Djdk.httpclient.redirects.retrylimit=1', '-cp', classpath, 'examples/java/Partner.java'],
      { SANDBOX_URL: server.url, SANDBOX_WAIT: 'clock' },
    );
    expectLines(result, [
      /^partner: pa_\w+ created and seeded on the control plane$/,
      new RegExp(
        `^basic auth, raw Base64 of id:secret, secret "java\\+secret/42": ${NOT_FORM_ENCODED.source}`,
      ),
      /^basic auth, form-encoded first: 200$/,
      // the JDK transport loses a 401's body; the Apache transport keeps it
      /^google-oauth-client BasicAuthentication, NetHttpTransport: 401, error null \(no body\)$/,
      /^google-oauth-client BasicAuthentication, ApacheHttpTransport: 401, error invalid_client$/,
      /^google-oauth-client ClientParametersAuthentication \(client_secret_post\), NetHttpTransport: Bearer$/,
      /^client_secret_post: 200$/,
      ...TOUR,
      /^typed envelope: a dry run's answer with Jackson's defaults: UnrecognizedPropertyException on "dry_run"; with @JsonIgnoreProperties\(ignoreUnknown = true\): dry_run true$/,
      /^connection-reset, PUT: IOException: HTTP\/1\.1 header parser received no bytes$/,
      /^connection-reset, GET with jdk\.httpclient\.redirects\.retrylimit=1: IOException: Too many retries$/,
      /^connection-reset, GET with the JDK's defaults: the JDK resent it, the caller saw 200/,
      /^basic auth, JDK Authenticator \(the JDK's defaults\): asked 4 times for the same raw pair, then IOException: too many authentication attempts\. Limit: 3$/,
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
