import { defineConfig } from 'vitest/config';

// The app's framework-free logic (src/app/live, …); the views are tested in Chromium by test/.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
  },
});
