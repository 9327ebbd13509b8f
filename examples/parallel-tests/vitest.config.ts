import { defineConfig } from 'vitest/config';

// Both files run at once (one worker each) against the sandbox at SANDBOX_URL.
export default defineConfig({
  test: { include: ['*.test.ts'], pool: 'forks', fileParallelism: true },
});
