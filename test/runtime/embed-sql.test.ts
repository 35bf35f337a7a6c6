import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { RelationLink, RelationTarget } from '../../runtime/src/relations/embed.js';
import { toManySql } from '../../runtime/src/relations/sql.js';

/**
 * The SQLite statement of an embedded to-many page: each parent's page is a bounded walk of the `(ref, id)` index,
 * whether the parent has more related rows than a page or fewer, owned by the caller or not.
 */
const link: RelationLink = { kind: 'many', target: 'children', field: 'parentId', column: 'parent_id' };

function setup(idKind: 'text' | 'integer') {
  const db = new Database(':memory:');
  const id = idKind === 'integer' ? 'INTEGER PRIMARY KEY' : 'TEXT PRIMARY KEY NOT NULL';
  db.exec(`CREATE TABLE children (id ${id}, parent_id TEXT NOT NULL, owner_id TEXT NOT NULL);
    CREATE INDEX children_parent_id_idx ON children (parent_id, id);
    CREATE INDEX children_owner_id_idx ON children (owner_id, id);`);
  const insert = db.prepare('INSERT INTO children (id, parent_id, owner_id) VALUES (?, ?, ?)');
  const key = (n: number) => (idKind === 'integer' ? n : `id-${String(n).padStart(6, '0')}`);
  // parent "big" has 2,000 children, "small" has 3; every third one is alice's
  db.transaction(() => {
    for (let n = 1; n <= 2000; n++) insert.run(key(n), 'big', n % 3 === 0 ? 'alice' : 'bob');
    for (let n = 2001; n <= 2003; n++) insert.run(key(n), 'small', n % 3 === 0 ? 'alice' : 'bob');
  })();
  const target: RelationTarget = {
    table: 'children',
    columns: ['id', 'parent_id'],
    idKind,
    read: { owner: true },
    owner: { columns: ['owner_id'], kind: 'text', value: (s) => s },
    decode: (row) => row,
    cursorAfter: () => '',
  };
  return { db, target, key };
}

describe.each(['text', 'integer'] as const)('toManySql on SQLite, %s ids', (idKind) => {
  it.each([null, 'alice'])('walks a bounded range of the index per parent (scope %s)', (scope) => {
    const { db, target, key } = setup(idKind);
    const { sql, params } = toManySql('sqlite', link, target, JSON.stringify(['big', 'small']), idKind, {
      scope,
      joinScope: false,
      rows: 5,
    });
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((row) => (row as { detail: string }).detail);
    // the parent's rows are searched with the id bounded by the cut, not read in full (scoped to an owner, the
    // planner may walk the owner's index instead: bounded by the owner's rows)
    const walk = plan.find((line) => /^SEARCH children\b/.test(line) && !/\bAS x\b|SEARCH x\b/.test(line));
    if (scope === null) expect(walk).toMatch(/\b(row)?id<=?\?/);
    const rows = db
      .prepare(sql)
      .raw()
      .all(...params) as [string | number, string][];
    const mine = (n: number) => scope === null || n % 3 === 0;
    const expected = (parent: string, from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => from + i)
        .filter(mine)
        .slice(0, 5)
        .map((n) => [key(n), parent]);
    const sorted = [...rows].sort((a, b) => (a[1] === b[1] ? (a[0] < b[0] ? -1 : 1) : a[1] < b[1] ? -1 : 1));
    expect(sorted).toEqual([...expected('big', 1, 2000), ...expected('small', 2001, 2003)]);
  });
});
