import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../runtime/src/db/database.js';
import { migrate } from '../../runtime/src/db/migrate.js';
import { openSqlite } from '../../runtime/src/db/sqlite.js';
import { installErrorHandlers } from '../../runtime/src/http/errors.js';
import { pendingDetail, refuseWhileMigrationsPending } from '../../runtime/src/http/pending-migrations.js';

vi.mock('../../runtime/src/db/migrations/index.js', () => ({
  migrations: {
    '0001-initial': { additive: true, sqlite: ['CREATE TABLE "notes" ("id" TEXT PRIMARY KEY)'], postgres: [] },
  },
}));

/** The app of a server started with MIGRATE_ON_START=false: a route of the API, the health checks, a problem page. */
async function appOn(db: Database): Promise<FastifyInstance> {
  // as app.ts makes it: a trailing slash is the same path
  const app = Fastify({ routerOptions: { ignoreTrailingSlash: true } });
  installErrorHandlers(app);
  await refuseWhileMigrationsPending(app, db, '/api');
  for (const path of ['/api/notes', '/api/healthz', '/api/livez', '/api/readyz', '/api/problems/unavailable']) {
    app.get(path, async () => ({ path }));
  }
  await app.ready();
  return app;
}

let db: Database;
beforeEach(() => {
  db = openSqlite(':memory:');
});
afterEach(async () => db.close());

describe('a server whose migrations are pending', () => {
  it('answers 503 naming them and `npm run migrate` (not its health checks), and serves once they are applied', async () => {
    const app = await appOn(db);
    try {
      const refused = await app.inject('/api/notes?limit=1');
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(refused.body)).toMatchObject({
        status: 503,
        detail:
          'the database is not migrated for this version: migration 0001-initial is pending; run `npm run migrate`',
      });
      for (const path of ['/api/healthz', '/api/livez/', '/api/readyz', '/api/problems/unavailable']) {
        expect((await app.inject(path)).statusCode, path).toBe(200);
      }
      // what `npm run migrate` leaves, from another process: this one reads the book again once a second
      await db.prepareText('CREATE TABLE "restsmith_migrations" ("name" TEXT PRIMARY KEY, "timestamp" TEXT)').run([]);
      await db.prepareText(`INSERT INTO "restsmith_migrations" VALUES ('0001-initial', 'now')`).run([]);
      let status = 503;
      for (let attempt = 0; attempt < 40 && status === 503; attempt += 1) {
        await new Promise((wait) => setTimeout(wait, 100));
        status = (await app.inject('/api/notes')).statusCode;
      }
      expect(status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('adds no hook at all after a start that migrated', async () => {
    await migrate(db);
    const app = Fastify();
    const hooks = vi.spyOn(app, 'addHook');
    await refuseWhileMigrationsPending(app, db, '/api');
    expect(hooks).not.toHaveBeenCalled();
    await app.close();
  });

  it('names every one pending', () => {
    expect(pendingDetail(['0002-a', '0003-b'])).toBe(
      'the database is not migrated for this version: migrations 0002-a, 0003-b are pending; run `npm run migrate`',
    );
  });
});
