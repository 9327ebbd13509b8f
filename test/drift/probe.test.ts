import { mkdtempSync, rmSync } from 'node:fs';
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
import { Client, STATUS, tour } from './flows.js';

let dir: string;
let upstream: RunningSandbox;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'drift-probe-'));
  upstream = await startSandbox();
});
afterAll(async () => {
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('verify: a 401 for a token the service never issued', () => {
  it('replays with the same wrong token: 0 differences', async () => {
    const out = join(dir, 'bad-token.har');
    const recorder = await startRecorder({ upstream: upstream.url, port: 0, out, onContractBreak: () => {} });
    try {
      const c = new Client(recorder.url);
      const account = await tour(c);
      const good = c.token;
      c.token = 'not-a-token-the-service-issued';
      const refused = await c.call('GET', STATUS(account));
      expect(refused.status).toBe(401);
      c.token = good;
      expect((await c.call('GET', STATUS(account))).status).toBe(200);
    } finally {
      await recorder.stop();
    }
    const result = await verifyRecording(out);
    expect(result.totals.differ, reportLines(result).join('\n')).toBe(0);
    expect(result.totals.notReplayed).toBe(0);
    expect(result.ok).toBe(true);
  });
});
