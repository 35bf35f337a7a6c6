import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';

/** The values of seeded row `i` (the same in SQLite and PostgreSQL). */
export function seedRow(i: number): {
  title: string;
  body: string;
  status: string;
  views: number;
  rating: number | null;
  featured: boolean;
} {
  return {
    title: `Post number ${i}`,
    body: `The body of post ${i}, long enough to look like text.`,
    status: i % 3 === 0 ? 'published' : 'draft',
    views: i,
    rating: i % 5 === 0 ? null : (i % 50) / 10,
    featured: i % 2 === 1,
  };
}

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
        const row = seedRow(i);
        insert.run(id, row.title, row.body, row.status, row.views, row.rating, row.featured ? 1 : 0, now, now);
      }
    })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return ids;
}

/** The baseline's cursor for the page after `id`: base64url of a JSON array. */
export const baselineCursorAfter = (id: string): string => Buffer.from(JSON.stringify([id])).toString('base64url');

/**
 * The generated server's cursor for the page after `id`. Its cursors are signed, so it is asked for one: the
 * first page of the records from `id` on, one record long, ends with the cursor after `id`.
 */
export async function generatedCursorAfter(url: string, id: string): Promise<string> {
  const response = await fetch(`${url}/posts?limit=1&id[gte]=${id}`);
  const page = (await response.json()) as { nextCursor?: string | null };
  if (!response.ok || typeof page.nextCursor !== 'string') throw new Error(`no cursor after ${id}: ${response.status}`);
  return encodeURIComponent(page.nextCursor);
}
