import { defineConfig } from 'vitest/config';
import { RELEASE_TESTS } from './vitest.config.js';

// `npm run test:release`: the release tests (see vitest.config.ts), each on the built
// command line and package.
export default defineConfig({
  test: {
    include: RELEASE_TESTS,
    // The built command line is what the cli and crash tests start: build it from these sources first.
    globalSetup: ['test/helpers/build-once.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 240_000,
  },
});
