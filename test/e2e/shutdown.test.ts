import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { generateFresh, http, ROOT, startServer, typecheckAndBuild, type RunningServer } from '../helpers/project.js';

let dir: string;
let url: string;
let restarted: RunningServer | undefined;

beforeAll(async () => {
  dir = await generateFresh(`${ROOT}/test/e2e/fixtures/shop.yaml`, 'e2e-shutdown');
  await typecheckAndBuild(dir);
  url = await databaseUrl('shutdown', 'sqlite:./data/shutdown.db');
});

afterAll(async () => {
  await restarted?.stop();
});

describe('graceful shutdown', () => {
  it('on SIGTERM stops accepting, finishes the writes in flight and keeps every write it acknowledged', async () => {
    const server = await startServer(dir, { DATABASE_URL: url });
    const acknowledged: string[] = [];
    let refused = 0;
    let running = true;
    // 8 clients write as fast as they can until the server is gone (bounded: at most 2,000 writes each)
    const writer = async (n: number): Promise<void> => {
      for (let i = 0; running && i < 2000; i += 1) {
        try {
          const r = await http('POST', `${server.url}/orders`, { item: `writer ${n} write ${i}` });
          if (r.status === 201) acknowledged.push((r.body as { id: string }).id);
          else refused += 1;
        } catch {
          refused += 1; // the connection was closed or refused: the server has stopped accepting
          if (server.process.exitCode !== null) return;
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, n) => writer(n));
    while (acknowledged.length < 200) await new Promise((wait) => setTimeout(wait, 10));
    const exited = new Promise<number | null>((done) => server.process.once('exit', (code) => done(code)));
    server.process.kill('SIGTERM');
    const code = await exited;
    running = false;
    await Promise.all(writers);

    expect(code).toBe(0); // it exited on its own: server closed, requests finished, database closed
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);
    expect(refused).toBeGreaterThan(0); // writes kept coming after SIGTERM and were not accepted

    restarted = await startServer(dir, { DATABASE_URL: url });
    const missing: string[] = [];
    for (const id of acknowledged) {
      if ((await http('GET', `${restarted.url}/orders/${id}`)).status !== 200) missing.push(id);
    }
    expect(missing).toEqual([]);
  });
});
