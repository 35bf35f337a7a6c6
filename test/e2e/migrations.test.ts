import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { cli, http, startServer, typecheckAndBuild, WORK } from '../helpers/project.js';

/**
 * Migrations that convert stored values, run on a real database (SQLite, or PostgreSQL with RESTSMITH_TEST_DB):
 * both carry every value the same way, whether the migrations run one by one or all together on a new database.
 */
const V1 = `
name: evolve
version: 1.0.0
auth: { default: public }
resources:
  teams:
    fields:
      name: { type: string, required: true }
      motto: { type: string, nullable: true }
      leadId: { type: ref, to: people, nullable: true, onDelete: setNull }
  people:
    fields:
      name: { type: string, required: true }
      teamId: { type: ref, to: teams, nullable: true, onDelete: setNull }
      code: { type: string, nullable: true }
      level: { type: string, nullable: true }
      score: { type: number, default: 0 }
      active: { type: boolean, nullable: true }
`;
// v2: text to integer, number to integer, boolean to integer; a field made required with a default
const V2 = V1.replace('code: { type: string, nullable: true }', 'code: { type: integer, nullable: true }')
  .replace('motto: { type: string, nullable: true }', 'motto: { type: string, required: true, default: none }')
  .replace('score: { type: number, default: 0 }', 'score: { type: integer, default: 0 }')
  .replace('active: { type: boolean, nullable: true }', 'active: { type: integer, nullable: true }');
// v3: a ref renamed with another onDelete, and a second text to integer conversion
const V3 = V2.replace(
  'teamId: { type: ref, to: teams, nullable: true, onDelete: setNull }',
  'groupId: { type: ref, to: teams, nullable: true, onDelete: cascade, renamedFrom: teamId }',
).replace('level: { type: string, nullable: true }', 'level: { type: integer, nullable: true }');

type Person = Record<string, unknown> & { id: string; name: string };

function project(name: string): { dir: string; generate: (yaml: string) => Promise<void> } {
  const dir = join(WORK, `migrations-${name}`);
  const file = join(WORK, `migrations-${name}.yaml`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const generate = async (yaml: string): Promise<void> => {
    writeFileSync(file, yaml);
    const result = await cli('generate', file, '--out', dir, '--allow-data-loss');
    expect(result.code, result.err).toBe(0);
    await typecheckAndBuild(dir);
  };
  return { dir, generate };
}

/** Starts the project on `url`, runs `use` against it, stops it. */
async function serving<T>(dir: string, url: string, use: (api: string) => Promise<T>): Promise<T> {
  const server = await startServer(dir, { DATABASE_URL: url });
  try {
    return await use(server.url);
  } finally {
    await server.stop();
  }
}

async function seed(api: string): Promise<{ team: string; people: Person[] }> {
  const team = ((await http('POST', `${api}/teams`, { name: 'Blue' })).body as { id: string }).id;
  const people: Person[] = [];
  for (const body of [
    { name: 'Ann', teamId: team, code: '42', level: '7', score: 4.7, active: true },
    { name: 'Bob', code: 'abc', score: -2.5, active: null },
    // only its code changes, from text to the same digits as a number (found by a reviewer: SQLite took '7' and 7 as one)
    { name: 'Cy', code: '7', score: 3, active: null },
  ]) {
    const r = await http('POST', `${api}/people`, body);
    expect(r.status, r.text).toBe(201);
    people.push(r.body as Person);
  }
  expect((await http('PATCH', `${api}/teams/${team}`, { leadId: people[0]?.id })).status).toBe(200);
  expect((await http('POST', `${api}/teams`, { name: 'Red', motto: 'Go' })).status).toBe(201);
  return { team, people };
}

/** Every record's ETag, by name. */
async function etags(api: string): Promise<Record<string, string | null>> {
  const tags: Record<string, string | null> = {};
  for (const collection of ['teams', 'people']) {
    const page = (await http('GET', `${api}/${collection}`)).body as { items: { id: string; name: string }[] };
    for (const { id, name } of page.items) {
      tags[name] = (await http('GET', `${api}/${collection}/${id}`)).headers.get('etag');
    }
  }
  return tags;
}

async function expectConverted(api: string, team: string): Promise<void> {
  const page = (await http('GET', `${api}/people?sort=name`)).body as { items: Person[] };
  expect(page.items.map(({ id: _id, createdAt: _c, updatedAt: _u, ...rest }) => rest)).toEqual([
    // as SQLite's CAST carries them: 4.7 → 4, 'abc' → 0, true → 1
    { name: 'Ann', groupId: team, code: 42, level: 7, score: 4, active: 1 },
    { name: 'Bob', groupId: null, code: 0, level: null, score: -2, active: null },
    { name: 'Cy', groupId: null, code: 7, level: null, score: 3, active: null },
  ]);
  // the renamed reference cascades now
  expect((await http('DELETE', `${api}/teams/${team}`)).status).toBe(204);
  expect(((await http('GET', `${api}/people?sort=name`)).body as { items: Person[] }).items.map((p) => p.name)).toEqual(
    ['Bob', 'Cy'],
  );
}

describe('migrations that convert stored values', () => {
  it('carries every value through each migration in turn, tables that refer to each other included', async () => {
    const { dir, generate } = project('stepwise');
    const url = await databaseUrl('migrations-stepwise', 'sqlite:./data/evolve.db');
    await generate(V1);
    const { team, before } = await serving(dir, url, async (api) => ({
      ...(await seed(api)),
      before: await etags(api),
    }));
    await generate(V2);
    // a record whose stored values the migration changed has a new ETag, so no client keeps a stale copy by
    // If-None-Match (found by a newcomer); one it left as it was keeps its own
    const after = await serving(dir, url, async (api) => {
      const motto = (name: string) =>
        http('GET', `${api}/teams?name=${name}`).then((r) => (r.body as { items: { motto: string }[] }).items[0]);
      expect([await motto('Blue'), await motto('Red')]).toMatchObject([{ motto: 'none' }, { motto: 'Go' }]);
      return etags(api);
    });
    expect(Object.keys(after).sort()).toEqual(['Ann', 'Blue', 'Bob', 'Cy', 'Red']);
    for (const name of ['Ann', 'Bob', 'Cy', 'Blue']) expect(after[name], name).not.toBe(before[name]);
    expect(after.Red).toBe(before.Red);
    await generate(V3);
    await serving(dir, url, (api) => expectConverted(api, team));
  });

  it('applies all of them together, on a database that has none, the same way', async () => {
    const { dir, generate } = project('together');
    await generate(V1);
    await generate(V2);
    await generate(V3);
    // the project now has three migrations; a new database gets them in one start
    const url = await databaseUrl('migrations-together', 'sqlite:./data/evolve.db');
    const team = await serving(dir, url, async (api) => {
      const created = (await http('POST', `${api}/teams`, { name: 'Blue', motto: 'Up' })).body as { id: string };
      const ann = await http('POST', `${api}/people`, {
        name: 'Ann',
        groupId: created.id,
        code: 42,
        level: 7,
        score: 4,
        active: 1,
      });
      expect(ann.status, ann.text).toBe(201);
      expect((await http('POST', `${api}/people`, { name: 'Bob', code: 0, score: -2 })).status).toBe(201);
      expect((await http('POST', `${api}/people`, { name: 'Cy', code: 7, score: 3 })).status).toBe(201);
      return created.id;
    });
    await serving(dir, url, (api) => expectConverted(api, team));
  });
});
