import { defineConfig } from 'vitest/config';

/**
 * The end-to-end suite of generated servers on PostgreSQL (RESTSMITH_TEST_DB=postgres), and the tests only
 * PostgreSQL makes possible: several instances on one database. scripts/test.sh starts the servers it needs.
 */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts', 'test/postgres/**/*.test.ts'],
    // installing a generated project on its own, or restsmith's tarball, is about packaging, not the database: the
    // SQLite run has it
    // nor is the docs page in a browser, or what generate does to files (no server at all); nor whether the generated
    // tests fail on a server generated from a mutated definition: a property of the tests, which read the same
    // answers from either database (the SQLite run has it; it took 4 of CI's 45 minutes here)
    exclude: [
      'test/e2e/generated-tests-mutants.test.ts',
      'test/e2e/standalone-install.test.ts',
      'test/e2e/package.test.ts',
      'test/e2e/docs-page.test.ts',
      'test/e2e/target-safety.test.ts',
      'test/e2e/listing-shapes.test.ts',
      '**/node_modules/**',
    ],
    passWithNoTests: true,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
