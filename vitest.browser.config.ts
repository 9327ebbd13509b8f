import { defineConfig } from 'vitest/config';

// `npm run test:browser`: the pages in real headless Chromium (/usr/bin/chromium).
export default defineConfig({
  test: {
    include: ['test/**/*.browser.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
