import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';

/** Fills the benchmark's tables with `rows` records each; returns the ids of each table, in id order. */
export function seed(file: string, rows: number): { posts: string[]; articles: string[] } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const ids = { posts: [] as string[], articles: [] as string[] };
  for (const table of ['posts', 'articles'] as const) {
    const insert = db.prepare(
      `INSERT INTO ${table} (id, title, body, status, views, rating, featured, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const now = new Date().toISOString();
    db.transaction(() => {
      for (let i = 0; i < rows; i += 1) {
        const id = uuidv7();
        ids[table].push(id);
        insert.run(
          id,
          `Post number ${i}`,
          `The body of post ${i}, long enough to look like text.`,
          i % 3 === 0 ? 'published' : 'draft',
          i,
          i % 5 === 0 ? null : (i % 50) / 10,
          i % 2,
          now,
          now,
        );
      }
    })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return ids;
}

/** The cursor both servers issue for the page after `id` (base64url of a JSON array). */
export const cursorAfter = (id: string): string => Buffer.from(JSON.stringify([id])).toString('base64url');
