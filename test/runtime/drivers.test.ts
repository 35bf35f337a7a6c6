import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openPostgres } from '../../runtime/src/db/postgres.js';

const OPEN = fileURLToPath(new URL('../../runtime/src/db/open.ts', import.meta.url));

/** The driver packages a fresh process has loaded after opening `url` (and closing it). */
function driversLoadedBy(url: string): string[] {
  const script = `
    import { createRequire } from 'node:module';
    const { openDatabase } = await import(${JSON.stringify(OPEN)});
    await openDatabase(${JSON.stringify(url)}).close();
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify(['pg', 'better-sqlite3'].filter((name) => loaded.some((path) => path.includes(\`/node_modules/\${name}/\`)))));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

describe('database drivers', () => {
  it('a server on SQLite loads better-sqlite3 only', () => {
    expect(driversLoadedBy('sqlite::memory:')).toEqual(['better-sqlite3']);
  });

  it('a server on PostgreSQL loads pg only (no connection is made until a query)', () => {
    expect(driversLoadedBy('postgres://nobody@127.0.0.1:1/none')).toEqual(['pg']);
  });

  it('a PostgreSQL statement answers a connection pg cannot even make with a rejected promise, never a throw', async () => {
    // pg reads the certificate as it makes the connection, and throws: no server is needed to get there
    const db = openPostgres(
      'postgres://nobody@127.0.0.1:1/none?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem',
      1,
    );
    let answer: Promise<unknown> | undefined;
    expect(() => (answer = db.prepareText('SELECT 1').get([]))).not.toThrow();
    await expect(answer).rejects.toThrow(/nonexistent/);
    await db.close();
  });
});
