import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseUrl, runSql } from '../helpers/database.js';
import { cli, http, startServer, startToFailure, typecheckAndBuild, WORK } from '../helpers/project.js';

const run = promisify(execFile);

/**
 * Rolling deploys and rollback (SPEC §11), on a real database (SQLite, or PostgreSQL with RESTSMITH_TEST_DB): a
 * build starts on a database a newer build migrated when every migration it lacks is additive, and refuses, naming
 * them, when one is not; `npm run migrate` applies migrations apart from the start, and with MIGRATE_ON_START=false
 * the server answers 503 until it has.
 */
const V1 = `
name: rollback
version: 1.0.0
auth: { default: public }
resources:
  tasks:
    fields:
      title: { type: string, required: true }
      done: { type: boolean, default: false }
`;
// v2, additive: a new nullable field
const V2 = V1.replace('      done:', '      note: { type: string, nullable: true }\n      done:');
// v3, not additive: the field renamed
const V3 = V2.replace(
  'title: { type: string, required: true }',
  'name: { type: string, required: true, renamedFrom: title }',
);

const APP = join(WORK, 'rollback-app');
/** the build of v1, kept apart as a rollback would run it */
const V1_BUILD = join(WORK, 'rollback-v1');
const DEFINITION = join(WORK, 'rollback-definition', 'rollback.yaml');

afterAll(() => {
  for (const dir of [APP, V1_BUILD, join(WORK, 'rollback-definition'), join(WORK, 'rollback-data')]) {
    rmSync(dir, { recursive: true, force: true });
  }
});

async function generate(yaml: string): Promise<string> {
  writeFileSync(DEFINITION, yaml);
  const result = await cli('generate', DEFINITION, '--out', APP);
  expect(result.code, result.err).toBe(0);
  await typecheckAndBuild(APP);
  return result.out;
}

/** `npm run migrate` in `dir` (its built dist/), against `url`: exit code and output. */
async function npmMigrate(dir: string, url: string, ...args: string[]): Promise<{ code: number; out: string }> {
  return run('npm', ['run', '--silent', 'migrate', ...(args.length > 0 ? ['--', ...args] : [])], {
    cwd: dir,
    env: { ...process.env, DATABASE_URL: url },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      out: error.stdout + error.stderr,
    }),
  );
}

async function serving<T>(dir: string, env: Record<string, string>, use: (api: string) => Promise<T>): Promise<T> {
  const server = await startServer(dir, env);
  try {
    return await use(server.url);
  } finally {
    await server.stop();
  }
}

type Task = { id: string; title?: string; name?: string; note?: string | null; done: boolean };

describe('rolling deploys and rollback', () => {
  it(
    'runs an older build on a database migrated additively, and refuses it, naming the migration, when not',
    { timeout: 240_000 },
    async () => {
      rmSync(APP, { recursive: true, force: true });
      mkdirSync(join(WORK, 'rollback-definition'), { recursive: true });
      // on SQLite one file beside both builds (a relative path: each server runs in its build's folder)
      rmSync(join(WORK, 'rollback-data'), { recursive: true, force: true });
      const url = await databaseUrl('rollback', 'sqlite:../rollback-data/api.db');
      const env = { DATABASE_URL: url };

      expect(await generate(V1)).not.toMatch(/additive/);
      rmSync(V1_BUILD, { recursive: true, force: true });
      cpSync(APP, V1_BUILD, { recursive: true });
      const first = await serving(V1_BUILD, env, async (api) => {
        const created = await http('POST', `${api}/tasks`, { title: 'Write' });
        expect(created.status, created.text).toBe(201);
        return created.body as Task;
      });

      // v2 adds a nullable field: additive, applied by `npm run migrate`, not by a start
      expect(await generate(V2)).toMatch(/^migration 0002-change-tasks:\n {2}- add tasks\.note\n {2}additive: /m);
      expect(await npmMigrate(APP, url, '--status')).toEqual({
        code: 0,
        out:
          '0001-initial       applied  additive\n' +
          '0002-change-tasks  pending  additive\n' +
          '1 pending: `npm run migrate` applies it\n',
      });
      expect(await npmMigrate(APP, url)).toEqual({ code: 0, out: 'applied 1 migration: 0002-change-tasks\n' });
      expect(await npmMigrate(APP, url)).toEqual({ code: 0, out: 'nothing to apply: the database is up to date\n' });
      // recorded with its mark, where the older build reads it
      const book = await runSql(url, APP, 'SELECT "name", "additive" FROM "restsmith_migrations" ORDER BY "name"');
      expect(book).toEqual([
        { name: '0001-initial', additive: 1 },
        { name: '0002-change-tasks', additive: 1 },
      ]);
      const noted = await serving(APP, env, async (api) => {
        const created = await http('POST', `${api}/tasks`, { title: 'Read', note: 'twice' });
        expect(created.status, created.text).toBe(201);
        return created.body as Task;
      });

      // the older build starts on it, reads and writes
      expect(await npmMigrate(V1_BUILD, url, '--status')).toEqual({
        code: 0,
        out:
          '0001-initial       applied  additive\n' +
          '0002-change-tasks  applied  additive  (not in this build: a newer one applied it)\n' +
          'up to date\n',
      });
      await serving(V1_BUILD, env, async (api) => {
        const page = (await http('GET', `${api}/tasks?sort=title`)).body as { items: Task[] };
        expect(page.items.map((t) => t.title)).toEqual(['Read', 'Write']);
        expect(page.items[0]).not.toHaveProperty('note');
        const patched = await http('PATCH', `${api}/tasks/${noted.id}`, { done: true });
        expect(patched.status, patched.text).toBe(200);
        expect((await http('POST', `${api}/tasks`, { title: 'Roll back' })).status).toBe(201);
      });
      // what it wrote, the newer build reads back, the note it did not know kept
      await serving(APP, env, async (api) => {
        expect((await http('GET', `${api}/tasks/${noted.id}`)).body).toMatchObject({ note: 'twice', done: true });
        expect((await http('GET', `${api}/tasks/${first.id}`)).body).toMatchObject({ note: null });
      });

      // v3 renames a field: not additive; with MIGRATE_ON_START=false the server waits for `npm run migrate`
      expect(await generate(V3)).toMatch(/^ {2}not additive \(rename tasks\.title\): a build from before it refuses/m);
      const server = await startServer(APP, { ...env, MIGRATE_ON_START: 'false' });
      try {
        const refused = await http('GET', `${server.url}/tasks`);
        expect(refused.status).toBe(503);
        expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(refused.headers.get('retry-after')).toBe('5');
        expect(refused.body).toMatchObject({
          status: 503,
          detail:
            'the database is not migrated for this version: migration 0003-change-tasks is pending; run `npm run migrate`',
        });
        expect((await http('GET', `${server.url}/healthz`)).status).toBe(200);
        expect((await http('GET', `${server.url}/livez`)).status).toBe(200);
        const notReady = await http('GET', `${server.url}/readyz`);
        expect(notReady.status).toBe(503);
        expect(JSON.stringify(notReady.body)).toContain(
          'migration 0003-change-tasks is pending; run `npm run migrate`',
        );
        expect((await npmMigrate(APP, url, '--status')).out).toMatch(
          /^0003-change-tasks {2}pending {2}not additive\n1 pending/m,
        );
        expect(await npmMigrate(APP, url)).toEqual({ code: 0, out: 'applied 1 migration: 0003-change-tasks\n' });
        // read again once a second: served within a few, with no restart
        let status = 503;
        for (let attempt = 0; attempt < 50 && status === 503; attempt += 1) {
          await new Promise((wait) => setTimeout(wait, 100));
          status = (await http('GET', `${server.url}/tasks`)).status;
        }
        expect(status).toBe(200);
        expect((await http('GET', `${server.url}/readyz`)).status).toBe(200);
        const page = (await http('GET', `${server.url}/tasks?sort=name`)).body as { items: Task[] };
        expect(page.items.map((t) => t.name)).toEqual(['Read', 'Roll back', 'Write']);
      } finally {
        await server.stop();
      }

      // the older build now refuses to start, naming the migration it cannot run with, and so does its migrate
      const failed = await startToFailure(V1_BUILD, env);
      expect(failed.code).toBe(1);
      expect(failed.stderr.trim()).toBe(
        'MigrationError: the database was migrated by a build this one is older than, with a migration that is not ' +
          'additive: 0003-change-tasks; this build cannot run on it (run a build that has it, or restore the database ' +
          'from before it)',
      );
      const older = await npmMigrate(V1_BUILD, url);
      expect(older.code).toBe(1);
      expect(older.out).toMatch(/^MigrationError: .*not additive: 0003-change-tasks;/);
    },
  );
});
