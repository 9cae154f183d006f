import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // A worker's test files share its modules (the simulator, the locator, TF.js): imported once, not once per
    // file. No test file changes global state another reads; the CLI tests run the built CLI in child processes.
    isolate: false,
  },
});
