import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { PRETTIER_OPTIONS } from '../../src/generate/project-files.js';
import { cli, ROOT } from '../helpers/project.js';

/**
 * The goldens are the examples' generated projects, committed beside their definitions (examples/blog.yaml →
 * examples/blog/), for people to browse and review: a change to the output shows as a diff of real files. After an
 * intended change, `npm run examples` writes them again; read the diff. test/e2e/examples.test.ts type-checks, builds
 * and runs a project generated from each definition, which `generate --check` here proves the same as the one kept.
 */
const EXAMPLES = join(ROOT, 'examples');
const definitions = readdirSync(EXAMPLES)
  .filter((file) => /\.(ya?ml|json)$/.test(file))
  .map((file) => ({ file, project: join(EXAMPLES, basename(file).replace(/\.(ya?ml|json)$/, '')) }));

it('finds the examples', () => {
  expect(definitions.map(({ file }) => file)).toEqual(expect.arrayContaining(['blog.yaml', 'library.yaml']));
});

describe.each(definitions)('examples/$file', ({ file, project }) => {
  it('has its generated project committed beside it', () => {
    expect(existsSync(join(project, '.restsmith/manifest.json')), `run npm run examples`).toBe(true);
  });

  it('is exactly what generate writes (generate --check)', async () => {
    const { code, out, err } = await cli('generate', join(EXAMPLES, file), '--out', project, '--check');
    expect(code, `${out}\n${err}\nrun npm run examples, then read the diff`).toBe(0);
  });

  // what `npx prettier --check .` says in the project: its own options, the parser each file's name picks
  it('is as prettier --check wants every file', async () => {
    const unformatted: string[] = [];
    for (const path of filesUnder(project)) {
      const filepath = relative(project, path);
      if (!/\.(ts|json|md)$/.test(filepath)) continue;
      const options = { ...PRETTIER_OPTIONS, filepath };
      if (!(await prettier.check(readFileSync(path, 'utf8'), options))) unformatted.push(filepath);
    }
    expect(unformatted).toEqual([]);
  });
});

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', 'data'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}
