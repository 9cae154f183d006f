import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60000,
    // A worker's test files share its modules (the capture readers, the simulator): imported once, not once
    // per file. No test file changes global state another reads.
    isolate: false,
  },
});
