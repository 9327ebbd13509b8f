/**
 * verify on the recordings that used to break it (docs/drift.md), through verifyRecording over
 * real listening servers: a sandbox (the recorded upstream), `record` in front of it, and a
 * fresh embedded sandbox replayed against.
 *
 * - Legitimate entries `record` wrote from the sandbox are compared, never a crash: a path with
 *   a bad escape (`%ff`), a body holding an array of 130,000 elements, a taxonomy row that is
 *   `null`, entries spanning more than 100 years.
 * - A browser's HAR (Chromium through Playwright): a body the page never read (`content.size`
 *   -1) is not recorded, never an empty body; a request the browser blocked (`status` -1) is not
 *   replayed, as DevTools' 0 is.
 * - `--messages`: the identifiers inside a message are mapped before it is compared.
 * - An account never issued in the recording: every recorded status but a success is compared.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningSandbox,
  reportLines,
  startRecorder,
  startSandbox,
  verifyRecording,
} from '../../src/index.js';
import { Client, CONTROLS, MAPPINGS, REGISTER, registerBody, STATUS } from './flows.js';

let dir: string;
let upstream: RunningSandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drift-edges-'));
  upstream = await startSandbox();
});
afterAll(async () => {
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: a HAR document, edited field by field
type Har = any;

/** Records `flow` through `record` in front of the upstream sandbox; the file and its HAR. */
async function record(
  name: string,
  flow: (c: Client) => Promise<unknown>,
): Promise<{ out: string; har: Har }> {
  const out = join(dir, `${name}.har`);
  const recorder = await startRecorder({ upstream: upstream.url, port: 0, out });
  try {
    await flow(new Client(recorder.url));
  } finally {
    await recorder.stop();
  }
  return { out, har: JSON.parse(readFileSync(out, 'utf8')) };
}

const save = (out: string, har: Har) => writeFileSync(out, JSON.stringify(har));
const shown = (r: Awaited<ReturnType<typeof verifyRecording>>) => reportLines(r).join('\n');

async function registered(c: Client): Promise<string> {
  await c.login();
  return (await c.call('POST', REGISTER, { body: registerBody(`edge-${Date.now()}-${Math.random()}`) })).body
    .data.account_id;
}

describe('entries record wrote from the sandbox are compared, never a crash', () => {
  it('a path with a bad escape (%ff): replayed as recorded, the same answer', async () => {
    const { out, har } = await record('bad-escape', async (c) => {
      await c.login();
      await c.call('GET', STATUS('%ff'));
      await c.call('GET', '/v1/partnership/accounts/%ff/layouts/%e0%a4');
    });
    expect(har.log.entries[1].request.url).toMatch(/\/accounts\/%ff\/status$/);
    const result = await verifyRecording(out);
    expect(result.totals, shown(result)).toEqual({
      entries: 3,
      same: 3,
      differ: 0,
      notReplayed: 0,
      ignored: 0,
    });
  });

  it('a 260 KB body holding an array of 130,000 elements, in the request and in the answer', async () => {
    const domains = new Array(130_000).fill(0);
    const { out, har } = await record('big-array', async (c) => {
      const account = await registered(c);
      await c.call('PUT', CONTROLS(account), {
        body: { name: 'x', blockedVerticals: [], domains, contentHash: null },
      });
    });
    expect(har.log.entries[2].request.postData.text.length).toBeGreaterThan(260_000);
    // the same array in the recorded answer
    const list = JSON.parse(har.log.entries[2].response.content.text);
    list.details_of_a_service = domains;
    har.log.entries[2].response.content.text = JSON.stringify(list);
    save(out, har);
    const result = await verifyRecording(out);
    expect(result.entries[2]!.differences, shown(result)).toEqual([
      { path: 'body.details_of_a_service', recorded: 'an array of 130000', sandbox: 'absent' },
    ]);
    expect(result.totals).toMatchObject({ same: 2, differ: 1 });
  });

  it('a recorded answer nested 100,000 deep: compared, no stack overflow', async () => {
    const { out, har } = await record('deep', async (c) => {
      await c.login();
      await c.call('GET', STATUS('acct_deep'));
    });
    const deep = `${'['.repeat(100_000)}1${']'.repeat(100_000)}`;
    har.log.entries[1].response.content.text = deep;
    save(out, har);
    const result = await verifyRecording(out);
    expect(result.entries[1]!.outcome).toBe('differ');
    expect(result.entries[1]!.differences[0]).toEqual({
      path: 'body',
      recorded: 'an array of 1',
      sandbox: 'an object',
    });
  });

  it('a recorded taxonomy row that is null: the other rows are seeded, and the row is a difference', async () => {
    const { out, har } = await record('null-row', async (c) => {
      await c.login();
      await c.call('GET', MAPPINGS);
    });
    const body = JSON.parse(har.log.entries[1].response.content.text);
    const rows = body.data.vertical_mappings.length;
    body.data.vertical_mappings.push(null);
    har.log.entries[1].response.content.text = JSON.stringify(body);
    save(out, har);
    const result = await verifyRecording(out);
    expect(result.entries[1]!.differences, shown(result)).toEqual([
      { path: 'body.data.vertical_mappings', recorded: `${rows + 1} entries`, sandbox: `${rows} entries` },
    ]);
  });

  it('entries spanning more than 100 years: the clock goes as far as it can, and the replay goes on', async () => {
    const { out, har } = await record('centuries', async (c) => {
      await c.login();
      for (let i = 0; i < 13; i++) await c.call('GET', STATUS('acct_in_no_year'));
    });
    const start = Date.parse(har.log.entries[0].startedDateTime);
    har.log.entries.forEach((e: Har, i: number) => {
      e.startedDateTime = new Date(start + i * 10 * 365 * 86_400_000).toISOString();
    });
    save(out, har);
    const result = await verifyRecording(out);
    expect(result.totals.entries).toBe(14);
    // the token expired after the first ten years: a difference, the entries after it replayed
    expect(result.totals.same + result.totals.differ).toBe(14);
  });
});

describe('HAR from a browser (Chromium through Playwright recordHar)', () => {
  it('content.size -1 (a body the page never read) is not recorded: status and headers compared, never the body', async () => {
    const { out, har } = await record('unread', async (c) => {
      await c.login();
      await c.call('GET', MAPPINGS);
      await c.call('GET', STATUS('acct_unread'));
    });
    for (const i of [1, 2]) har.log.entries[i].response.content = { size: -1, mimeType: 'x-unknown' };
    har.log.entries[2].response.status = 418;
    save(out, har);
    const result = await verifyRecording(out);
    expect(result.entries[1], shown(result)).toMatchObject({ outcome: 'same', differences: [] });
    expect(result.entries[2]!.differences).toEqual([{ path: 'status', recorded: '418', sandbox: '404' }]);
  });

  it('status -1 (a request the browser blocked) is not replayed: no answer was recorded, as 0 is', async () => {
    const { out, har } = await record('blocked', async (c) => {
      await c.login();
      await c.call('GET', MAPPINGS);
      await c.call('GET', MAPPINGS);
    });
    Object.assign(har.log.entries[1].response, {
      status: -1,
      content: { size: -1, mimeType: 'x-unknown' },
      _failureText: 'net::ERR_BLOCKED_BY_CLIENT',
    });
    Object.assign(har.log.entries[2].response, { status: 0, content: { size: 0, mimeType: 'x-unknown' } });
    save(out, har);
    const result = await verifyRecording(out);
    expect(result.entries.slice(1)).toMatchObject([
      { outcome: 'not replayed', reason: 'no answer was recorded (net::ERR_BLOCKED_BY_CLIENT)' },
      { outcome: 'not replayed', reason: 'no answer was recorded (status 0)' },
    ]);
    expect(result.ok).toBe(true);
  });
});

describe('--messages', () => {
  it("the sandbox's own partial-failure messages, request_id inside, verify with 0 differences", async () => {
    const { out, har } = await record('partial', async (c) => {
      const account = await registered(c);
      await c.call('PUT', STATUS(account), {
        body: { status: 'active' },
        scenario: 'status-partial-failure',
      });
      await c.call('PUT', STATUS(account), {
        body: { status: 'paused' },
        scenario: 'status-partial-failure=1',
      });
    });
    const message = JSON.parse(har.log.entries[2].response.content.text).message;
    expect(message).toMatch(/Keep request_id \S+ and contact support/);
    const result = await verifyRecording(out, { messages: true });
    expect(result.totals.differ, shown(result)).toBe(0);
    // and a message that really differs still does
    const body = JSON.parse(har.log.entries[3].response.content.text);
    body.message = body.message.replace('contact support', 'call us');
    har.log.entries[3].response.content.text = JSON.stringify(body);
    save(out, har);
    const again = await verifyRecording(out, { messages: true });
    expect(again.entries[3]!.differences).toEqual([
      { path: 'body.message', recorded: expect.stringContaining('call us'), sandbox: expect.any(String) },
    ]);
    expect(again.totals.differ).toBe(1);
  });
});

describe('an account never issued in the recording', () => {
  it.each([403, 410])(
    'a recorded %i is compared with the sandbox answer (404), not skipped',
    async (status) => {
      const { out, har } = await record(`unknown-${status}`, async (c) => {
        await c.login();
        await c.call('GET', STATUS('acct_never_seen'));
      });
      har.log.entries[1].response.status = status;
      save(out, har);
      const result = await verifyRecording(out);
      expect(result.entries[1]).toMatchObject({
        outcome: 'differ',
        differences: expect.arrayContaining([{ path: 'status', recorded: String(status), sandbox: '404' }]),
      });
      expect(result.ok).toBe(false);
    },
  );

  it('a recorded success is not replayed, and the reason says what the recording shows', async () => {
    const before = new Client(upstream.url);
    const account = await registered(before);
    const { out } = await record('before-200', async (c) => {
      await c.login();
      await c.call('GET', STATUS(account));
    });
    const result = await verifyRecording(out);
    expect(result.entries[1]).toMatchObject({
      outcome: 'not replayed',
      reason: `account ${account} was issued in no answer the recording holds, and the service answered 200 for it (registered before the recording began, or in an answer whose body was not recorded)`,
    });
  });
});
