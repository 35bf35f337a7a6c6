import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateFresh, ROOT, WORK } from '../helpers/project.js';

const run = promisify(execFile);

/**
 * The tests restsmith writes into a project fail when the server breaks a rule of the definition: the blog's
 * generated tests are run against servers generated from mutated definitions (a rule widened, a `when` removed), and
 * must fail, naming the row of the matrix or the action that broke. Against the blog's own server they pass.
 */
const BLOG = readFileSync(join(ROOT, 'examples/blog.yaml'), 'utf8');
let tests: string;

/** Runs the blog's generated tests on a server generated from `definition`: the exit code and the output. */
async function blogTestsAgainst(name: string, definition: string): Promise<{ code: number; out: string }> {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, `${name}.yaml`);
  writeFileSync(file, definition);
  const dir = await generateFresh(file, name);
  for (const test of readdirSync(tests)) copyFileSync(join(tests, test), join(dir, 'test/generated', test));
  const tsx = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
  return run(process.execPath, [tsx, 'test/generated/run.ts'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
  );
}

/** The names of the failed tests in node:test's output. */
const failed = (out: string): string[] =>
  [...out.matchAll(/^ *not ok \d+ - (.+)$/gm)]
    .map((m) => m[1] ?? '')
    .filter((name) => !/^(access|actions|who may|the actions of)/.test(name));

/** `from` replaced by `to` in the blog's definition, once: the mutation must apply. */
function mutated(from: string, to: string): string {
  expect(BLOG).toContain(from);
  return BLOG.replace(from, to);
}

beforeAll(async () => {
  mkdirSync(WORK, { recursive: true });
  const dir = await generateFresh(join(ROOT, 'examples/blog.yaml'), 'mutants-original');
  tests = join(WORK, 'mutants-tests');
  mkdirSync(tests, { recursive: true });
  for (const test of readdirSync(join(dir, 'test/generated')))
    if (test.endsWith('.test.ts') || test === 'fixtures.ts')
      copyFileSync(join(dir, 'test/generated', test), join(tests, test));
});

describe("a project's generated tests", () => {
  it('pass against the server of their own definition', { timeout: 120_000 }, async () => {
    const result = await blogTestsAgainst('mutant-none', BLOG);
    expect(result.code, result.out.slice(-3000)).toBe(0);
  });

  it.each([
    {
      mutation: 'an action rule widened to anyone with a token',
      definition: () =>
        mutated('access: [admin, editor]\n        when', 'access: [admin, editor, authenticated]\n        when'),
      fails: ['publish as stranger: 403'],
    },
    {
      mutation: 'a delete rule widened',
      definition: () =>
        mutated('update: [admin, owner], delete: admin }', 'update: [admin, owner], delete: [admin, owner] }'),
      fails: ['delete as owner: 403'],
    },
    {
      mutation: "an action's `when` removed",
      definition: () => mutated('        when: { status: [draft] }\n', ''),
      fails: ['publish sets its fields, once'],
    },
    {
      mutation: 'a public listing made to need a token',
      definition: () => mutated('      list: public\n', '      list: authenticated\n'),
      fails: ['list as no token: 200'],
    },
  ])('fail against a server with $mutation', { timeout: 120_000 }, async ({ mutation, definition, fails }) => {
    const result = await blogTestsAgainst(`mutant-${mutation.replace(/[^a-z]+/g, '-')}`, definition());
    expect(result.code).not.toBe(0);
    expect(failed(result.out)).toEqual(expect.arrayContaining(fails));
  });
});
