import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deleteReaching, type Reached, type Referrer } from '../../runtime/src/db/cascade.js';
import type { Database, Row } from '../../runtime/src/db/database.js';
import { openSqlite } from '../../runtime/src/db/sqlite.js';
import { EventLog } from '../../runtime/src/events/log.js';
import { EVENT_TABLES } from '../../src/migrate/system-tables.js';

/**
 * A delete that reaches other records through their refs, on SQLite: folders in folders (a ref that goes round),
 * files in folders (cascade), shortcuts to files and folders (setNull), locks that restrict, and notes in folders
 * that reply to notes (two cascades, so that a note may be reached two ways).
 */
const TABLES = [
  `CREATE TABLE folders (id TEXT PRIMARY KEY, parent_id TEXT REFERENCES folders(id) ON DELETE CASCADE,
    owner TEXT, created_at TEXT NOT NULL DEFAULT '', updated_at TEXT NOT NULL DEFAULT '', version INTEGER NOT NULL DEFAULT 1)`,
  `CREATE TABLE files (id INTEGER PRIMARY KEY, folder_id TEXT NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL DEFAULT '', updated_at TEXT NOT NULL DEFAULT '', version INTEGER NOT NULL DEFAULT 1)`,
  `CREATE TABLE shortcuts (id INTEGER PRIMARY KEY, file_id INTEGER REFERENCES files(id) ON DELETE SET NULL,
    folder_id TEXT REFERENCES folders(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL DEFAULT '', updated_at TEXT NOT NULL DEFAULT '', version INTEGER NOT NULL DEFAULT 1)`,
  `CREATE TABLE locks (id INTEGER PRIMARY KEY, folder_id TEXT REFERENCES folders(id) ON DELETE RESTRICT)`,
  `CREATE TABLE notes (id INTEGER PRIMARY KEY, folder_id TEXT REFERENCES folders(id) ON DELETE CASCADE,
    reply_to INTEGER REFERENCES notes(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL DEFAULT '', updated_at TEXT NOT NULL DEFAULT '', version INTEGER NOT NULL DEFAULT 1)`,
];

let db: Database;
let events: EventLog;

function reached(resource: string, columns: string[], idKind: 'text' | 'integer', owner?: string): Reached {
  const referrers: Referrer[] = [];
  return Object.assign(
    {
      resource,
      table: resource,
      columns: columns.map((c) => `"${c}"`).join(', '),
      idKind,
      changeOf: (row: Row) => ({
        recordId: row.id ?? '',
        version: Number(row.version),
        record: row,
        owners: owner === undefined ? [] : [row[owner] ?? null],
      }),
      referrers: () => referrers,
    },
    { list: referrers },
  );
}

const folders = reached('folders', ['id', 'parent_id', 'owner', 'updated_at', 'version'], 'text', 'owner');
const files = reached('files', ['id', 'folder_id', 'updated_at', 'version'], 'integer');
const shortcuts = reached('shortcuts', ['id', 'file_id', 'folder_id', 'updated_at', 'version'], 'integer');
const notes = reached('notes', ['id', 'folder_id', 'reply_to', 'updated_at', 'version'], 'integer');
(folders as unknown as { list: Referrer[] }).list.push(
  { holder: folders, column: 'parent_id', onDelete: 'cascade' },
  { holder: files, column: 'folder_id', onDelete: 'cascade' },
  { holder: shortcuts, column: 'folder_id', onDelete: 'setNull' },
  { holder: notes, column: 'folder_id', onDelete: 'cascade' },
);
(files as unknown as { list: Referrer[] }).list.push({ holder: shortcuts, column: 'file_id', onDelete: 'setNull' });
(notes as unknown as { list: Referrer[] }).list.push({ holder: notes, column: 'reply_to', onDelete: 'cascade' });

const run = (sql: string): Promise<number> => db.prepareText(sql).run([]);
const COLUMNS = `"id", "parent_id", "owner", "updated_at", "version"`;
/** how many events the last delete said it records (for EventLog.committed, and so the metrics) */
let announced: number | undefined;
const deleteFolder = (id: string, version = 1) =>
  db.inTransaction(() =>
    deleteReaching(db, events, {
      root: folders,
      id,
      guard: { statement: db.prepareText('SELECT 1 FROM folders WHERE id = ? AND version = ?'), values: [id, version] },
      remove: {
        statement: db.prepareText(`DELETE FROM folders WHERE id = ? AND version = ? RETURNING ${COLUMNS}`),
        values: [id, version],
      },
      actor: 'ada',
      recording: (count) => (announced = count),
    }),
  );

async function recorded(): Promise<{ type: string; recordId: unknown; version: number; data: Row | null }[]> {
  const rows = await db.prepareText(`SELECT "event" FROM "restsmith_events" ORDER BY "seq"`).all([]);
  return rows.map(
    (row) => JSON.parse(String(row.event)) as { type: string; recordId: unknown; version: number; data: Row | null },
  );
}

beforeEach(async () => {
  db = openSqlite(':memory:');
  for (const statement of [...EVENT_TABLES.sqlite, ...TABLES]) await run(statement);
  events = new EventLog(db);
  await run(
    `INSERT INTO folders (id, parent_id, owner) VALUES ('f1', NULL, 'alice'), ('f2', 'f1', 'bob'), ('f3', 'f2', NULL)`,
  );
  await run(`INSERT INTO files (id, folder_id) VALUES (10, 'f3')`);
  await run(
    `INSERT INTO shortcuts (id, file_id, folder_id) VALUES (100, 10, NULL), (101, NULL, 'f2'), (102, 10, 'f1')`,
  );
});
afterEach(async () => db.close());

describe('a delete that reaches other records', () => {
  it('records each record cleared once, as it is after, then each deleted with it, before what it refers to', async () => {
    const gone = await deleteFolder('f1');
    expect(gone).toMatchObject({ id: 'f1' });
    const seen = await recorded();
    expect(announced).toBe(seen.length);
    expect(seen.map((e) => [e.type, e.recordId, e.version])).toEqual([
      ['shortcuts.updated', 100, 2],
      ['shortcuts.updated', 101, 2],
      ['shortcuts.updated', 102, 2],
      ['files.deleted', 10, 1],
      ['folders.deleted', 'f3', 1],
      ['folders.deleted', 'f2', 1],
      ['folders.deleted', 'f1', 1],
    ]);
    // cleared by the foreign keys, a new version and updatedAt by the delete
    expect(seen[2]?.data).toMatchObject({ file_id: null, folder_id: null, version: 2 });
    expect(seen[2]?.data?.updated_at).not.toBe('');
    expect(seen.slice(3).every((e) => e.data === null)).toBe(true);
    expect(await db.prepareText('SELECT id FROM folders UNION ALL SELECT id FROM files').all([])).toEqual([]);
  });

  it('gives each event the owners of its own record', async () => {
    await deleteFolder('f1');
    const owners = await db
      .prepareText(`SELECT "owners" FROM "restsmith_events" WHERE "type" = 'folders.deleted' ORDER BY "seq"`)
      .all([]);
    expect(owners.map((row) => row.owners)).toEqual([null, '\x1fbob\x1f', '\x1falice\x1f']);
  });

  it('records nothing and changes nothing when the delete removes nothing', async () => {
    expect(await deleteFolder('f1', 2)).toBeUndefined();
    expect(await recorded()).toEqual([]);
    expect(await db.prepareText('SELECT version FROM shortcuts').all([])).toEqual([
      { version: 1 },
      { version: 1 },
      { version: 1 },
    ]);
  });

  it('follows a ref that goes round once per record', async () => {
    await run(`INSERT INTO folders (id, parent_id) VALUES ('f4', NULL), ('f5', 'f4')`);
    await run(`UPDATE folders SET parent_id = 'f5' WHERE id = 'f4'`);
    await deleteFolder('f4');
    expect((await recorded()).map((e) => [e.type, e.recordId])).toEqual([
      ['folders.deleted', 'f5'],
      ['folders.deleted', 'f4'],
    ]);
  });

  it('records the events of a delete that reaches thousands of records in order, a statement for many', async () => {
    const many = Array.from({ length: 1203 }, (_, i) => `(${1000 + i}, 'f2')`).join(', ');
    await run(`INSERT INTO files (id, folder_id) VALUES ${many}`);
    await deleteFolder('f1');
    const seen = await recorded();
    expect(seen).toHaveLength(7 + 1203);
    const files = seen.filter((e) => e.type === 'files.deleted').map((e) => e.recordId);
    // the deepest first: f3's file, then f2's, in the order they were read (from the last)
    expect(files).toEqual([10, ...Array.from({ length: 1203 }, (_, i) => 2202 - i)]);
    expect(seen.at(-1)).toMatchObject({ type: 'folders.deleted', recordId: 'f1' });
  });

  it("records each deleted record's event before those of the records it refers to, however far it was found", async () => {
    // notes 1 and 2 in f1, 1 a reply to 2 (made after, so read first); note 3 in f3 and a reply to 2: found twice
    await run(`INSERT INTO notes (id, folder_id) VALUES (1, 'f1'), (2, 'f1')`);
    await run(`INSERT INTO notes (id, folder_id, reply_to) VALUES (3, 'f3', 2), (4, NULL, 3), (5, NULL, 4)`);
    await run(`UPDATE notes SET reply_to = 2 WHERE id = 1`);
    const refs = [
      ...(await db.prepareText('SELECT id, parent_id AS ref FROM folders WHERE parent_id IS NOT NULL').all([])).map(
        (row) => [`folders.deleted ${row.id}`, `folders.deleted ${row.ref}`],
      ),
      ...(await db.prepareText('SELECT id, folder_id AS ref FROM files').all([])).map((row) => [
        `files.deleted ${row.id}`,
        `folders.deleted ${row.ref}`,
      ]),
      ...(await db.prepareText('SELECT id, folder_id AS ref FROM notes WHERE folder_id IS NOT NULL').all([])).map(
        (row) => [`notes.deleted ${row.id}`, `folders.deleted ${row.ref}`],
      ),
      ...(await db.prepareText('SELECT id, reply_to AS ref FROM notes WHERE reply_to IS NOT NULL').all([])).map(
        (row) => [`notes.deleted ${row.id}`, `notes.deleted ${row.ref}`],
      ),
    ];
    await deleteFolder('f1');
    const order = (await recorded()).map((e) => `${e.type} ${String(e.recordId)}`);
    expect(order.filter((e) => e.startsWith('notes.'))).toHaveLength(5);
    expect(refs).toHaveLength(10);
    for (const [from = '', to = ''] of refs) {
      expect(order.indexOf(from), `${from} before ${to}`).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(from), `${from} before ${to}`).toBeLessThan(order.indexOf(to));
    }
    expect(order.at(-1)).toBe('folders.deleted f1');
  });

  it('records every record of a cycle of refs among those deleted once, the rest still in order', async () => {
    await run(`INSERT INTO notes (id, folder_id) VALUES (6, 'f2'), (7, 'f2'), (8, 'f3')`);
    await run(`UPDATE notes SET reply_to = CASE id WHEN 6 THEN 7 WHEN 7 THEN 6 ELSE 6 END`);
    await deleteFolder('f1');
    const order = (await recorded()).map((e) => `${e.type} ${String(e.recordId)}`);
    expect(order.filter((e) => e.startsWith('notes.')).sort()).toEqual([
      'notes.deleted 6',
      'notes.deleted 7',
      'notes.deleted 8',
    ]);
    // 8 replies to 6, and is in f3, in f2, in f1
    for (const later of ['notes.deleted 6', 'folders.deleted f3', 'folders.deleted f2'])
      expect(order.indexOf('notes.deleted 8')).toBeLessThan(order.indexOf(later));
    expect(order.at(-1)).toBe('folders.deleted f1');
  });

  it("keeps a record outside a cycle after the cycle records that refer to it (a reviewer's)", async () => {
    // notes 1 and 2 reply to each other; 2 is also in f4, the furthest folder, which waits for it
    await run(`INSERT INTO folders (id, parent_id) VALUES ('f4', 'f3')`);
    await run(`INSERT INTO notes (id, folder_id) VALUES (1, 'f1'), (2, 'f4')`);
    await run(`UPDATE notes SET reply_to = CASE id WHEN 1 THEN 2 ELSE 1 END`);
    await deleteFolder('f1');
    const order = (await recorded()).map((e) => `${e.type} ${String(e.recordId)}`);
    const at = (event: string): number => order.indexOf(event);
    expect(at('notes.deleted 2')).toBeLessThan(at('folders.deleted f4'));
    expect(at('folders.deleted f4')).toBeLessThan(at('folders.deleted f3'));
    expect(Math.abs(at('notes.deleted 1') - at('notes.deleted 2'))).toBe(1);
    expect(order.at(-1)).toBe('folders.deleted f1');
  });

  it("records a delete that reaches 130,000 records, which no call takes as its arguments (a reviewer's)", async () => {
    await run(
      `WITH RECURSIVE n(i) AS (SELECT 1000 UNION ALL SELECT i + 1 FROM n WHERE i < 130999)
       INSERT INTO files (id, folder_id) SELECT i, 'f2' FROM n`,
    );
    await deleteFolder('f1');
    const counted = await db.prepareText(`SELECT count(*) AS n FROM "restsmith_events"`).get([]);
    expect(counted).toEqual({ n: 7 + 130_000 });
  });

  it('records nothing when a ref that restricts refuses the delete', async () => {
    await run(`INSERT INTO locks (id, folder_id) VALUES (1, 'f3')`);
    await expect(deleteFolder('f1')).rejects.toMatchObject({ kind: 'foreignKey' });
    expect(await recorded()).toEqual([]);
    expect(await db.prepareText('SELECT count(*) AS n FROM folders').get([])).toEqual({ n: 3 });
  });
});
