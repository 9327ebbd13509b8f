/**
 * Past one machine: cells (docs/hosting.md). SANDBOX_CELL names the sandbox's cell; health and
 * the report (JSON and JUnit) show it as `cell`. Without one, both answer as they always did
 * (no `cell`). The deployment through the real HAProxy is test/hosted/haproxy.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/start.js';
import { createHarness, DEMO } from '../helpers/harness.js';

describe('SANDBOX_CELL: the cell in health and the report', () => {
  it('GET /__sandbox/health shows the cell', async () => {
    const h = createHarness({ cell: 'cell-a' });
    const res = await h.request('GET', '/__sandbox/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', cell: 'cell-a', store: { writable: true, problem: null } });
  });

  it('without a cell, health has no cell field', async () => {
    const h = createHarness();
    const res = await h.request('GET', '/__sandbox/health');
    expect(res.body).toEqual({ status: 'ok', store: { writable: true, problem: null } });
  });

  it('the report names the cell, in JSON and as a JUnit property of the suite', async () => {
    const h = createHarness({ cell: 'cell-b' });
    const json = await h.request('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}`);
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ parent_account_id: DEMO.parent, cell: 'cell-b' });
    const junit = await h.request('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}&format=junit`);
    expect(junit.status).toBe(200);
    expect(junit.text).toMatch(
      new RegExp(
        `<testsuite name="${DEMO.parent}"[^>]*>\\n    <properties>\\n      <property name="cell" value="cell-b"/>\\n    </properties>\\n    <testcase`,
      ),
    );
  });

  it('without a cell, the report has none', async () => {
    const h = createHarness();
    const json = await h.request('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}`);
    expect(json.body).not.toHaveProperty('cell');
    const junit = await h.request('GET', `/__sandbox/report?parent_account_id=${DEMO.parent}&format=junit`);
    expect(junit.text).not.toContain('<properties>');
  });
});

describe('startSandbox({ cell, rateLimit })', () => {
  it('takes both as the environment spells them', async () => {
    const sandbox = await startSandbox({ cell: 'cell-c', rateLimit: '0.1,burst=1' });
    try {
      expect(await sandbox.control.health()).toMatchObject({ status: 'ok', cell: 'cell-c' });
      const mappings = `${sandbox.url}/v1/partnership/vertical-mappings`;
      expect((await fetch(mappings)).status).toBe(401); // no known partner: its one call
      const limited = await fetch(mappings);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('10');
    } finally {
      await sandbox.stop();
    }
  });

  it('a bad one rejects naming the option', async () => {
    await expect(startSandbox({ cell: 'Cell A' })).rejects.toThrow(
      'startSandbox: invalid option cell="Cell A": must be a DNS label: 1 to 63 of a-z, 0-9 and -',
    );
    await expect(startSandbox({ rateLimit: '0' })).rejects.toThrow(
      /^startSandbox: invalid option rateLimit="0": calls per second must be a number above 0/,
    );
  });
});
