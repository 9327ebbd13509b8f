import { defineConfig } from 'vitest/config';

/**
 * The release tests: each starts processes of its own (the packed npm package, the built
 * command line, crash drills, the Go and Python examples, example projects under their own
 * vitest, forked workers that tear the native addon down), so they take minutes and test
 * the release rather than a rule. `npm run test:release` runs them
 * (vitest.release.config.ts); `npm test` leaves them out. .ci/run also runs the package and
 * native teardown tests on Node 22.
 */
export const RELEASE_TESTS = [
  'test/package/package.test.ts',
  'test/package/cli.test.ts',
  'test/mcp/mcp-bin.test.ts',
  // the built bin and package on this machine's Node 20 (Debian 12's): refused with one line
  'test/package/old-node.test.ts',
  'test/package/crash.test.ts',
  'test/package/examples-lang.test.ts',
  // the additive-changes drill against a strict and a tolerant Go client (Go from Debian)
  'test/package/examples-additive.test.ts',
  'test/package/runtime-image.test.ts',
  'test/control/isolation-example.test.ts',
  'test/package/native-teardown.test.ts',
  'test/scenarios/chaos-startup.test.ts',
  'test/state/store-full-disk.test.ts',
  // npm run sbom: a production install from the lockfile in a temporary folder
  'test/package/sbom.test.ts',
  // record and verify as the built bin: processes, signals, kill -9, an HTTPS upstream (openssl)
  'test/drift/drift-cli.test.ts',
  // third-party clients and tools against a listening sandbox or its documents: OAuth
  // libraries, ky's retries, client generators and tsc in a throwaway project, and the
  // linters partners run (Spectral, Redocly, swagger-parser)
  'test/interop/**/*.test.ts',
  'test/api/openapi-lint.test.ts',
  // cells behind the real HAProxy (Debian's haproxy): three sandbox processes and the balancer
  'test/hosted/**/*.test.ts',
];

// `npm test`: the suites that check behaviour. Left out: the release tests above, the
// browser tests (they need Chromium: `npm run test:browser`) and the Docker image test (it
// needs an engine: `npm run test:image`); .ci/run runs all four commands.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.browser.test.ts', 'test/image/**', 'node_modules/**', ...RELEASE_TESTS],
    pool: 'forks',
    // The files of a worker share its module cache: zod, hono and the app are loaded once per
    // worker, not once per file (the suite takes about 2 minutes on 2 cores; isolated, almost twice that). Safe
    // because every test builds its own sandbox and none mocks a module, stubs a global or
    // sets an env var: test/house/suite-hygiene.test.ts keeps it so.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
