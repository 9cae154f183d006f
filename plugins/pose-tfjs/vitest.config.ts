import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 120000,
    hookTimeout: 120000,
    // TF.js keeps one backend per process: run files one after another in one worker.
    fileParallelism: false,
    // ...and let them share that worker's modules: TF.js, its WASM backend and the simulator are imported
    // once instead of once per file (about 70 of the package's 610 s in CI). No file changes global state
    // the others read: the backend test puts the WASM backend back after its CPU comparison.
    isolate: false,
  },
});
