import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateFresh, ROOT, WORK } from '../helpers/project.js';

const run = promisify(execFile);

/**
 * The tests restsmith writes into a project fail when the server breaks a rule of the definition: the examples'
 * generated tests are run against servers generated from mutated definitions (a rule widened, a `when` removed, a
 * limit changed), and must fail, naming the row of the matrix, the action or the listing that broke. Against the
 * servers of their own definitions they pass. The library's mutants break its relations: a nested route under a record
 * the caller may not read, an embedded record the caller may not read, what a delete does to the records referring to
 * the one deleted, who may link.
 */
const BASES = ['blog', 'clinic', 'library'] as const;
type Base = (typeof BASES)[number];
const source = (base: Base): string => readFileSync(join(ROOT, `examples/${base}.yaml`), 'utf8');
/** per example: the folder its own generated tests were copied to */
const tests = {} as Record<Base, string>;

/** Runs an example's generated tests on a server generated from `definition`: the exit code and the output. */
async function testsAgainst(base: Base, name: string, definition: string): Promise<{ code: number; out: string }> {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, `${name}.yaml`);
  writeFileSync(file, definition);
  const dir = await generateFresh(file, name);
  for (const test of readdirSync(tests[base])) copyFileSync(join(tests[base], test), join(dir, 'test/generated', test));
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

/** `from` replaced by `to` in an example's definition, once: the mutation must apply. */
function mutated(base: Base, from: string, to: string): string {
  const text = source(base);
  expect(text).toContain(from);
  return text.replace(from, to);
}

beforeAll(async () => {
  mkdirSync(WORK, { recursive: true });
  for (const base of BASES) {
    const dir = await generateFresh(join(ROOT, `examples/${base}.yaml`), `mutants-${base}`);
    tests[base] = join(WORK, `mutants-${base}-tests`);
    mkdirSync(tests[base], { recursive: true });
    for (const test of readdirSync(join(dir, 'test/generated')))
      // the tests and the tables they read (derived from the example's own definition)
      if (test.endsWith('.test.ts') || test.endsWith('.json') || test === 'fixtures.ts')
        copyFileSync(join(dir, 'test/generated', test), join(tests[base], test));
  }
});

describe("a project's generated tests", () => {
  it.each(BASES)('of %s pass against the server of their own definition', { timeout: 120_000 }, async (base) => {
    const result = await testsAgainst(base, `mutant-none-${base}`, source(base));
    expect(result.code, result.out.slice(-3000)).toBe(0);
  });

  it.each([
    {
      base: 'blog' as Base,
      mutation: 'an action rule widened to anyone with a token',
      definition: () =>
        mutated(
          'blog',
          'access: [admin, editor]\n        when',
          'access: [admin, editor, authenticated]\n        when',
        ),
      fails: ['publish as stranger: 403'],
    },
    {
      base: 'blog' as Base,
      mutation: 'a delete rule widened',
      definition: () =>
        mutated('blog', 'update: [admin, owner], delete: admin }', 'update: [admin, owner], delete: [admin, owner] }'),
      fails: ['delete as owner: 403'],
    },
    {
      base: 'blog' as Base,
      mutation: "an action's `when` removed",
      definition: () => mutated('blog', '        when: { status: [draft] }\n', ''),
      fails: ['publish sets its fields, once'],
    },
    {
      base: 'blog' as Base,
      mutation: 'a public listing made to need a token',
      definition: () => mutated('blog', '      list: public\n', '      list: authenticated\n'),
      fails: ['list as no token: 200'],
    },
    {
      base: 'blog' as Base,
      mutation: 'a larger largest page',
      definition: () => mutated('blog', 'pageSize: { default: 20, max: 100 }', 'pageSize: { default: 20, max: 500 }'),
      fails: ['refuses a limit past the largest page'],
    },
    {
      base: 'clinic' as Base,
      mutation: "an update's `when` widened to every state",
      definition: () =>
        mutated(
          'clinic',
          '        access: [receptionist, owner]\n        when: { status: booked }\n      delete',
          '        access: [receptionist, owner]\n        when: { status: [booked, cancelled, done] }\n      delete',
        ),
      fails: ['update is a 409 outside {"status":["booked"]}'],
    },
    {
      base: 'clinic' as Base,
      mutation: "a delete's `when` removed",
      definition: () =>
        mutated('clinic', 'delete: { access: admin, when: { status: [booked, cancelled] } }', 'delete: admin'),
      fails: ['delete is a 409 outside {"status":["booked","cancelled"]}'],
    },
    {
      base: 'library' as Base,
      mutation: "an owner's records made readable to anyone with a token",
      definition: () =>
        mutated(
          'library',
          'access: { list: owner, read: owner, create: authenticated',
          'access: { list: owner, read: authenticated, create: authenticated',
        ),
      // the books of another's reading list: the list is no longer theirs alone
      fails: ['GET /reading-lists/{id}/books as stranger: 404'],
    },
    {
      base: 'library' as Base,
      mutation: 'reviews readable by anyone with a token',
      definition: () =>
        mutated(
          'library',
          'read: [librarian, owner], create: authenticated',
          'read: authenticated, create: authenticated',
        ),
      // a book's reviews embedded for a stranger: only those they may read, by the definition
      fails: ['include=reviews as stranger embeds what they may read'],
    },
    {
      base: 'library' as Base,
      mutation: "a cascade turned into the default (a book's reviews keep it from being deleted)",
      definition: () =>
        mutated(
          'library',
          'bookId: { type: ref, to: books, required: true, onDelete: cascade }\n      readerId',
          'bookId: { type: ref, to: books, required: true }\n      readerId',
        ),
      fails: ['deleting a record: onDelete cascade'],
    },
    {
      base: 'library' as Base,
      mutation: 'linking a tag opened to anyone with a token',
      definition: () =>
        mutated(
          'library',
          'access: { list: public, read: public, create: [admin, librarian], update: admin, delete: [admin, librarian] }',
          'access: { list: public, read: public, create: authenticated, update: admin, delete: [admin, librarian] }',
        ),
      fails: ['PUT /books/{id}/tags/{otherId} as stranger: 403'],
    },
  ])('fail against a server with $mutation', { timeout: 120_000 }, async ({ base, mutation, definition, fails }) => {
    const result = await testsAgainst(base, `mutant-${mutation.replace(/[^a-z]+/g, '-')}`, definition());
    expect(result.code).not.toBe(0);
    expect(failed(result.out)).toEqual(expect.arrayContaining(fails));
  });
});
