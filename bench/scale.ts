import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, wrk } from './lib.js';
import { generatedCursorAfter, seed } from './seed.js';

export interface Paging {
  rows: number;
  firstMs: number;
  deepMs: number;
}

/** Mean latency of the first page and of a page near the end (keyset: both should cost the same), one connection. */
export async function scale(
  generated: string,
  work: string,
  sizes: readonly number[],
  secret: string,
): Promise<Paging[]> {
  const results: Paging[] = [];
  for (const rows of sizes) {
    const dir = join(work, `scale-${rows}`);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'scale.db');
    const env = { JWT_SECRET: secret, DATABASE_URL: `sqlite:${file}`, RATE_LIMIT_MAX: '0' };
    const migrate = await startServer('migrate', ['dist/main.js'], generated, env, '/healthz');
    await migrate.stop();
    const ids = seed(file, rows).posts;
    const server = await startServer(`generated at ${rows} rows`, ['dist/main.js'], generated, env, '/healthz');
    try {
      const first = `${server.url}/posts?limit=20`;
      const deep = `${server.url}/posts?limit=20&cursor=${await generatedCursorAfter(server.url, ids[rows - 40] ?? '')}`;
      wrk(first, 1, 1);
      wrk(deep, 1, 1);
      results.push({ rows, firstMs: wrk(first, 3, 1).meanMs, deepMs: wrk(deep, 3, 1).meanMs });
    } finally {
      await server.stop();
    }
  }
  return results;
}
