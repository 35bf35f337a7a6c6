import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { evolvingProject, typecheckAndBuild } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * `renamedFrom` on a resource (SPEC §9): renaming doctors to physicians keeps the table, its rows and the refs to it
 * — an ordinary regenerate, no --allow-data-loss — where a drop would delete every appointment with it.
 */
const V1 = `
name: practice
version: 1.0.0
auth: { default: authenticated, roles: [admin] }
resources:
  departments:
    id: integer
    fields: { name: { type: string, required: true } }
  doctors:
    fields:
      name: { type: string, required: true, unique: true }
      departmentId: { type: ref, to: departments, required: true, onDelete: restrict }
  appointments:
    fields:
      doctorId: { type: ref, to: doctors, required: true, onDelete: cascade }
      note: string
`;

const V2 = V1.replace('  doctors:\n', '  physicians:\n    renamedFrom: doctors\n').replace(
  'to: doctors,',
  'to: physicians,',
);

const project = evolvingProject('rename-resource', 'practice.yaml');
const { dir, generate } = project;

afterAll(() => project.remove());

it('renames a resource keeping its rows, the refs to it, its own refs and its unique index', async () => {
  await generate(V1);
  await typecheckAndBuild(dir);
  const env = { DATABASE_URL: await databaseUrl('rename-resource', 'sqlite:./data/practice.db'), JWT_SECRET: SECRET };
  const admin = as(await token('root', { roles: ['admin'] }));
  const serve = <T>(use: (url: string) => Promise<T>): Promise<T> => project.serve(env, use);
  const id = (r: { status: number; body: unknown; text: string }) => {
    expect(r.status, r.text).toBe(201);
    return (r.body as { id: string }).id;
  };
  const seeded = await serve(async (url) => {
    const department = id(await admin('POST', `${url}/departments`, { name: 'Cardiology' }));
    const doctor = id(await admin('POST', `${url}/doctors`, { name: 'Dr. Who', departmentId: department }));
    const appointment = id(await admin('POST', `${url}/appointments`, { doctorId: doctor, note: 'checkup' }));
    return { department, doctor, appointment };
  });

  const out = await generate(V2);
  expect(out).toContain('rename doctors to physicians');
  const migrations = readFileSync(join(dir, 'src/db/migrations/0002-change-physicians.ts'), 'utf8');
  expect(migrations).toContain('ALTER TABLE "doctors" RENAME TO "physicians"');
  expect(migrations).not.toMatch(/DROP TABLE/);
  await typecheckAndBuild(dir);

  await serve(async (url) => {
    const physician = await admin('GET', `${url}/physicians/${seeded.doctor}`);
    expect(physician.status, physician.text).toBe(200);
    expect(physician.body).toMatchObject({ name: 'Dr. Who', departmentId: seeded.department });
    expect((await admin('GET', `${url}/doctors`)).status).toBe(404);
    const appointment = await admin('GET', `${url}/appointments/${seeded.appointment}`);
    expect(appointment.body).toMatchObject({ doctorId: seeded.doctor, note: 'checkup' });
    // the refs still hold, both ways: to the renamed table, and from it
    const dangling = await admin('POST', `${url}/appointments`, { doctorId: '01900000-0000-7000-8000-000000000009' });
    expect(dangling.status).toBe(409);
    expect((await admin('DELETE', `${url}/departments/${seeded.department}`)).status).toBe(409);
    // its unique index came along: the same name twice is a 409
    const again = await admin('POST', `${url}/physicians`, { name: 'Dr. Who', departmentId: seeded.department });
    expect(again.status, again.text).toBe(409);
    // deleting the physician cascades to the appointment, as the ref says
    expect((await admin('DELETE', `${url}/physicians/${seeded.doctor}`)).status).toBe(204);
    expect((await admin('GET', `${url}/appointments/${seeded.appointment}`)).status).toBe(404);
  });
  // a regenerate with the rename still written is a no-op for the database: no third migration
  await generate(V2);
  expect(readdirSync(join(dir, 'src/db/migrations')).filter((f) => /^\d{4}-/.test(f))).toHaveLength(2);

  // renamed again in the same migration as a change SQLite makes by rebuilding the table (a ref added): the
  // appointments' ref follows the table to its new name, not to the table the rebuild drops
  const V3 = V2.replace('  physicians:\n    renamedFrom: doctors\n', '  clinicians:\n    renamedFrom: physicians\n')
    .replace('to: physicians,', 'to: clinicians,')
    .replace(
      '      departmentId: { type: ref, to: departments, required: true, onDelete: restrict }\n',
      '      departmentId: { type: ref, to: departments, required: true, onDelete: restrict }\n      wardId: { type: ref, to: departments, inverse: wardClinicians }\n',
    );
  expect(V3).toContain('wardId');
  expect(await generate(V3)).toContain('rename physicians to clinicians');
  await typecheckAndBuild(dir);
  await serve(async (url) => {
    const department = id(await admin('POST', `${url}/departments`, { name: 'Neurology' }));
    const clinician = id(await admin('POST', `${url}/clinicians`, { name: 'Dr. No', departmentId: department }));
    const appointment = id(await admin('POST', `${url}/appointments`, { doctorId: clinician, note: 'scan' }));
    const dangling = await admin('POST', `${url}/appointments`, { doctorId: '01900000-0000-7000-8000-000000000009' });
    expect(dangling.status, dangling.text).toBe(409);
    expect((await admin('DELETE', `${url}/clinicians/${clinician}`)).status).toBe(204);
    expect((await admin('GET', `${url}/appointments/${appointment}`)).status).toBe(404);
  });
});
