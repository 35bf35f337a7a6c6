import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // run by vitest.postgres.config.ts, against the PostgreSQL and Redis that scripts/test.sh starts
    exclude: ['test/postgres/**', '**/node_modules/**'],
    // end-to-end tests generate, compile and start real servers
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
