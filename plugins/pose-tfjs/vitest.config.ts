import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 120000,
    hookTimeout: 120000,
    // TF.js keeps one backend per process: run files one after another in one worker.
    fileParallelism: false,
  },
});
