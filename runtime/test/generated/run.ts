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
const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...process.argv.slice(2), ...files], {
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
