// The query plans of a listing restricted to one of several owners (owner: [patientId, doctorId]), on both databases:
// `node bench/owner-plans.cjs` with RESTSMITH_TEST_PG_URL set (source scripts/services.sh). See RESULTS.md.
const Database = require('better-sqlite3');
const pg = require('pg');
const N = 200000;
const sqliteSql =
  'SELECT "id" FROM "appointments" WHERE ("patient_id" = ? OR "doctor_id" = ?) AND (("id" > ?)) ORDER BY "id" ASC LIMIT ?';
const pgSql =
  'SELECT "id" FROM "appointments" WHERE ("patient_id" = $1::text OR "doctor_id" = $2::text) AND (("id" > $3::text)) ORDER BY "id" ASC LIMIT $4::bigint';
const id = (i) => String(i).padStart(8, '0');
(async () => {
  const db = new Database(':memory:');
  db.exec(
    'CREATE TABLE appointments (id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, doctor_id TEXT NOT NULL, starts_at TEXT)',
  );
  const ins = db.prepare('INSERT INTO appointments VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < N; i++) ins.run(id(i), 'p' + (i % 5000), 'd' + (i % 100), 'x');
  })();
  db.exec(
    'CREATE INDEX a_p ON appointments (patient_id, id); CREATE INDEX a_d ON appointments (doctor_id, id); ANALYZE',
  );
  console.log('SQLite plan:');
  for (const row of db.prepare('EXPLAIN QUERY PLAN ' + sqliteSql).all('p42', 'p42', id(150000), 21))
    console.log('  ', row.detail);
  const stmt = db.prepare(sqliteSql);
  for (const [label, after] of [
    ['first page', ''],
    ['deep page', id(190000)],
  ]) {
    const t = process.hrtime.bigint();
    for (let k = 0; k < 1000; k++) stmt.all('d7', 'd7', after, 21);
    console.log(
      `  ${label} (doctor with ${N / 100} rows): ${Number(process.hrtime.bigint() - t) / 1e6 / 1000} ms/query`,
    );
  }
  const c = new pg.Client({ connectionString: process.env.RESTSMITH_TEST_PG_URL });
  await c.connect();
  await c.query('DROP TABLE IF EXISTS plan_appointments');
  await c.query(
    'CREATE TABLE plan_appointments (id TEXT COLLATE "C" PRIMARY KEY, patient_id TEXT COLLATE "C" NOT NULL, doctor_id TEXT COLLATE "C" NOT NULL)',
  );
  await c.query(
    `INSERT INTO plan_appointments SELECT lpad(i::text, 8, '0'), 'p' || (i % 5000), 'd' || (i % 100) FROM generate_series(0, ${N - 1}) i`,
  );
  await c.query(
    'CREATE INDEX pa_p ON plan_appointments (patient_id, id); CREATE INDEX pa_d ON plan_appointments (doctor_id, id); ANALYZE plan_appointments',
  );
  for (const [label, who, after] of [
    ['patient, first page', 'p42', ''],
    ['doctor, deep page', 'd7', id(190000)],
  ]) {
    const r = await c.query(`EXPLAIN ANALYZE ${pgSql.replace('"appointments"', 'plan_appointments')}`, [
      who,
      who,
      after,
      21,
    ]);
    console.log(`PostgreSQL plan, ${label}:`);
    for (const row of r.rows) console.log('  ', row['QUERY PLAN']);
  }
  await c.query('DROP TABLE plan_appointments');
  await c.end();
})();
