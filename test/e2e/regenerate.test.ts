import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, ROOT, startServer, startToFailure, TSC7, typecheckAndBuild, WORK } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';
import { databaseUrl, runSql } from '../helpers/database.js';

const run = promisify(execFile);

/**
 * Regeneration loses nothing: hand-written code survives byte for byte, rows survive migrations, and a change
 * that cannot keep them is refused with a message that says why.
 */
const V1 = `
name: notebook
version: 1.0.0
auth: { default: authenticated, roles: [admin, writer] }
resources:
  authors:
    fields:
      name: { type: string, required: true }
  notes:
    owner: authorId
    fields:
      title: { type: string, required: true }
      body: text
      stars: { type: integer, default: 0 }
      authorId: { type: ref, to: authors, required: true, onDelete: cascade }
    access: { list: authenticated, read: authenticated, create: authenticated, update: [admin, owner], delete: admin }
    actions:
      summarise: { on: item, access: authenticated }
  drafts:
    fields:
      text: string
    actions:
      promote: { on: item, access: admin }
`;

/** v2: a field added, one renamed, an action added, a resource added, one removed (a data loss: its table goes). */
const V2 = V1.replace(
  '      body: text',
  '      content: { type: text, renamedFrom: body }\n      pinned: { type: boolean, default: false }',
)
  .replace(
    '      summarise: { on: item, access: authenticated }',
    '      summarise: { on: item, access: authenticated }\n      archive: { on: item, access: admin }',
  )
  .replace(
    /  drafts:[\s\S]*$/,
    '  labels:\n    fields:\n      label: { type: string, required: true, unique: true }\n',
  );

function project(name: string): { dir: string; definition: (yaml: string) => string } {
  const dir = join(WORK, `regen-${name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // the same file name everywhere: generated headers name it, and the kill test compares two projects
  const folder = join(WORK, `regen-${name}-definition`);
  mkdirSync(folder, { recursive: true });
  const definition = (yaml: string): string => {
    const file = join(folder, 'notebook.yaml');
    writeFileSync(file, yaml);
    return file;
  };
  return { dir, definition };
}

const read = (dir: string, path: string): string => readFileSync(join(dir, path), 'utf8');

afterAll(() => {
  for (const name of [
    'format',
    'format-cold',
    'edits',
    'rows',
    'conflicts',
    'loss',
    'kill',
    'kill-fresh',
    'failing',
    'manual',
    'package',
  ]) {
    rmSync(join(WORK, `regen-${name}-definition`), { recursive: true, force: true });
  }
});

describe('hand edits survive', () => {
  it('keeps every hand-written byte through added, renamed, removed fields, actions and resources', async () => {
    const { dir, definition } = project('edits');
    expect((await cli('generate', definition(V1), '--out', dir)).code).toBe(0);

    // a user fills in a handler, with an import and a helper of their own, and writes hooks and a test
    const handlers = read(dir, 'src/handlers/notes.ts')
      .replace(
        "import { notImplemented } from '../http/problem.js';",
        "import { notImplemented } from '../http/problem.js';\nimport { createHash } from 'node:crypto';",
      )
      .replace(
        /  async summarise\(_context\) \{\n    throw notImplemented\('[^']*'\);\n  \},/,
        '  async summarise({ record }) {\n    return { body: { digest: digest(record.title) } };\n  },',
      );
    const handWritten = `${handlers}\n/** my helper */\nfunction digest(text: string): string {\n  return createHash('sha256').update(text).digest('hex').slice(0, 8);\n}\n`;
    writeFileSync(join(dir, 'src/handlers/notes.ts'), handWritten);
    const hooks = read(dir, 'src/hooks.ts').replace(
      "app.log.debug('no hooks registered (see src/hooks.ts)');",
      "app.addHook('onSend', async (_request, reply) => {\n    reply.header('x-notebook', 'yes');\n  });",
    );
    writeFileSync(join(dir, 'src/hooks.ts'), hooks);
    const drafts = `${read(dir, 'src/handlers/drafts.ts')}\n// my notes on drafts\n`;
    writeFileSync(join(dir, 'src/handlers/drafts.ts'), drafts);
    const myTest =
      "import { it } from 'node:test';\nimport assert from 'node:assert/strict';\n\nit('is mine', () => assert.equal(1 + 1, 2));\n";
    writeFileSync(join(dir, 'test/mine.test.ts'), myTest);
    const main = `${read(dir, 'src/main.ts')}\n// started by me\n`;
    writeFileSync(join(dir, 'src/main.ts'), main);

    const regenerated = await cli('generate', definition(V2), '--out', dir, '--allow-data-loss');
    expect(regenerated.code, regenerated.err).toBe(0);
    expect(regenerated.out).toMatch(/^grow\s+src\/handlers\/notes\.ts\s+\(adds archive\)$/m);
    expect(regenerated.out).toMatch(/^orphan\s+src\/handlers\/drafts\.ts/m);
    expect(regenerated.out).toMatch(/^delete\s+src\/resources\/drafts\/store\.ts$/m);

    // every byte the user wrote is still there; the grown file only gained the new stub
    const grown = read(dir, 'src/handlers/notes.ts');
    const stub =
      /\n  \/\*\* POST \/notes\/\{id\}\/archive \*\/\n  async archive\(_context\) \{\n    throw notImplemented\('POST \/notes\/:id\/archive'\);\n  \},/;
    expect(grown).toMatch(stub);
    expect(grown.replace(stub, '')).toBe(handWritten);
    expect(read(dir, 'src/hooks.ts')).toBe(hooks);
    expect(read(dir, 'src/handlers/drafts.ts')).toBe(drafts);
    expect(read(dir, 'test/mine.test.ts')).toBe(myTest);
    expect(read(dir, 'src/main.ts')).toBe(main);
    expect(existsSync(join(dir, 'src/resources/drafts'))).toBe(false);

    // and the project type-checks, builds and runs the hand-written code
    await typecheckAndBuild(dir);
    const server = await startServer(dir, { DATABASE_URL: await databaseUrl('edits'), JWT_SECRET: SECRET });
    try {
      const admin = as(await token('root', { roles: ['admin'] }));
      const author = (await admin('POST', `${server.url}/authors`, { name: 'Ann' })).body as { id: string };
      const note = await admin('POST', `${server.url}/notes`, { title: 'hello', content: 'kept', authorId: author.id });
      expect(note.status).toBe(201);
      expect(note.headers.get('x-notebook')).toBe('yes');
      const id = (note.body as { id: string }).id;
      const summary = await admin('POST', `${server.url}/notes/${id}/summarise`);
      expect(summary.body).toEqual({ digest: '2cf24dba' });
      expect((await admin('POST', `${server.url}/notes/${id}/archive`)).status).toBe(501);
      expect((await admin('POST', `${server.url}/labels`, { label: 'new' })).status).toBe(201);
    } finally {
      await server.stop();
    }
  });
});

describe('formatting only what changed', () => {
  it('leaves a regenerated project as a cold generate of the same definition would be', async () => {
    const edited = V1.replace('      body: text', '      body: text\n      pinned: { type: boolean, default: false }');
    const regenerated = project('format');
    expect((await cli('generate', regenerated.definition(V1), '--out', regenerated.dir)).code).toBe(0);
    expect((await cli('generate', regenerated.definition(edited), '--out', regenerated.dir)).code).toBe(0);
    const cold = project('format-cold');
    expect((await cli('generate', cold.definition(edited), '--out', cold.dir)).code).toBe(0);
    const manifest = JSON.parse(read(cold.dir, '.restsmith/manifest.json')) as { files: Record<string, string> };
    // the migrations differ (one run made two of them); every other file is the same, formatted or taken as it was
    const paths = Object.keys(manifest.files).filter((path) => !path.startsWith('src/db/migrations/'));
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) expect(read(regenerated.dir, path), path).toBe(read(cold.dir, path));
  });
});

describe('rows survive', () => {
  it('migrates a database in place: rows kept, renamed data kept, new fields at their defaults', async () => {
    const { dir, definition } = project('rows');
    expect((await cli('generate', definition(V1), '--out', dir)).code).toBe(0);
    await typecheckAndBuild(dir);
    const env = { DATABASE_URL: await databaseUrl('rows', 'sqlite:./data/rows.db'), JWT_SECRET: SECRET };
    const admin = as(await token('root', { roles: ['admin'] }));
    const ids: string[] = [];
    let server = await startServer(dir, env);
    let authorId: string;
    try {
      authorId = ((await admin('POST', `${server.url}/authors`, { name: 'Ann' })).body as { id: string }).id;
      for (let i = 0; i < 25; i += 1) {
        const r = await admin('POST', `${server.url}/notes`, { title: `n${i}`, body: `body ${i}`, stars: i, authorId });
        ids.push((r.body as { id: string }).id);
      }
    } finally {
      await server.stop();
    }

    // v2, then a change SQLite cannot ALTER: stars becomes a nullable number with another default (table rebuild)
    const v3 = V2.replace(
      '      stars: { type: integer, default: 0 }',
      '      stars: { type: number, nullable: true, default: 1.5 }',
    );
    for (const next of [V2, v3]) {
      const result = await cli('generate', definition(next), '--out', dir, '--allow-data-loss');
      expect(result.code, result.err).toBe(0);
    }
    expect(read(dir, 'src/db/migrations/index.ts')).toMatch(/0003-/);
    await typecheckAndBuild(dir);
    server = await startServer(dir, env);
    try {
      const page = (await admin('GET', `${server.url}/notes?limit=100`)).body as { items: Record<string, unknown>[] };
      expect(page.items.map((n) => n.id)).toEqual(ids);
      page.items.forEach((note, i) => {
        expect(note).toMatchObject({ title: `n${i}`, content: `body ${i}`, stars: i, pinned: false, authorId });
        expect(note).not.toHaveProperty('body');
      });
      const author = await admin('GET', `${server.url}/authors/${authorId}`);
      expect(author.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('stops with a clear message and leaves the database as it was when a migration fails', async () => {
    const { dir, definition } = project('failing');
    expect((await cli('generate', definition(V1), '--out', dir)).code).toBe(0);
    await typecheckAndBuild(dir);
    const env = { DATABASE_URL: await databaseUrl('failing', 'sqlite:./data/failing.db'), JWT_SECRET: SECRET };
    const admin = as(await token('root', { roles: ['admin'] }));
    const server = await startServer(dir, env);
    try {
      for (const name of ['Same', 'Same'])
        expect((await admin('POST', `${server.url}/authors`, { name })).status).toBe(201);
    } finally {
      await server.stop();
    }
    // authors' names become unique, but two rows share one: the migration cannot apply
    const unique = V1.replace(
      '      name: { type: string, required: true }',
      '      name: { type: string, required: true, unique: true }',
    );
    const regenerated = await cli('generate', definition(unique), '--out', dir);
    expect(regenerated.code).toBe(0);
    // said at generate time, before any server meets it
    expect(regenerated.out).toMatch(
      /^ {2}caution: authors\.name becomes unique: the migration fails, changing nothing/m,
    );
    await typecheckAndBuild(dir);
    const failed = await startToFailure(dir, env);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toMatch(
      /^MigrationError: migration 0002-change-authors failed, the database is unchanged: .*unique/i,
    );
    expect(await runSql(env.DATABASE_URL, dir, 'SELECT CAST(count(*) AS INTEGER) AS n FROM authors')).toEqual([
      { n: 2 },
    ]);
    const applied = await runSql(env.DATABASE_URL, dir, 'SELECT name FROM restsmith_migrations ORDER BY name');
    expect(applied).toEqual([{ name: '0001-initial' }]);
  });
});

describe('conflicts, --force, --dry-run and --check', () => {
  it('names every hand-edited generator-owned file and writes nothing, unless --force; user files never', async () => {
    const { dir, definition } = project('conflicts');
    const v1 = definition(V1);
    expect((await cli('generate', v1, '--out', dir)).code).toBe(0);
    appendFileSync(join(dir, 'src/resources/notes/routes.ts'), '\n// my tweak\n');
    appendFileSync(join(dir, 'src/app.ts'), '\n// another tweak\n');
    const manifest = read(dir, '.restsmith/manifest.json');
    const routes = read(dir, 'src/resources/notes/routes.ts');

    const v2 = definition(V2);
    const refused = await cli('generate', v2, '--out', dir, '--allow-data-loss');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/src\/app\.ts/);
    expect(refused.err).toMatch(/src\/resources\/notes\/routes\.ts/);
    expect(read(dir, '.restsmith/manifest.json')).toBe(manifest);
    expect(read(dir, 'src/resources/notes/routes.ts')).toBe(routes);
    expect(existsSync(join(dir, 'src/resources/labels'))).toBe(false);

    const dry = await cli('generate', v2, '--out', dir, '--dry-run', '--allow-data-loss');
    // the plan is printed whole, and a dry run fails as the real run would
    expect(dry.code).toBe(1);
    expect(dry.err).toMatch(/2 generator-owned files were edited by hand: generate would stop/);
    expect(dry.out).toMatch(/^conflict\s+src\/app\.ts/m);
    expect(dry.out).toMatch(/^create\s+src\/resources\/labels\/store\.ts$/m);
    expect(dry.out).toMatch(/^migration 0002-/m);
    expect(dry.out).toMatch(/rename notes\.body to content \(data kept\)/);
    expect(read(dir, '.restsmith/manifest.json')).toBe(manifest);

    const stale = await cli('generate', v2, '--out', dir, '--check', '--allow-data-loss');
    expect(stale.code).toBe(1);

    writeFileSync(join(dir, 'src/main.ts'), '// mine entirely\n');
    const forcedDry = await cli('generate', v2, '--out', dir, '--dry-run', '--force', '--allow-data-loss');
    expect(forcedDry.code).toBe(0);
    expect(forcedDry.out).toMatch(/^overwrite\s+src\/app\.ts\s+\(edited by hand\)$/m);
    const forced = await cli('generate', v2, '--out', dir, '--force', '--allow-data-loss');
    expect(forced.code, forced.err).toBe(0);
    expect(forced.out).toMatch(/^overwrite\s+src\/resources\/notes\/routes\.ts/m);
    expect(forced.out).toMatch(/\(2 edited by hand, overwritten\)$/m);
    expect(read(dir, 'src/app.ts')).not.toMatch(/another tweak/);
    expect(read(dir, 'src/main.ts')).toBe('// mine entirely\n');
    expect((await cli('generate', v2, '--out', dir, '--check')).code).toBe(0);
  });
});

describe('package.json', () => {
  type Pkg = { dependencies: Record<string, string>; scripts: Record<string, string>; license?: string };
  const pkg = (dir: string): Pkg => JSON.parse(read(dir, 'package.json')) as Pkg;
  const edit = (dir: string, change: (p: Pkg) => void): void => {
    const p = pkg(dir);
    change(p);
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(p, null, 2)}\n`);
  };

  it("is merged: the user's dependencies, scripts and fields are kept; restsmith's own entries edited are a conflict", async () => {
    const { dir, definition } = project('package');
    expect((await cli('generate', definition(V1), '--out', dir)).code).toBe(0);
    const fastify = pkg(dir).dependencies.fastify;
    // what src/hooks.ts suggests: npm install @fastify/helmet
    edit(dir, (p) => {
      p.dependencies['@fastify/helmet'] = '^13.0.0';
      p.scripts.lint = 'eslint .';
      p.license = 'MIT';
    });
    const v2 = definition(V2);
    const kept = await cli('generate', v2, '--out', dir, '--allow-data-loss');
    expect(kept.code, kept.err).toBe(0);
    expect(pkg(dir)).toMatchObject({
      license: 'MIT',
      scripts: { lint: 'eslint .' },
      dependencies: { '@fastify/helmet': '^13.0.0', fastify },
    });
    expect((await cli('generate', v2, '--out', dir, '--check')).code).toBe(0);

    edit(dir, (p) => {
      p.dependencies.fastify = '5.0.0';
    });
    const edited = read(dir, 'package.json');
    const stale = await cli('generate', v2, '--out', dir, '--check');
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/is not what generate would write \(1 file differs\)$/m);
    const v3 = definition(V2.replace('stars: { type: integer, default: 0 }', 'stars: { type: integer, default: 1 }'));
    const refused = await cli('generate', v3, '--out', dir);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/package\.json: restsmith's entries edited: dependencies\.fastify changed/);
    expect(read(dir, 'package.json')).toBe(edited);

    const forced = await cli('generate', v3, '--out', dir, '--force');
    expect(forced.code, forced.err).toBe(0);
    expect(forced.out).toMatch(
      /^overwrite\s+package\.json\s+\(restsmith's entries edited: dependencies\.fastify changed\)$/m,
    );
    expect(pkg(dir)).toMatchObject({ license: 'MIT', dependencies: { '@fastify/helmet': '^13.0.0', fastify } });
  });

  it('is kept as npm lays it out (each item of an array on its own line): a layout is no change', async () => {
    const { dir, definition } = project('package-layout');
    const v1 = definition(V1);
    expect((await cli('generate', v1, '--out', dir)).code).toBe(0);
    // what `npm pkg set files[]=dist` or any npm install leaves: JSON.stringify's layout, arrays one item a line
    edit(dir, (p) => Object.assign(p, { files: ['dist', 'README.md'], keywords: ['api'] }));
    const npmText = read(dir, 'package.json');
    expect(npmText).toContain('"files": [\n    "dist",\n');
    const check = await cli('generate', v1, '--out', dir, '--check');
    expect(check.code, check.err).toBe(0);
    const again = await cli('generate', v1, '--out', dir);
    expect(again.code, again.err).toBe(0);
    expect(again.out).not.toMatch(/^update\s+package\.json/m);
    expect(read(dir, 'package.json')).toBe(npmText);
    // a change of the definition that changes package.json only there writes it, in restsmith's layout
    const v2 = definition(V2);
    expect((await cli('generate', v2, '--out', dir, '--allow-data-loss')).code).toBe(0);
    expect(pkg(dir)).toMatchObject({ files: ['dist', 'README.md'], keywords: ['api'] });
    expect((await cli('generate', v2, '--out', dir, '--check')).code).toBe(0);
  });
});

describe('a handlers file that does not parse', () => {
  it('is left alone, the stub to add by hand is named, and --check fails until it is there', async () => {
    const { dir, definition } = project('manual');
    expect((await cli('generate', definition(V1), '--out', dir)).code).toBe(0);
    const broken = `${read(dir, 'src/handlers/notes.ts')}\nexport const oops = {\n`;
    writeFileSync(join(dir, 'src/handlers/notes.ts'), broken);
    const withAction = V1.replace(
      '      summarise: { on: item, access: authenticated }',
      '      summarise: { on: item, access: authenticated }\n      archive: { on: item, access: admin }',
    );
    const run = await cli('generate', definition(withAction), '--out', dir);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /^manual\s+src\/handlers\/notes\.ts\s+\(restsmith cannot edit it .*add by hand the handlers archive\)$/m,
    );
    expect(read(dir, 'src/handlers/notes.ts')).toBe(broken);
    expect((await cli('generate', definition(withAction), '--out', dir, '--check')).code).toBe(1);
  });
});

describe('data loss', () => {
  it('refuses a migration that would lose data, naming what; --allow-data-loss accepts it', async () => {
    const { dir, definition } = project('loss');
    expect((await cli('generate', definition(V1), '--out', dir)).code).toBe(0);
    const lossy = V1.replace('      body: text\n', '').replace(
      '      stars: { type: integer, default: 0 }',
      '      stars: { type: string, default: "0" }',
    );
    const refused = await cli('generate', definition(lossy), '--out', dir);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /notes\.body is removed: its values would be deleted\n\s+to keep it: keep notes\.body$/m,
    );
    expect(refused.err).toMatch(/notes\.stars changes from integer to string/);
    // no field was added: no rename to suggest
    expect(refused.err).not.toMatch(/renamedFrom/);
    expect(refused.err).toMatch(/--allow-data-loss/);
    // a dry run shows the plan with the refused migration, and fails
    const dry = await cli('generate', definition(lossy), '--out', dir, '--dry-run');
    expect(dry.code).toBe(1);
    expect(dry.out).toMatch(/^migration 0002-change-notes \(refused: it would lose data/m);
    expect(dry.out).toMatch(/notes\.body is removed/);

    // removing a field while adding one suggests the rename; deleting authors' rows names the notes that stop it
    const renamedOrNot = V1.replace('      body: text', '      content: text').replace(
      '      name: { type: string, required: true }',
      '      name: { type: string, required: true }\n      country: { type: string, required: true }',
    );
    const hinted = await cli('generate', definition(renamedOrNot), '--out', dir);
    expect(hinted.code).toBe(1);
    expect(hinted.err).toMatch(/to keep it: if content is body renamed, say `renamedFrom: body` on it; else keep body/);
    expect(hinted.err).toMatch(
      /authors\.country is added as required with no default: existing authors records would be deleted; and while a record refers to one of them \(notes\.authorId\), the migration fails and changes nothing/,
    );
    expect(existsSync(join(dir, 'src/db/migrations/0002-change-notes.ts'))).toBe(false);

    const accepted = await cli('generate', definition(lossy), '--out', dir, '--allow-data-loss');
    expect(accepted.code, accepted.err).toBe(0);
    expect(read(dir, 'src/db/migrations/0002-change-notes.ts')).toMatch(/INSERT INTO "notes__rebuild"/);
  });
});

describe('a generate killed midway', () => {
  it('leaves every file old or new, and the next run completes the job', async () => {
    const { dir, definition } = project('kill');
    expect((await cli('generate', definition(V1), '--out', dir)).code).toBe(0);
    const v2 = definition(V2);
    for (const writes of [1, 4, 9]) {
      const killed = await run(
        process.execPath,
        [join(ROOT, 'bin/restsmith.js'), 'generate', v2, '--out', dir, '--allow-data-loss'],
        {
          env: { ...process.env, RESTSMITH_CRASH_AFTER_WRITES: String(writes) },
        },
      ).then(
        () => 'finished',
        (error: { signal?: string }) => error.signal,
      );
      expect(killed).toBe('SIGKILL');
    }
    const finished = await cli('generate', v2, '--out', dir, '--allow-data-loss');
    expect(finished.code, finished.err).toBe(0);

    // the result is what one uninterrupted run makes
    const fresh = project('kill-fresh');
    expect((await cli('generate', fresh.definition(V1), '--out', fresh.dir)).code).toBe(0);
    expect((await cli('generate', fresh.definition(V2), '--out', fresh.dir, '--allow-data-loss')).code).toBe(0);
    const manifest = JSON.parse(read(fresh.dir, '.restsmith/manifest.json')) as {
      files: Record<string, string>;
      migrations: string[];
    };
    expect(JSON.parse(read(dir, '.restsmith/manifest.json'))).toMatchObject({
      files: manifest.files,
      migrations: manifest.migrations,
    });
    for (const path of [
      ...Object.keys(manifest.files),
      'src/handlers/notes.ts',
      'src/db/migrations/0002-create-labels-change-notes-drop-drafts.ts',
    ]) {
      expect(read(dir, path), path).toBe(read(fresh.dir, path));
    }
    await run(process.execPath, [TSC7, '-p', 'tsconfig.json'], { cwd: dir });
  });
});
