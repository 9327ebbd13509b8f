/**
 * The partner snippet of docs/in-your-ci.md (examples/github-actions/sandbox.yml), every run
 * step as written, in the job's order, with Docker: build the image from this repository
 * (SANDBOX_SOURCE), start it, wait for health, the partner test, the JUnit report, stop.
 * test/house/workflows.test.ts runs the steps that need no Docker in `npm test`; this one runs all.
 *
 * Only the job's env differs from a partner's: a free port and a container name of this run
 * (the engine and the host are shared), and `docker build` gets `--network=host` from a
 * shim, because this machine's engine gives bridged builds no outbound network
 * (scripts/docker-env.sh); a GitHub runner's engine does not need it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runStep, SNIPPET, snippetJob } from '../helpers/workflow-files.js';

const exec = promisify(execFile);
const RUN = process.env.SANDBOX_IMAGE_TEST_RUN ?? String(process.pid);
const CONTAINER = `sandbox-actions-snippet-${RUN}`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

const danglingVolumes = async () =>
  (await exec('docker', ['volume', 'ls', '-q', '--filter', 'dangling=true'])).stdout
    .split('\n')
    .filter(Boolean);

describe(`${SNIPPET}, every run step with Docker`, () => {
  let work: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'actions-snippet-image-'));
    const docker = (await exec('bash', ['-c', 'command -v docker'])).stdout.trim();
    writeFileSync(
      join(work, 'docker'),
      `#!/bin/sh\nif [ "$1" = build ]; then shift; exec ${docker} build --network=host "$@"; fi\nexec ${docker} "$@"\n`,
      { mode: 0o755 },
    );
    const port = await freePort();
    env = {
      SANDBOX_SOURCE: ROOT,
      SANDBOX_IMAGE: 'partnership-sandbox:actions-snippet',
      SANDBOX_CONTAINER: CONTAINER,
      SANDBOX_PORT: String(port),
      SANDBOX_URL: `http://127.0.0.1:${port}`,
      PATH: `${work}:${process.env.PATH}`,
    };
  });

  afterAll(async () => {
    await exec('docker', ['rm', '-f', '-v', CONTAINER]).catch(() => undefined);
    if (work) rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it('builds, starts, waits for health, tests, reports (JUnit) and stops, leaving no container or volume behind', async () => {
    const volumesBefore = await danglingVolumes();
    const steps = snippetJob().steps.filter((s) => s.run);
    expect(steps.map((s) => s.name)).toEqual([
      'Build the sandbox image',
      'Start the sandbox',
      'Wait until it is healthy',
      'Partner test (replace with your suite, pointed at SANDBOX_URL)',
      'Integration report (JUnit XML)',
      'Stop the sandbox',
    ]);
    for (const step of steps) {
      const result = await runStep(step, work, env);
      const tail = `${result.stdout}\n${result.stderr}`.split('\n').slice(-30).join('\n');
      expect(result.status, `${step.name}\n${tail}`).toBe(0);
      if (step.name!.startsWith('Wait')) expect(result.stdout).toContain('"status":"ok"');
      if (step.name!.startsWith('Partner test'))
        expect(result.stdout).toMatch(/^translated verticals: \d+$/m);
    }
    const xml = readFileSync(join(work, 'sandbox-report.xml'), 'utf8');
    expect(xml).toContain('<testsuites name="partnership-sandbox integration report"');
    expect(xml).toMatch(/name="Registration retried idempotently on external_account_id">\s*<system-out>/);
    expect(xml).not.toContain('<failure');
    // --rm: the container is gone once stopped, and with it the anonymous /data volume.
    // (the engine removes it just after `docker stop` returns)
    let left = 'unknown';
    for (let i = 0; i < 50 && left !== ''; i++) {
      if (i) await new Promise((r) => setTimeout(r, 200));
      left = (await exec('docker', ['ps', '-aq', '--filter', `name=^${CONTAINER}$`])).stdout.trim();
    }
    expect(left).toBe('');
    expect((await danglingVolumes()).filter((v) => !volumesBefore.includes(v))).toEqual([]);
  }, 900_000);
});
