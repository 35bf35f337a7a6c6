import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, startServer, typecheckAndBuild, WORK } from '../helpers/project.js';

/**
 * An action removed from the definition after its handler was written: the handler is kept as written, the project
 * still type-checks and starts, and generate says what to do. A handlers file left with no action, deleted by its
 * user, is no --check failure.
 */
const V1 = `
name: orphans
version: 1.0.0
auth: { default: public }
resources:
  notes:
    id: integer
    fields:
      title: { type: string, required: true }
    actions:
      summarise: { on: item, access: public, input: { fields: { words: integer } } }
      archive: { on: item, access: public }
`;
const V2 = V1.replace('      summarise: { on: item, access: public, input: { fields: { words: integer } } }\n', '');
const V3 = V2.replace(/    actions:\n.*\n$/, '');

const HANDLERS = `import type { NotesHandlers } from '../resources/notes/actions.js';

export const notesHandlers: NotesHandlers = {
  async summarise({ input, record, caller, store }) {
    const again = await store.get(record.id);
    return { body: { title: record.title, words: input.words ?? null, who: caller?.subject ?? null, found: again !== undefined } };
  },
  async archive({ record }) {
    return { body: { archived: record.title } };
  },
};
`;

describe('a handler whose action was removed', () => {
  it('is kept, still type-checks, the server starts, and generate says so', async () => {
    const dir = join(WORK, 'orphans');
    const folder = join(WORK, 'orphans-definition');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 'orphans.yaml');
    writeFileSync(file, V1);
    expect((await cli('generate', file, '--out', dir)).code).toBe(0);
    writeFileSync(join(dir, 'src/handlers/notes.ts'), HANDLERS);
    await typecheckAndBuild(dir);

    writeFileSync(file, V2);
    const second = await cli('generate', file, '--out', dir);
    expect(second.code).toBe(0);
    expect(second.out).toMatch(/src\/handlers\/notes\.ts.*summarise have no action any more/);
    expect(readFileSync(join(dir, 'src/handlers/notes.ts'), 'utf8')).toBe(HANDLERS);
    await typecheckAndBuild(dir);
    const server = await startServer(dir, { DATABASE_URL: 'sqlite::memory:' });
    try {
      const created = await fetch(`${server.url}/notes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'kept' }),
      });
      const { id } = (await created.json()) as { id: number };
      const archived = await fetch(`${server.url}/notes/${id}/archive`, { method: 'POST' });
      expect(await archived.json()).toEqual({ archived: 'kept' });
      expect((await fetch(`${server.url}/notes/${id}/summarise`, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.stop();
    }

    // no handler action left: the file is orphaned; once its user deletes it, --check has nothing to say
    writeFileSync(file, V3);
    expect((await cli('generate', file, '--out', dir)).code).toBe(0);
    rmSync(join(dir, 'src/handlers/notes.ts'));
    const check = await cli('generate', file, '--out', dir, '--check');
    expect(check.err + check.out).not.toMatch(/handlers\/notes/);
    expect(check.code).toBe(0);
    expect(existsSync(join(dir, 'src/handlers/notes.ts'))).toBe(false);
  });
});
