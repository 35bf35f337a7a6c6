import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // end-to-end tests generate, compile and start real servers
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
