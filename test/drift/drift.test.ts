/**
 * Recordings and drift (docs/drift.md), through real listening servers: a sandbox
 * (the recorded upstream), the recording proxy in front of it (startRecorder, what `record`
 * runs), and verifyRecording (what `verify` runs) against a fresh embedded sandbox.
 *
 * - Self-parity: the getting-started tour, each §5 scenario a header carries, an idempotent
 *   replay, a stale-hash 409 and a seeded chaos run, recorded against a sandbox, verify with 0
 *   differences.
 * - Deviation: a test upstream that differs in one status, one error.code, one field name and
 *   one Retry-After is reported at those entries and paths, and nothing else.
 * - Redaction: no recording holds a secret or a token; the same token is the same placeholder.
 * - The HAR is HAR 1.2; `_contract` names what breaks the partner document.
 * - A Chrome DevTools export (fixtures/devtools.har) verifies; its page and assets are ignored.
 * - A file that is no HAR recording of the API is refused with one line saying why.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  RecordingError,
  type RunningSandbox,
  reportJson,
  reportJUnit,
  reportLines,
  startRecorder,
  startSandbox,
  type VerifyResult,
  verifyRecording,
} from '../../src/index.js';
import { DEVIATIONS, startDeviantUpstream } from './deviant-upstream.js';
import {
  Client,
  CONTROLS,
  chaosRun,
  DEMO,
  REGISTER,
  registerBody,
  replayAndStaleHash,
  STATUS,
  scenarios,
  tour,
} from './flows.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');
let dir: string;
let upstream: RunningSandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drift-'));
  upstream = await startSandbox();
});
afterAll(async () => {
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Records `flow` through a proxy in front of `target`; the HAR file and the stderr lines. */
async function record(name: string, target: string, flow: (c: Client) => Promise<unknown>) {
  const out = join(dir, `${name}.har`);
  const breaks: string[] = [];
  const recorder = await startRecorder({
    upstream: target,
    port: 0,
    out,
    onContractBreak: (l) => breaks.push(l),
  });
  try {
    await flow(new Client(recorder.url));
  } finally {
    await recorder.stop();
  }
  return { out, breaks, har: JSON.parse(readFileSync(out, 'utf8')) };
}

/** The text report, for a failure message that shows every difference. */
const shown = (r: VerifyResult) => reportLines(r).join('\n');

describe('self-parity: a recording of the sandbox verifies with 0 differences', () => {
  it('the getting-started tour (every endpoint, a dry run, rule 5, the spec errors)', async () => {
    const { out, breaks, har } = await record('tour', upstream.url, (c) => tour(c));
    expect(har.log.entries.length).toBeGreaterThanOrEqual(18);
    expect(breaks).toEqual([]); // the sandbox keeps its own document
    const result = await verifyRecording(out);
    expect(shown(result)).toMatch(/^\d+ entries: \d+ same, 0 differ, 0 not replayed, 0 ignored$/m);
    expect(result.totals).toMatchObject({ differ: 0, notReplayed: 0, ignored: 0 });
    expect(result.totals.same).toBe(har.log.entries.length);
    expect(result.ok).toBe(true);
    // against a running sandbox (--url), on a partner created there: the recorded one is taken, so mapped
    const remote = await verifyRecording(out, { url: upstream.url });
    expect(remote.totals.differ, shown(remote)).toBe(0);
    expect(remote.url).toBe(upstream.url);
    expect(remote.parentAccountId).not.toBe(DEMO.parent);
    const partners = await upstream.control.partners.list();
    expect(partners.partners.some((p) => p.parent_account_id === remote.parentAccountId)).toBe(true);
  });

  it('each scenario of §5 a header carries (auth-propagation through the clock, resets, the token endpoint)', async () => {
    const { out, har } = await record('scenarios', upstream.url, scenarios);
    const statuses = har.log.entries.map((e: { response: { status: number } }) => e.response.status);
    // the drills did what they drill
    for (const s of [0, 401, 403, 409, 429, 500, 502, 400]) expect(statuses).toContain(s);
    const result = await verifyRecording(out);
    expect(result.totals.differ, shown(result)).toBe(0);
    expect(result.totals.notReplayed, shown(result)).toBe(0);
    expect(result.totals.same).toBe(har.log.entries.length);
  });

  it('an idempotent replay (Idempotent-Replayed, the stored request_id) and a stale-hash 409 then its retry', async () => {
    const { out, har } = await record('replay', upstream.url, replayAndStaleHash);
    const replayed = har.log.entries.filter((e: { response: { headers: { name: string }[] } }) =>
      e.response.headers.some((h) => h.name.toLowerCase() === 'idempotent-replayed'),
    );
    expect(replayed).toHaveLength(2);
    const result = await verifyRecording(out);
    expect(result.totals.differ, shown(result)).toBe(0);
    expect(result.totals.same).toBe(har.log.entries.length);
  });

  it('a seeded chaos run: each injected failure replays as that failure, and the retries after it match', async () => {
    const chaotic = await startSandbox({ chaos: 'rate=0.35,seed=11' });
    try {
      const { out, har } = await record('chaos', chaotic.url, (c) => chaosRun(c));
      const injected = har.log.entries.filter(
        (e: { response: { status: number; headers: { name: string }[] } }) =>
          e.response.status === 0 ||
          e.response.headers.some((h) => h.name.toLowerCase() === 'x-sandbox-chaos'),
      );
      expect(injected.length).toBeGreaterThanOrEqual(4);
      const result = await verifyRecording(out);
      expect(result.totals.differ, shown(result)).toBe(0);
      expect(result.totals.same).toBe(har.log.entries.length);
    } finally {
      await chaotic.stop();
    }
  });
});

describe('deviation: a test upstream that differs in four ways', () => {
  it('each is reported at its entry and JSON path, and nothing else', async () => {
    const deviant = await startDeviantUpstream(upstream.url);
    try {
      const { out, breaks } = await record('deviant', deviant.url, async (c) => {
        await c.login();
        const account = (await c.call('POST', REGISTER, { body: registerBody(`deviant-${Date.now()}`) })).body
          .data.account_id;
        const list = await c.call('GET', CONTROLS(account));
        await c.call('PUT', CONTROLS(account), {
          body: {
            blockedVerticals: [],
            domains: [],
            contentHash: list.body.data.marketplace_controls_list.content_hash,
          },
        });
        await c.call('PUT', STATUS(account), { body: { status: 'active' } });
        await c.call('GET', STATUS(account), { scenario: 'rate-limited=2' });
        await c.call('GET', STATUS('acct_unknown_here'));
        await c.call('GET', STATUS(account));
      });
      // _contract names the three deviations the partner document can see (the Retry-After value it cannot)
      expect(breaks).toEqual([
        'record: entries[1] POST /v1/accounts/register/partnership 201: status 201 is not documented for POST /v1/accounts/register/partnership',
        expect.stringMatching(
          /^record: entries\[2\] GET \/v1\/partnership\/accounts\/acct_\w+\/marketplacecontrolslists 200: body \/data\/marketplace_controls_list must have required property 'domains'$/,
        ),
        'record: entries[6] GET /v1/partnership/accounts/acct_unknown_here/status 404: body /error/code must be equal to one of the allowed values',
      ]);
      const result = await verifyRecording(out);
      const differing = result.entries
        .filter((e) => e.outcome === 'differ')
        .map((e) => ({ index: e.index, method: e.method, differences: e.differences }));
      expect(differing).toEqual([
        { index: 1, method: 'POST', differences: [{ path: 'status', recorded: '201', sandbox: '200' }] },
        {
          index: 2,
          method: 'GET',
          differences: [
            {
              path: 'body.data.marketplace_controls_list.blocked_domains',
              recorded: 'an array of 0',
              sandbox: 'absent',
            },
            {
              path: 'body.data.marketplace_controls_list.domains',
              recorded: 'absent',
              sandbox: 'an array of 0',
            },
          ],
        },
        {
          index: 5,
          method: 'GET',
          differences: [
            { path: 'headers.Retry-After', recorded: `"${DEVIATIONS.retryAfter}"`, sandbox: '"2"' },
          ],
        },
        {
          index: 6,
          method: 'GET',
          differences: [
            {
              path: 'body.error.code',
              recorded: `"${DEVIATIONS.errorCode}"`,
              sandbox: '"account_not_found"',
            },
          ],
        },
      ]);
      expect(result.totals).toEqual({ entries: 8, same: 4, differ: 4, notReplayed: 0, ignored: 0 });
      expect(result.ok).toBe(false);
      const lines = reportLines(result);
      expect(lines).toContain('entries[6] GET /v1/partnership/accounts/acct_unknown_here/status');
      expect(lines).toContain('  body.error.code: recorded "not_found", sandbox "account_not_found"');
      expect(lines.at(-1)).toBe('8 entries: 4 same, 4 differ, 0 not replayed, 0 ignored');
      // the same as JSON and as JUnit (a test case per entry, a failure per differing one)
      const json = JSON.parse(reportJson(result));
      expect(json.totals).toEqual({ entries: 8, same: 4, differ: 4, not_replayed: 0, ignored: 0 });
      expect(json.entries[1]).toMatchObject({
        index: 1,
        outcome: 'differ',
        differences: [{ path: 'status' }],
      });
      const junit = reportJUnit(result);
      expect(junit.match(/<testcase /g)).toHaveLength(8);
      expect(junit.match(/<failure /g)).toHaveLength(4);
      expect(junit).toContain('tests="8" failures="4"');
    } finally {
      await deviant.close();
    }
  });

  it('message is compared only when asked (--messages), with the identifiers mapped back', async () => {
    const { out } = await record('messages', upstream.url, async (c) => {
      await c.login();
      await c.call('GET', STATUS('acct_unknown_too'));
    });
    const har = JSON.parse(readFileSync(out, 'utf8'));
    const body = JSON.parse(har.log.entries[1].response.content.text);
    body.message = 'Account not found, said differently.';
    har.log.entries[1].response.content.text = JSON.stringify(body);
    writeFileSync(out, JSON.stringify(har));
    expect((await verifyRecording(out)).totals.differ).toBe(0);
    const strict = await verifyRecording(out, { messages: true });
    expect(strict.entries[1]!.differences).toEqual([
      {
        path: 'body.message',
        recorded: '"Account not found, said differently."',
        sandbox: expect.stringMatching(/^".+"$/),
      },
    ]);
  });
});

describe('the recording file', () => {
  it('is HAR 1.2 with each exchange whole: request, answer, timings, _contract', async () => {
    const { har } = await record('shape', upstream.url, async (c) => {
      await c.login();
      await c.call('GET', `/v1/partnership/vertical-mappings?parent_account_id=${DEMO.parent}`);
    });
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator.name).toBe('partnership-sandbox record');
    const [, mappings] = har.log.entries;
    expect(mappings).toMatchObject({
      startedDateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      time: expect.any(Number),
      request: {
        method: 'GET',
        url: `${upstream.url}/v1/partnership/vertical-mappings?parent_account_id=${DEMO.parent}`,
        httpVersion: 'HTTP/1.1',
        queryString: [{ name: 'parent_account_id', value: DEMO.parent }],
        headersSize: -1,
      },
      response: { status: 200, statusText: 'OK', content: { mimeType: 'application/json' }, redirectURL: '' },
      cache: {},
      timings: { send: 0, wait: expect.any(Number), receive: expect.any(Number) },
      _contract: [],
    });
    expect(JSON.parse(mappings.response.content.text).data.vertical_mappings.length).toBeGreaterThan(3);
  });

  it('no secret and no token in any recording this file made; a token is the same placeholder wherever it goes', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.har'));
    expect(files.length).toBeGreaterThanOrEqual(6);
    const basic = Buffer.from(`${DEMO.clientId}:${DEMO.clientSecret}`).toString('base64');
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text, file).not.toContain(DEMO.clientSecret);
      expect(text, file).not.toContain(basic);
      expect(text, file).not.toMatch(/sbx_[A-Za-z0-9_-]{20}/); // the sandbox's access tokens
      expect(text, file).not.toMatch(/"(client_secret|access_token)":"(?!\[redacted:\d+\])/);
      expect(text, file).not.toMatch(/client_secret=(?!%5Bredacted%3A\d+%5D)/);
      // every token issued is the placeholder the calls after it send
      const har = JSON.parse(text);
      let token: string | undefined;
      for (const e of har.log.entries) {
        const auth = e.request.headers.find(
          (h: { name: string }) => h.name.toLowerCase() === 'authorization',
        )?.value;
        if (auth !== undefined) expect(auth, file).toMatch(/^(Bearer|Basic) \[redacted:\d+\]$/);
        if (token && auth?.startsWith('Bearer ')) expect(auth, file).toBe(`Bearer ${token}`);
        if (e.request.url.endsWith('/oauth/token') && e.response.status === 200) {
          token = JSON.parse(e.response.content.text).access_token;
          expect(token).toMatch(/^\[redacted:\d+\]$/);
        }
      }
    }
  });
});

describe('record cannot write its file', () => {
  it.runIf(process.platform === 'linux')(
    'a file it cannot write (a full disk: /dev/full) stops it before it listens, naming --out',
    async () => {
      const err = await startRecorder({ upstream: upstream.url, port: 0, out: '/dev/full' }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toBe('--out /dev/full: cannot write the recording (ENOSPC)');
    },
  );
});

describe('HAR from other tools', () => {
  it('a Chrome DevTools export (a page, its assets, XHR to the API): the API calls verify, the rest is ignored and counted', async () => {
    const result = await verifyRecording(join(FIXTURES, 'devtools.har'));
    expect(result.totals.differ, shown(result)).toBe(0);
    expect(result.totals.notReplayed, shown(result)).toBe(0);
    expect(result.totals.ignored).toBeGreaterThanOrEqual(5);
    expect(result.totals.same).toBeGreaterThanOrEqual(6);
    const reasons = result.entries.filter((e) => e.outcome === 'ignored').map((e) => e.reason);
    expect(reasons).toContain('a CORS preflight');
    expect(reasons.some((r) => r?.startsWith('another host'))).toBe(true);
  });

  it('an account registered before the recording began is "not replayed", with its reason, never a difference', async () => {
    const before = new Client(upstream.url);
    await before.login();
    const account = (await before.call('POST', REGISTER, { body: registerBody(`before-${Date.now()}`) })).body
      .data.account_id;
    const { out } = await record('before', upstream.url, async (c) => {
      await c.login();
      await c.call('GET', STATUS(account));
    });
    const result = await verifyRecording(out);
    expect(result.entries[1]).toMatchObject({
      outcome: 'not replayed',
      reason: `account ${account} was issued in no answer the recording holds, and the service answered 200 for it (registered before the recording began, or in an answer whose body was not recorded)`,
      differences: [],
    });
    expect(reportLines(result).at(-1)).toBe('2 entries: 1 same, 0 differ, 1 not replayed, 0 ignored');
    expect(result.ok).toBe(true);
  });
});

describe('a file that is no HAR recording of the API', () => {
  const cases: [string, string, RegExp][] = [
    ['not JSON', '<html>', /is not JSON \(.+\), so not a HAR file$/],
    ['no log', '{"entries":[]}', /is not a HAR file: no "log" object$/],
    [
      'entries not an array',
      '{"log":{"entries":{}}}',
      /is not a HAR file: log\.entries is object, not an array$/,
    ],
    [
      'an entry without a request',
      '{"log":{"entries":[{"response":{"status":200}}]}}',
      /log\.entries\[0\] is not a HAR entry: no request object$/,
    ],
    [
      'no entry of the API',
      JSON.stringify({
        log: {
          entries: [
            {
              startedDateTime: '2026-11-01T10:00:00.000Z',
              request: { method: 'GET', url: 'https://example.com/index.html', headers: [] },
              response: { status: 200, headers: [], content: { text: 'hi' } },
            },
          ],
        },
      }),
      /is no recording of the Partnership Accounts API: none of its 1 entries goes to \/oauth\/token or a \/v1\/ path of the API$/,
    ],
  ];
  it.each(cases)('%s: a RecordingError saying why, in one line', async (_name, text, message) => {
    const file = join(dir, 'bad.har');
    writeFileSync(file, text);
    const err = await verifyRecording(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordingError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('\n');
  });

  it('a file that is not there', async () => {
    const err = await verifyRecording(join(dir, 'missing.har')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordingError);
    expect((err as Error).message).toBe(`cannot read ${join(dir, 'missing.har')}: ENOENT`);
  });
});
