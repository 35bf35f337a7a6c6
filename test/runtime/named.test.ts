import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../runtime/src/db/sqlite.js';
import { positional } from '../../runtime/src/db/named.js';

/** Named parameters become each driver's positional ones: given SQL, want text and the order names bind in. */
describe('named parameters', () => {
  it.each<[string, string, string, string[], string, string[]]>([
    [
      'one of each',
      'SELECT 1 FROM "t" WHERE "id" = :id AND "v" = coalesce(:if_version, "v")',
      'SELECT 1 FROM "t" WHERE "id" = ? AND "v" = coalesce(?, "v")',
      ['id', 'if_version'],
      'SELECT 1 FROM "t" WHERE "id" = $1 AND "v" = coalesce($2, "v")',
      ['id', 'if_version'],
    ],
    [
      'a name used twice binds twice on SQLite, once on PostgreSQL',
      'SELECT :a, :b, :a',
      'SELECT ?, ?, ?',
      ['a', 'b', 'a'],
      'SELECT $1, $2, $1',
      ['a', 'b'],
    ],
    [
      'quoted identifiers, string literals and casts are not parameters',
      `SELECT ":no", ':no', 'it''s :no', :yes::jsonb FROM "a""b:c"`,
      `SELECT ":no", ':no', 'it''s :no', ?::jsonb FROM "a""b:c"`,
      ['yes'],
      `SELECT ":no", ':no', 'it''s :no', $1::jsonb FROM "a""b:c"`,
      ['yes'],
    ],
  ])('%s', (_, sql, sqliteText, sqliteNames, postgresText, postgresNames) => {
    expect(positional(sql, 'sqlite')).toEqual({ text: sqliteText, names: sqliteNames });
    expect(positional(sql, 'postgres')).toEqual({ text: postgresText, names: postgresNames });
  });

  it('binds by name, and refuses a binding without a name the statement has', async () => {
    const db = openSqlite(':memory:');
    const statement = db.prepare<{ a: string; b: number }>('SELECT :b AS b, :a AS a, :b + 1 AS c');
    expect(await statement.get({ a: 'x', b: 1 })).toEqual({ b: 1, a: 'x', c: 2 });
    const incomplete = { a: 'x' } as unknown as { a: string; b: number };
    // a rejected promise, as every other failure of a statement, not a throw before there is one
    await expect(statement.get(incomplete)).rejects.toThrow('no value for the parameter :b');
    await expect(statement.all(incomplete)).rejects.toThrow('no value for the parameter :b');
    await expect(statement.run(incomplete)).rejects.toThrow('no value for the parameter :b');
    expect(() => statement.bind(incomplete)).toThrow('no value for the parameter :b');
    await db.close();
  });
});
