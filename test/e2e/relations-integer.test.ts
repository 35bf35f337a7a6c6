import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { generateFresh, loadBuilt, typecheckAndBuild, WORK } from '../helpers/project.js';
import { SECRET, token } from '../helpers/tokens.js';

/**
 * Relations between resources with integer ids, and between an integer-id resource and a uuid one (SPEC §5): keys
 * of the other kind in embedding, nested routes, links and filters, on SQLite or PostgreSQL (RESTSMITH_TEST_DB).
 */
const DEFINITION = `
name: clubs
version: 1.0.0
auth: { default: public, roles: [admin] }
limits: { pageSize: { default: 2, max: 10 } }
resources:
  clubs:
    id: integer
    fields: { name: { type: string, required: true } }
    relations:
      players: { through: memberships }
  players:
    fields: { name: { type: string, required: true } }
  memberships:
    id: integer
    fields:
      clubId: { type: ref, to: clubs, required: true, onDelete: cascade }
      playerId: { type: ref, to: players, required: true, onDelete: cascade }
    unique: [[clubId, playerId]]
  matches:
    id: integer
    fields:
      venue: string
      homeId: { type: ref, to: clubs, required: true, as: home, inverse: homeMatches }
`;

interface Inject {
  inject(o: { method: string; url: string; payload?: unknown }): Promise<{ statusCode: number; body: string }>;
  close(): Promise<void>;
}
let app: Inject;
let close: () => Promise<void>;
const call = async (method: string, url: string, payload?: unknown) => {
  const r = await app.inject({ method, url, ...(payload !== undefined && { payload }) });
  return { status: r.statusCode, body: (r.body === '' ? undefined : JSON.parse(r.body)) as unknown };
};

beforeAll(async () => {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'clubs.yaml');
  writeFileSync(file, DEFINITION);
  const dir = await generateFresh(file, 'e2e-relations-integer');
  await typecheckAndBuild(dir);
  const load = <T>(path: string) => loadBuilt<T>(join(dir, 'dist'), path);
  type Db = { close(): Promise<void> };
  const { openDatabase } = await load<{ openDatabase: (url: string) => Db }>('db/open.js');
  const { migrate } = await load<{ migrate: (db: Db) => Promise<unknown> }>('db/migrate.js');
  const { buildApp } = await load<{ buildApp: (o: object) => Promise<Inject> }>('app.js');
  const db = openDatabase(await databaseUrl('relations-integer'));
  await migrate(db);
  app = await buildApp({ db, auth: { secret: SECRET }, rateLimitMax: 100_000 });
  close = async () => {
    await app.close();
    await db.close();
  };
  expect(await token('x')).toBeTruthy();
}, 240_000);

afterAll(async () => close?.());

it('embeds, nests, links and filters across integer and uuid ids', async () => {
  const body = async <T>(method: string, url: string, payload?: unknown) =>
    (await call(method, url, payload)).body as T;
  const clubs: number[] = [];
  for (const name of ['Ajax', 'Benfica', 'Celtic'])
    clubs.push((await body<{ id: number }>('POST', '/clubs', { name })).id);
  const players: string[] = [];
  for (const name of ['Ada', 'Bo', 'Cy']) players.push((await body<{ id: string }>('POST', '/players', { name })).id);
  for (const [club, player] of [
    [0, 0],
    [0, 1],
    [0, 2],
    [1, 0],
  ] as const) {
    expect((await call('PUT', `/clubs/${clubs[club]}/players/${players[player]}`)).status).toBe(204);
  }
  expect((await call('PUT', `/clubs/${clubs[0]}/players/${players[0]}`)).status).toBe(204);
  for (const venue of ['north', 'south', 'east']) {
    expect((await call('POST', `/clubs/${clubs[0]}/home-matches`, { venue })).status).toBe(201);
  }
  // a page of 2 per parent, whose cursor continues on the nested route
  const ajax = await body<{
    players: { items: { name: string }[]; nextCursor: string | null };
    homeMatches: { items: { venue: string }[]; nextCursor: string };
  }>('GET', `/clubs/${clubs[0]}?include=players,homeMatches`);
  expect(ajax.players.items.map((p) => p.name)).toEqual(['Ada', 'Bo']);
  type Page<T> = { items: T[] };
  const more = await body<Page<{ name: string }>>(
    'GET',
    `/clubs/${clubs[0]}/players?cursor=${ajax.players.nextCursor}`,
  );
  expect(more.items.map((p) => p.name)).toEqual(['Cy']);
  expect(ajax.homeMatches.items.map((m) => m.venue)).toEqual(['north', 'south']);
  const listed = (
    await body<Page<{ name: string; players: Page<unknown> }>>('GET', '/clubs?include=players&sort=name&limit=10')
  ).items;
  expect(listed.map((c) => [c.name, c.players.items.length])).toEqual([
    ['Ajax', 2],
    ['Benfica', 1],
    ['Celtic', 0],
  ]);
  const ada = (await call('GET', `/players/${players[0]}?include=clubs`)).body as {
    clubs: { items: { name: string }[] };
  };
  expect(ada.clubs.items.map((c) => c.name)).toEqual(['Ajax', 'Benfica']);
  const byPlayer = await body<Page<{ name: string }>>('GET', '/clubs?players.name=Cy');
  expect(byPlayer.items.map((c) => c.name)).toEqual(['Ajax']);
  expect((await body<Page<unknown>>('GET', '/matches?home.name=Ajax&limit=10')).items).toHaveLength(3);
  const match = await body<Page<{ home: { name: string } }>>('GET', '/matches?include=home&limit=1');
  expect(match.items[0]?.home.name).toBe('Ajax');
  expect((await call('DELETE', `/clubs/${clubs[0]}/players/${players[1]}`)).status).toBe(204);
  expect((await body<Page<unknown>>('GET', `/players/${players[1]}/clubs`)).items).toEqual([]);
  expect((await call('PUT', `/clubs/999999/players/${players[0]}`)).status).toBe(404);
  expect((await call('GET', '/clubs/0/players')).status).toBe(404);
});
