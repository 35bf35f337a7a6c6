import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateFresh, ROOT } from '../helpers/project.js';

/**
 * A few generated files of a tiny definition, kept as files for people to read and review.
 * After an intended change of the output: `npx vitest run test/golden -u`, then read the diff.
 */
const FILES = [
  'src/resources/notes/model.ts',
  'src/resources/notes/sql.ts',
  'src/resources/notes/store.ts',
  'src/resources/notes/routes.ts',
  'src/db/migrations/0001-initial.ts',
];

let dir: string;

beforeAll(async () => {
  dir = await generateFresh(join(ROOT, 'test/golden/notes.yaml'), 'golden-notes');
});

describe('golden files of test/golden/notes.yaml', () => {
  it.each(FILES)('%s', async (file) => {
    const content = readFileSync(join(dir, file), 'utf8');
    await expect(content).toMatchFileSnapshot(join(ROOT, 'test/golden/notes', `${file.replaceAll('/', '__')}.golden`));
  });
});
