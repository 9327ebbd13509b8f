/**
 * docs/parallel-tests.md: the two example test files
 * (examples/parallel-tests) run at once, in their own vitest, against one live sandbox.
 * One advances its partner clock by 25 h and resets its partner; the other, polling
 * meanwhile, sees its account, token and clock unaffected.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { testConfig } from '../helpers/harness.js';

const dir = fileURLToPath(new URL('../../examples/parallel-tests', import.meta.url));
let server: Running;
beforeAll(async () => {
  server = await startServer(testConfig({ port: 0 }));
});
afterAll(() => server?.close());

it('runs the two example files in parallel against one sandbox, both green', async () => {
  const vitest = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
  // Asynchronous: the sandbox answers from this process while the child runs.
  const run = await new Promise<{ status: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', '--root', dir, '--reporter', 'verbose'], {
      env: { ...process.env, SANDBOX_URL: server.url, NO_COLOR: '1' },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (status) => resolve({ status, out }));
  });
  expect(run.out).toMatch(/2 passed/);
  expect(run.status, run.out).toBe(0);
  // Both files' partners were really used: two tenants besides the fixtures.
  expect(server.sandbox.store.partners.all().length).toBe(4);
}, 60_000);
