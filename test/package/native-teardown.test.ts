/**
 * The native addon survives teardown on this Node line: a forked process, and a worker
 * thread inside one, each prepare and drop thousands of statements, leave the database
 * open and exit (naturally or by process.exit). better-sqlite3 12 on Node 24 aborted at
 * this point ("Assertion failed: (env) != nullptr" in Statement::~Statement), killing
 * vitest's forked workers; .ci/run runs this file on Node 24 and on Node 22.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('./native/statement-churn.mjs', import.meta.url));

function run(...args: string[]): Promise<{ code: number | null; signal: string | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(script, args, { stdio: 'pipe', execArgv: ['--expose-gc'] });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal, output }));
  });
}

describe(`better-sqlite3 at teardown on Node ${process.versions.node}`, () => {
  for (const how of ['natural', 'exit']) {
    it(`a forked process that drops many statements exits 0 (${how === 'exit' ? 'process.exit(0)' : 'natural end'})`, async () => {
      const result = await run(how, 'process');
      expect(result.output).not.toMatch(/Assertion failed|Aborted|Segmentation/);
      expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    });

    it(`a worker thread in a forked process drops many statements and ends, and the process exits 0 (${how === 'exit' ? 'process.exit(0)' : 'natural end'})`, async () => {
      const result = await run(how, 'worker');
      expect(result.output).not.toMatch(/Assertion failed|Aborted|Segmentation/);
      expect(result.output).toContain('worker done');
      expect(result.output).toContain('worker exited 0');
      expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    });
  }
});
