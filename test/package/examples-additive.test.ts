/**
 * The additive-changes drill against a Go client (examples/go-additive, standard library
 * only): decoding the spec's tables with DisallowUnknownFields, it fails on the drill, as it
 * would on the API's next compatible release; the tolerant decoder reads the same values as
 * without the drill. A release test (Go from Debian's golang-go, which .ci/run installs).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from '../../src/server.js';
import { testConfig } from '../helpers/harness.js';

const example = fileURLToPath(new URL('../../examples/go-additive', import.meta.url));

function run(file: string, args: string[], env: Record<string, string> = {}, cwd = example) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    execFile(
      file,
      args,
      { cwd, env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', ...env }, timeout: 180_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          out: `${stdout}${stderr}`,
        }),
    );
  });
}

let server: Running;
let work: string;
beforeAll(async () => {
  server = await startServer(testConfig({ port: 0 }));
  work = mkdtempSync(join(tmpdir(), 'go-additive-'));
});
afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('examples/go-additive', () => {
  it('a strict client (DisallowUnknownFields) breaks on additive-changes; the tolerant one reads the same values', async () => {
    const binary = join(work, 'go-additive');
    const gocache = process.env.GOCACHE ?? join(tmpdir(), 'partnership-sandbox-go-build');
    const build = await run('go', ['build', '-o', binary, '.'], { GOCACHE: gocache });
    expect(build.code, build.out).toBe(0);
    const strict = await run(binary, ['-strict'], { SANDBOX_URL: server.url });
    expect(strict.code, strict.out).toBe(1);
    expect(strict.out).toMatch(/^strict: additive-changes broke the client: json: unknown field "\w+"$/m);
    const tolerant = await run(binary, [], { SANDBOX_URL: server.url });
    expect(tolerant.code, tolerant.out).toBe(0);
    expect(tolerant.out).toMatch(
      /^tolerant: additive-changes decoded, \d+ mappings, the same values: true$/m,
    );
  }, 200_000);
});
