import { defineConfig } from 'vitest/config';

// `npm test`: everything but the browser tests (those need Chromium: `npm run test:browser`,
// which .ci/run also runs after installing Debian's chromium).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.browser.test.ts', 'node_modules/**'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
