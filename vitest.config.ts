import { defineConfig } from 'vitest/config';

// `npm test`: everything but the browser tests (those need Chromium: `npm run test:browser`,
// which .ci/run also runs after installing Debian's chromium) and the Docker image test
// (it needs an engine: `npm run test:image`, also run by .ci/run).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.browser.test.ts', 'test/image/**', 'node_modules/**'],
    // The built command line is what cli and crash tests start: build it from these sources first.
    globalSetup: ['test/build-once.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
