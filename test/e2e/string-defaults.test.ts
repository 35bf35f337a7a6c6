import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { cli, http, startServer, typecheckAndBuild, WORK, type RunningServer } from '../helpers/project.js';

/**
 * A string default reaches records two ways: the server writes it on a create that omits the field, and the
 * migration's DEFAULT clause writes it into the records that existed before the field did. Both must hold
 * exactly the definition's text: carriage returns (alone and in CRLF), tabs, backslashes, backticks, `${`, U+2028.
 */
const NOTE = 'one\r\ntwo\rthree\n\tfour \\n `five` ${six} \u2028seven\r';

const definition = (withNote: boolean): string =>
  JSON.stringify({
    name: 'string-defaults',
    version: '1.0.0',
    auth: { default: 'public' },
    resources: {
      memos: {
        fields: {
          title: { type: 'string', required: true },
          ...(withNote ? { note: { type: 'text', default: NOTE }, label: { type: 'string', default: NOTE } } : {}),
        },
      },
    },
  });

const dir = join(WORK, 'string-defaults');
const file = join(WORK, 'string-defaults.json');
let server: RunningServer | undefined;

async function generateAndServe(withNote: boolean, url: string): Promise<string> {
  writeFileSync(file, definition(withNote));
  const result = await cli('generate', file, '--out', dir);
  expect(result.code, result.err).toBe(0);
  await typecheckAndBuild(dir);
  server = await startServer(dir, { DATABASE_URL: url });
  return `${server.url}/memos`;
}

afterAll(async () => {
  await server?.stop();
});

describe('string defaults', () => {
  it('are the same, character for character, from the migration and from the server', async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const url = await databaseUrl('string_defaults', `sqlite:${join(dir, 'app.db')}`);

    let memos = await generateAndServe(false, url);
    const before = await http('POST', memos, { title: 'before' });
    expect(before.status, before.text).toBe(201);
    await server?.stop();

    // the field is added by a migration: the existing record gets the DDL's default
    memos = await generateAndServe(true, url);
    const old = await http('GET', `${memos}/${(before.body as { id: string }).id}`);
    expect(old.status, old.text).toBe(200);
    expect(old.body).toMatchObject({ note: NOTE, label: NOTE });

    // a create that omits the field gets the server's default
    const created = await http('POST', memos, { title: 'after' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ note: NOTE, label: NOTE });
  });
});
