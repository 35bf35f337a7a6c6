import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ON_POSTGRES } from '../helpers/database.js';
import { generateFresh, ROOT, typecheckAndBuild } from '../helpers/project.js';

const run = promisify(execFile);
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

const examples = readdirSync(join(ROOT, 'examples')).filter((f) => /\.(ya?ml|json)$/.test(f));
/**
 * the benchmark's definition is generated and measured too: it must compile as cleanly; and writes whose rules admit
 * callers the read rules do not, with owners the tests cannot read off a record (found by a reviewer); and refs of
 * resources to themselves, which the generated tests fill with a record of the same collection
 */
const definitions = [
  ...examples.map((f) => join(ROOT, 'examples', f)),
  join(ROOT, 'bench/definition.yaml'),
  join(ROOT, 'test/e2e/fixtures/write-not-read.yaml'),
  join(ROOT, 'test/e2e/fixtures/self-refs.yaml'),
];

/** The tests a fixture's definition leaves no way to run: self-refs.yaml, the filter on a ref a unique key holds. */
const MOST_SKIPPED: Record<string, number> = { 'self-refs.yaml': 1 };

/** Every example generates a project that type-checks under strict TypeScript 7 and passes its own tests. */
describe.each(definitions)('%s', (definition) => {
  it('generates a project that type-checks, builds and passes its generated tests', async () => {
    const dir = await generateFresh(definition, `example-${definition.slice(ROOT.length + 1).replace(/\W/g, '-')}`);
    await typecheckAndBuild(dir);
    // what `npm test` runs; on the PostgreSQL run, in a schema of their own in its database
    const env = ON_POSTGRES ? { ...process.env, TEST_DATABASE_URL: process.env.RESTSMITH_TEST_PG_URL } : process.env;
    const { stdout } = await run(process.execPath, [TSX, 'test/generated/run.ts'], {
      cwd: dir,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(stdout).toMatch(/# fail 0/);
    const passed = Number(/# pass (\d+)/.exec(stdout)?.[1] ?? 0);
    expect(passed).toBeGreaterThan(2);
    // a test the definition leaves no way to run is skipped, and the run still passes: where the count is known, more
    // skips are tests lost (a reviewer found 75 of a self-ref's skipped, each record past the first refused)
    const most = MOST_SKIPPED[basename(definition)];
    if (most !== undefined) expect(Number(/# skipped (\d+)/.exec(stdout)?.[1] ?? 0)).toBeLessThanOrEqual(most);
  });
});

it('has at least two example domains', () => expect(examples.length).toBeGreaterThanOrEqual(2));
