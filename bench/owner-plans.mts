// The query plans and timings of a listing restricted to one of several owners (owner: [patientId, doctorId]), on
// both databases, as the server writes it (runtime/src/db/list-sql.ts) and as a plain OR would be:
// `source scripts/services.sh && node node_modules/.bin/tsx bench/owner-plans.mts`. See RESULTS.md.
import Database from 'better-sqlite3';
import pg from 'pg';
import { keysetParams, listParams, listSql, type ListShape } from '../runtime/src/db/list-sql.js';

const N = 200_000;
const id = (i: number): string => String(i).padStart(8, '0');
const owner = { columns: ['patient_id', 'doctor_id'], kind: 'text' as const };
const sort = [{ column: { column: 'id', kind: 'text' as const, notNull: true }, descending: false }];
const shape = (after: boolean): ListShape => ({ owner, filters: [], sort, ...(after && { afterNulls: [false] }) });
const params = (who: string, after: string | undefined): (string | number)[] =>
  listParams(owner, who, [...(after === undefined ? [] : keysetParams([after])), 21]) as (string | number)[];
const or = (dialect: 'sqlite' | 'postgres', after: boolean): string =>
  dialect === 'sqlite'
    ? `SELECT * FROM "appointments" WHERE ("patient_id" = ? OR "doctor_id" = ?)${after ? ' AND "id" > ?' : ''} ORDER BY "id" LIMIT ?`
    : `SELECT * FROM "appointments" WHERE ("patient_id" = $1 OR "doctor_id" = $1)${after ? ' AND "id" > $2' : ''} ORDER BY "id" LIMIT ${after ? '$3' : '$2'}`;

const db = new Database(':memory:');
db.exec('CREATE TABLE appointments (id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, doctor_id TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO appointments VALUES (?, ?, ?)');
db.transaction(() => {
  for (let i = 0; i < N; i++) insert.run(id(i), `p${i % 5000}`, `d${i % 100}`);
})();
db.exec('CREATE INDEX a_p ON appointments (patient_id, id); CREATE INDEX a_d ON appointments (doctor_id, id); ANALYZE');
const time = (sql: string, values: (string | number)[]): string => {
  const statement = db.prepare(sql);
  const start = process.hrtime.bigint();
  for (let k = 0; k < 1000; k++) statement.all(...values);
  return `${(Number(process.hrtime.bigint() - start) / 1e9).toFixed(3)} ms`;
};
console.log(`SQLite, ${N} appointments, a doctor with ${N / 100}:`);
for (const row of db
  .prepare(`EXPLAIN QUERY PLAN ${listSql('appointments', '*', shape(true), 'sqlite')}`)
  .all(...params('d7', id(150000))) as { detail: string }[])
  console.log(`   ${row.detail}`);
for (const [label, after] of [
  ['first page', undefined],
  ['deep page', id(190000)],
] as const) {
  const server = time(listSql('appointments', '*', shape(after !== undefined), 'sqlite'), params('d7', after));
  const plain = time(
    or('sqlite', after !== undefined),
    after === undefined ? ['d7', 'd7', 21] : ['d7', 'd7', after, 21],
  );
  console.log(`  ${label}: ${server} per query as written (UNION), ${plain} as an OR`);
}

const client = new pg.Client({ connectionString: process.env.RESTSMITH_TEST_PG_URL });
await client.connect();
await client.query('DROP TABLE IF EXISTS appointments');
await client.query(
  'CREATE TABLE appointments (id TEXT COLLATE "C" PRIMARY KEY, patient_id TEXT COLLATE "C" NOT NULL, doctor_id TEXT COLLATE "C" NOT NULL)',
);
await client.query(
  `INSERT INTO appointments SELECT lpad(i::text, 8, '0'), 'p' || (i % 5000), 'd' || (i % 100) FROM generate_series(0, ${N - 1}) i`,
);
await client.query(
  'CREATE INDEX a_p ON appointments (patient_id, id); CREATE INDEX a_d ON appointments (doctor_id, id); ANALYZE appointments',
);
for (const [label, who, after] of [
  ['a patient, first page', 'p42', undefined],
  ['a doctor, first page', 'd7', undefined],
  ['a doctor, deep page', 'd7', id(190000)],
] as const) {
  const written = await client.query(
    `EXPLAIN ANALYZE ${listSql('appointments', '*', shape(after !== undefined), 'postgres')}`,
    params(who, after),
  );
  const plain = await client.query(
    `EXPLAIN ANALYZE ${or('postgres', after !== undefined)}`,
    after === undefined ? [who, 21] : [who, after, 21],
  );
  const last = (r: pg.QueryResult): string => String(r.rows.at(-1)?.['QUERY PLAN']);
  console.log(`PostgreSQL, ${label}: as written (UNION) ${last(written)}; as an OR ${last(plain)}`);
  if (label === 'a doctor, first page') for (const r of written.rows) console.log(`   ${r['QUERY PLAN']}`);
}
await client.query('DROP TABLE appointments');
await client.end();
