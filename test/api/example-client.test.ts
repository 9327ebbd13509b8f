/**
 * The typed partner client example (examples/partner-client) runs its whole happy path
 * and the documented recoveries against a live sandbox; its generated types match the
 * served document.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerClient } from '../../examples/partner-client/client.js';
import { generateTypes } from '../../examples/partner-client/generate-types.js';
import { runHappyPath } from '../../examples/partner-client/happy-path.js';
import { type Running, startServer } from '../../src/server.js';
import { DEMO, testConfig } from '../helpers/harness.js';

describe('examples/partner-client', () => {
  let server: Running;
  beforeAll(async () => {
    server = await startServer(testConfig({ port: 0 }));
  });
  afterAll(() => server?.close());

  it('runs the happy path with the propagation retry, the 409 recovery and a fresh key after a dry run', async () => {
    const client = partnerClient({
      baseUrl: server.url,
      clientId: DEMO.clientId,
      clientSecret: DEMO.clientSecret,
      parentAccountId: DEMO.parent,
    });
    const waits: number[] = [];
    const result = await runHappyPath(client, {
      // the sandbox clock stands in for real waiting
      wait: async (seconds) => {
        waits.push(seconds);
        await fetch(`${server.url}/__sandbox/clock/advance`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ seconds }),
        });
      },
    });
    expect(result.matchedOnRetry).toBe(true);
    expect(result.propagationRetries).toBe(3); // 60 s window, retried every 20 s
    expect(waits).toEqual([20, 20, 20]);
    expect(result.conflictsRecovered).toBe(1);
    expect(result.dryRunWasNotStored).toBe(true);
    expect(result.blockedSubVerticals.sort()).toEqual([2002, 4002, 4003, 5003]);
    expect(result.domains).toEqual(['competitor.example']);
    expect(result.status).toBe('paused');

    // and the sandbox's own report agrees on how the client behaved
    const report = (await (
      await fetch(`${server.url}/__sandbox/report?parent_account_id=${DEMO.parent}`)
    ).json()) as {
      checks: { id: string; outcome: string }[];
    };
    const outcomes = Object.fromEntries(
      report.checks.map((c: { id: string; outcome: string }) => [c.id, c.outcome]),
    );
    expect(outcomes).toMatchObject({
      'registered-idempotently': 'passed',
      'propagation-retries': 'passed',
      'stale-hash-recovery': 'passed',
      'fresh-key-after-dry-run': 'passed',
    });
  });

  it('has types generated from the served document (regenerate with generate-types.ts)', async () => {
    const committed = readFileSync(
      new URL('../../examples/partner-client/schema.d.ts', import.meta.url),
      'utf8',
    );
    expect(await generateTypes(`${server.url}/openapi.json`)).toBe(committed);
  });
});
