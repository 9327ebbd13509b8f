/**
 * Testcontainers (docs/testcontainers.md): the image in a GenericContainer from
 * examples/containers/testcontainers.ts, waited for on /__sandbox/health, then used as a
 * partner's suite would: the control client through the mapped port (the admin token
 * enforced), a token, register and controls, an armed drill, and `docker stop`.
 *
 * Run by `npm run test:image` (scripts/docker-env.sh provides the engine and the base image).
 * Testcontainers' reaper (Ryuk) is an image of Docker Hub, which this machine cannot pull:
 * vitest.image.config.ts sets TESTCONTAINERS_RYUK_DISABLED, and afterAll stops what it started.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxContainer, startSandboxContainer } from '../../examples/containers/testcontainers.js';
import { DEMO, registerBody } from '../helpers/harness.js';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const IMAGE = process.env.SANDBOX_IMAGE_TAG ?? 'partnership-sandbox:test';
const RUN = process.env.SANDBOX_IMAGE_TEST_RUN ?? String(process.pid);
const ADMIN = 'testcontainers-admin-token';

let sandbox: SandboxContainer | undefined;
let startedInMs = 0;

beforeAll(async () => {
  // The image test (image.test.ts) builds the image; when this file runs first, the same build
  // here (the classic builder's cache makes the second one take seconds).
  const present = await exec('docker', ['image', 'inspect', IMAGE]).then(
    () => true,
    () => false,
  );
  if (!present) await exec('docker', ['build', '--network=host', '-t', IMAGE, root], { maxBuffer: 64 << 20 });
  const t0 = performance.now();
  sandbox = await startSandboxContainer(IMAGE, {
    adminToken: ADMIN,
    labels: { 'sandbox-image-test': RUN }, // scripts/docker-env.sh removes what a crashed run left
  });
  startedInMs = performance.now() - t0;
}, 1_200_000);

afterAll(async () => {
  await sandbox?.stop();
  console.log(`\nTestcontainers: ${IMAGE} started and healthy in ${(startedInMs / 1000).toFixed(1)} s\n`);
}, 60_000);

describe('Testcontainers: a GenericContainer of the image, waited for on /__sandbox/health', () => {
  it('serves on the mapped port: health, the control plane with its admin token, a partner flow and a drill', async () => {
    const { url, control } = sandbox!;
    expect(url).toMatch(/^http:\/\/[^:]+:\d+$/);
    expect(await control.health()).toMatchObject({ status: 'ok' });
    // The admin token is enforced on the control plane, not on health.
    expect((await fetch(`${url}/__sandbox/requests`)).status).toBe(401);
    expect((await fetch(`${url}/__sandbox/health`)).status).toBe(200);

    const grant = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${DEMO.clientId}&client_secret=${DEMO.clientSecret}`,
    });
    expect(grant.status).toBe(200);
    const { access_token } = (await grant.json()) as { access_token: string };
    const headers = {
      Authorization: `Bearer ${access_token}`,
      'X-Platform-Parent-Account-Id': DEMO.parent,
      'Content-Type': 'application/json',
    };
    const registered = await fetch(`${url}/v1/accounts/register/partnership`, {
      method: 'POST',
      headers,
      body: JSON.stringify(registerBody()),
    });
    expect(registered.status).toBe(200);
    const account = ((await registered.json()) as { data: { account_id: string } }).data.account_id;
    const controls = `${url}/v1/partnership/accounts/${account}/marketplacecontrolslists`;
    const list = await fetch(controls, { headers });
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ status: 200, error: null, data: { account_id: account } });

    await control.scenarios.arm({ scenario: 'rate-limited', account_id: account, times: 1 });
    const limited = await fetch(controls, { headers });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await fetch(controls, { headers })).status).toBe(200);

    const journal = await control.requests.list({ account_id: account });
    expect(journal.requests.map((e) => e.status)).toEqual([200, 429, 200, 200]);
  });
});
