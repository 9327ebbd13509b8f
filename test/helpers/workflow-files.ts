/**
 * The GitHub Actions files as data, for test/house/workflows.test.ts and the image test that runs
 * the partner snippet's Docker steps (test/image/actions-snippet.test.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { bash, type ShellRun } from './shell.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SNIPPET = 'examples/github-actions/sandbox.yml';
export const RELEASE = '.github/workflows/release.yml';

export interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
export interface Job {
  needs?: string | string[];
  permissions?: Record<string, string>;
  env?: Record<string, string>;
  steps: Step[];
}

export const readRepoFile = (path: string) => readFileSync(join(ROOT, path), 'utf8');
export const jobsOf = (path: string) => (load(readRepoFile(path)) as { jobs: Record<string, Job> }).jobs;

/** The partner snippet's one job. */
export const snippetJob = (): Job => jobsOf(SNIPPET).integration!;

/** The snippet's run step whose name starts with `prefix`. */
export function snippetStep(prefix: string): Step & { run: string } {
  const found = snippetJob().steps.find((s) => s.name?.startsWith(prefix));
  if (!found?.run) throw new Error(`${SNIPPET} has no run step named "${prefix}…"`);
  return found as Step & { run: string };
}

/**
 * Runs a step's `run` as GitHub does on Linux (`bash --noprofile --norc -e {0}`), with the
 * job's env and then `env` over it.
 */
export function runStep(step: Step, cwd: string, env: Record<string, string> = {}): Promise<ShellRun> {
  return bash(step.run!, {
    cwd,
    args: ['--noprofile', '--norc', '-e'],
    env: { ...snippetJob().env, ...env },
  });
}
