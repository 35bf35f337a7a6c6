import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import prettier from 'prettier';
import { PRETTIER_OPTIONS } from '../../src/generate/project-files.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateFresh, ROOT } from '../helpers/project.js';

/**
 * A few generated files of a tiny definition, kept as files for people to read and review.
 * After an intended change of the output: `npx vitest run test/golden -u`, then read the diff.
 */
/** Per definition of test/golden/, the files kept. */
const GOLDEN: Record<string, string[]> = {
  notes: [
    'src/resources/notes/model.ts',
    'src/resources/notes/store.ts',
    'src/resources/notes/routes.ts',
    'src/db/migrations/0001-initial.ts',
  ],
  // an owner, both kinds of action, a json field, an enum, a prefix
  journal: [
    'src/resources/entries/schemas.ts',
    'src/resources/entries/store.ts',
    'src/resources/entries/actions.ts',
    'src/handlers/entries.ts',
    'src/settings.ts',
  ],
};

describe.each(Object.entries(GOLDEN))('golden files of test/golden/%s.yaml', (name, files) => {
  let dir: string;

  beforeAll(async () => {
    dir = await generateFresh(join(ROOT, `test/golden/${name}.yaml`), `golden-${name}`);
  });

  // what `npx prettier --check .` says in the project: its own options, the parser each file's name picks
  it('is as prettier --check wants every file', async () => {
    const unformatted: string[] = [];
    for (const path of filesUnder(dir)) {
      const filepath = relative(dir, path);
      if (!/\.(ts|json|md)$/.test(filepath) || filepath.startsWith('node_modules/')) continue;
      const options = { ...PRETTIER_OPTIONS, filepath };
      if (!(await prettier.check(readFileSync(path, 'utf8'), options))) unformatted.push(filepath);
    }
    expect(unformatted).toEqual([]);
  });

  it.each(files)('%s', async (file) => {
    const content = readFileSync(join(dir, file), 'utf8');
    await expect(content).toMatchFileSnapshot(join(ROOT, 'test/golden', name, `${file.replaceAll('/', '__')}.golden`));
  });
});

function* filesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else yield path;
  }
}
