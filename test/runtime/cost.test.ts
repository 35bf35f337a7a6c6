import { describe, expect, it } from 'vitest';
import { sqliteCost, type PlanLine } from '../../runtime/src/db/cost.js';
import { openSqlite } from '../../runtime/src/db/sqlite.js';
import { classify, SCHEMA, SHAPES } from '../helpers/cost-shapes.js';

describe('the cost class of a listing statement on SQLite, from its plan', () => {
  it('is the one each shape wants, on an empty table and a filled one alike', async () => {
    const db = openSqlite(':memory:');
    try {
      const statement = (sql: string) => db.prepareText(sql).run([]);
      for (const sql of SCHEMA('sqlite')) await statement(sql);
      const empty = await classify(db);
      await statement(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) INSERT INTO "users" SELECT 'u' || i, 'FR' FROM n`,
      );
      await statement(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
         INSERT INTO "posts" SELECT printf('%08d', i), 'post ' || i, 'body ' || i, i % 100, 'u' || (i % 100 + 1), 'u' || ((i * 7) % 100 + 1), '2024-01-01' FROM n`,
      );
      await statement('ANALYZE');
      const filled = await classify(db);
      const want = SHAPES.map(([name, , cost]) => [name, cost]);
      expect(empty).toEqual(want);
      expect(filled).toEqual(want);
    } finally {
      await db.close();
    }
  });

  /** plan lines, each under the one before it when indented by two spaces */
  const plan = (...details: string[]): PlanLine[] => {
    const parents: number[] = [0];
    return details.map((text, i) => {
      const depth = (text.length - text.trimStart().length) / 2;
      parents[depth + 1] = i + 1;
      return { id: i + 1, parent: parents[depth] ?? 0, detail: text.trim() };
    });
  };
  it.each<[string, PlanLine[], string[], string]>([
    ['a sort', plan('SCAN posts', 'USE TEMP B-TREE FOR ORDER BY'), [], 'scans'],
    ['a walk in order, no condition', plan('SCAN posts USING INDEX sqlite_autoindex_posts_1'), [], 'cheap'],
    ['a walk in order, a condition', plan('SCAN posts USING INDEX sqlite_autoindex_posts_1'), ['body'], 'scans'],
    ['a search serving the condition', plan('SEARCH posts USING INDEX a (author_id=?)'), ['author_id'], 'cheap'],
    ['a search serving one of two', plan('SEARCH posts USING INDEX a (author_id=?)'), ['author_id', 'body'], 'scans'],
    [
      'an in list',
      plan('SEARCH posts USING INDEX a (author_id=?)', 'LIST SUBQUERY 1', '  SCAN json_each VIRTUAL TABLE INDEX 1:'),
      ['author_id'],
      'cheap',
    ],
    // a trigram index walked in id order (integer ids, see trigram-sql.ts drivingTrigram) stops at the page's end
    // for most values, not for one each of whose trigrams most records hold: it runs with the scans
    [
      'a trigram index walked in id order',
      plan('SCAN restsmith_fts VIRTUAL TABLE INDEX 64:M1', 'SEARCH posts USING INTEGER PRIMARY KEY (rowid=?)'),
      ['title'],
      'scans',
    ],
    [
      'a scan of another table',
      plan('SEARCH posts USING INDEX a (author_id=?)', 'LIST SUBQUERY 1', '  SCAN users'),
      ['author_id'],
      'scans',
    ],
    // the listing of two owners: each owner's page from its index, the pages (limited) merged and sorted
    [
      'the pages of two owners, merged',
      plan(
        'CO-ROUTINE owned',
        '  MERGE (UNION)',
        '    LEFT',
        '      CO-ROUTINE owner_0',
        '        SEARCH posts USING COVERING INDEX a_p (author_id=?)',
        '      SCAN owner_0',
        '      USE TEMP B-TREE FOR ORDER BY',
        '    RIGHT',
        '      CO-ROUTINE owner_1',
        '        SEARCH posts USING COVERING INDEX a_d (editor_id=?)',
        '      SCAN owner_1',
        '      USE TEMP B-TREE FOR ORDER BY',
        'SCAN owned',
      ),
      ['author_id', 'editor_id'],
      'cheap',
    ],
    [
      'the pages of two owners, one of them sorted from its table',
      plan(
        'CO-ROUTINE owned',
        '  MERGE (UNION)',
        '    LEFT',
        '      CO-ROUTINE owner_0',
        '        SEARCH posts USING INDEX a_p (author_id=?)',
        '        USE TEMP B-TREE FOR ORDER BY',
        '      SCAN owner_0',
        'SCAN owned',
      ),
      ['author_id'],
      'scans',
    ],
    ['nothing recognised', plan('MULTI-INDEX OR'), ['author_id'], 'scans'],
  ])('%s', (_case, details, conditions, want) => {
    expect(sqliteCost(details, { table: 'posts', conditions })).toBe(want);
  });
});
