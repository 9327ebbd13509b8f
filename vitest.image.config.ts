import { defineConfig } from 'vitest/config';

// `npm run test:image`: the Docker image, built from the working tree and run
// (test/image/). It needs an engine and the base image: the script runs it through
// scripts/docker-env.sh, which provides both. `npm test` leaves it out.
export default defineConfig({
  test: {
    include: ['test/image/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 1_200_000,
    // Testcontainers' reaper (Ryuk) is an image of Docker Hub, which CI machines here cannot
    // pull; test/image/testcontainers.test.ts stops its container itself.
    env: { TESTCONTAINERS_RYUK_DISABLED: 'true' },
  },
});
