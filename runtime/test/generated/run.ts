import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm test`: your tests (test/*.test.ts) and the generated ones (test/generated/*.test.ts), with Node's test runner
 * through tsx. Arguments are passed on (`npm test -- --test-name-pattern=posts`).
 */
const files = ['test', join('test', 'generated')].flatMap((dir) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.test.ts'))
        .sort()
        .map((name) => join(dir, name))
    : [],
);
// which database the tests run on (see harness.ts)
console.log(
  process.env.TEST_DATABASE_URL === undefined
    ? '# on SQLite: a throwaway file per test file'
    : '# on PostgreSQL (TEST_DATABASE_URL): a throwaway schema per test file',
);
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...process.argv.slice(2), ...files], {
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
