import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cli, evolvingProject, freePort, typecheckAndBuild, WORK } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * `renamedFrom` on a resource (SPEC §9): renaming doctors to physicians keeps the table, its rows and the refs to it
 * — an ordinary regenerate, no --allow-data-loss — where a drop would delete every appointment with it. Its past
 * events are served under the new name (the feed, the stream, the deliveries still to make, the subscriptions'
 * types), and the user's handlers and computed-field files move to the new name with their code working.
 */
const V1 = `
name: practice
version: 1.0.0
auth: { default: authenticated, roles: [admin] }
events:
  webhooks: true
  retry: { attempts: 5, firstDelay: 1h }
resources:
  departments:
    id: integer
    fields: { name: { type: string, required: true } }
  doctors:
    fields:
      name: { type: string, required: true, unique: true }
      departmentId: { type: ref, to: departments, required: true, onDelete: restrict }
      title: { type: string, computed: true }
    actions:
      notify: { on: item }
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
const definition = join(WORK, 'rename-resource-definition', 'practice.yaml');

afterAll(() => project.remove());

/** The user's code in the stubs of doctors: a computed title and the notify handler, both using the model's types. */
function writeUserCode(): void {
  const computed = join(dir, 'src/computed/doctors.ts');
  writeFileSync(
    computed,
    readFileSync(computed, 'utf8').replace(
      'title(_record) {\n    return null;',
      'title(record) {\n    return record.name.toUpperCase();',
    ),
  );
  const handlers = join(dir, 'src/handlers/doctors.ts');
  const stub = readFileSync(handlers, 'utf8');
  expect(stub).toContain("import type { DoctorsHandlers } from '../resources/doctors/actions.js';");
  writeFileSync(
    handlers,
    stub
      .replace(
        "import { notImplemented } from '../http/problem.js';\n",
        "import type { Doctor } from '../resources/doctors/model.js';\n",
      )
      .replace(
        /async notify\(_context\) \{\n[^\n]*\n/,
        "async notify({ record }) {\n    const named: Pick<Doctor, 'name'> = record;\n    return { body: { notified: named.name } };\n",
      ),
  );
}

type Event = { seq: number; type: string; resource: string; recordId: string };

/** The first events of the stream after `after`, `count` of them, read within 10 s. */
async function streamed(url: string, bearer: string, count: number): Promise<string[]> {
  const response = await fetch(`${url}/events/stream?after=0`, {
    headers: { authorization: `Bearer ${bearer}` },
    signal: AbortSignal.timeout(10_000),
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  try {
    while ((text.match(/^event: /gm) ?? []).length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
  } finally {
    await reader.cancel();
  }
  return [...text.matchAll(/^event: (.*)$/gm)].map((m) => m[1] ?? '');
}

it('renames a resource keeping its rows, the refs to it, its own refs, its unique index, its events and its code', async () => {
  await generate(V1);
  writeUserCode();
  await typecheckAndBuild(dir);
  const env = {
    DATABASE_URL: await databaseUrl('rename-resource', 'sqlite:./data/practice.db'),
    JWT_SECRET: SECRET,
    WEBHOOK_ALLOW_PRIVATE: 'true',
  };
  const bearer = await token('root', { roles: ['admin'] });
  const admin = as(bearer);
  // a receiver that is not there: the deliveries stay pending, their retry an hour away
  const nobody = `http://127.0.0.1:${await freePort()}/hook`;
  const serve = <T>(use: (url: string) => Promise<T>): Promise<T> => project.serve(env, use);
  const id = (r: { status: number; body: unknown; text: string }) => {
    expect(r.status, r.text).toBe(201);
    return (r.body as { id: string }).id;
  };
  const seeded = await serve(async (url) => {
    const webhook = id(await admin('POST', `${url}/webhooks`, { url: nobody, types: ['doctors'] }));
    const department = id(await admin('POST', `${url}/departments`, { name: 'Cardiology' }));
    const doctor = id(await admin('POST', `${url}/doctors`, { name: 'Dr. Who', departmentId: department }));
    const read = await admin('GET', `${url}/doctors/${doctor}`);
    expect(read.body).toMatchObject({ title: 'DR. WHO' });
    const notified = await admin('POST', `${url}/doctors/${doctor}/notify`);
    expect(notified.body, notified.text).toEqual({ notified: 'Dr. Who' });
    const appointment = id(await admin('POST', `${url}/appointments`, { doctorId: doctor, note: 'checkup' }));
    // the deliveries of the doctor's events exist (fanned out, tried once) before the server stops
    for (let i = 0; i < 100; i += 1) {
      const deliveries = await admin('GET', `${url}/webhooks/${webhook}/deliveries`);
      if ((deliveries.body as { items: unknown[] }).items.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const deliveries = await admin('GET', `${url}/webhooks/${webhook}/deliveries?status=pending`);
    expect((deliveries.body as { items: { type: string }[] }).items.map((d) => d.type)).toEqual([
      'doctors.created',
      'doctors.notify',
    ]);
    return { department, doctor, appointment, webhook, etag: read.headers.get('etag') };
  });

  // --dry-run shows the user's files moving, and moves nothing
  writeFileSync(definition, V2);
  const dry = await cli('generate', definition, '--out', dir, '--dry-run');
  expect(dry.code, dry.err).toBe(0);
  expect(dry.out).toContain('rename    src/handlers/doctors.ts -> src/handlers/physicians.ts');
  expect(dry.out).toContain('rename    src/computed/doctors.ts -> src/computed/physicians.ts');
  expect(dry.out).not.toMatch(/orphan/);
  expect(existsSync(join(dir, 'src/handlers/doctors.ts'))).toBe(true);
  expect(existsSync(join(dir, 'src/handlers/physicians.ts'))).toBe(false);

  const out = await generate(V2);
  expect(out).toContain('rename doctors to physicians');
  expect(out).toContain('serve the past events of doctors as events of physicians');
  expect(out).toContain('rename    src/handlers/doctors.ts -> src/handlers/physicians.ts');
  const migrations = readFileSync(join(dir, 'src/db/migrations/0002-change-physicians.ts'), 'utf8');
  expect(migrations).toContain('ALTER TABLE "doctors" RENAME TO "physicians"');
  expect(migrations).toContain('UPDATE "restsmith_events"');
  expect(migrations).not.toMatch(/DROP TABLE/);
  // the user's files moved, edited to compile under the new names, their code kept
  for (const folder of ['handlers', 'computed']) expect(existsSync(join(dir, `src/${folder}/doctors.ts`))).toBe(false);
  const handlers = readFileSync(join(dir, 'src/handlers/physicians.ts'), 'utf8');
  expect(handlers).toContain("import type { PhysiciansHandlers } from '../resources/physicians/actions.js';");
  expect(handlers).toContain("import type { Physician } from '../resources/physicians/model.js';");
  expect(handlers).toContain('export const physiciansHandlers: PhysiciansHandlers = {');
  expect(handlers).toContain("const named: Pick<Physician, 'name'> = record;");
  const computed = readFileSync(join(dir, 'src/computed/physicians.ts'), 'utf8');
  expect(computed).toContain('export const physiciansComputed: PhysiciansComputed = {');
  expect(computed).toContain('return record.name.toUpperCase();');
  await typecheckAndBuild(dir);

  await serve(async (url) => {
    const physician = await admin('GET', `${url}/physicians/${seeded.doctor}`);
    expect(physician.status, physician.text).toBe(200);
    expect(physician.body).toMatchObject({ name: 'Dr. Who', departmentId: seeded.department });
    // the user's computed value, as before the rename: the same ETag is still the same representation
    expect(physician.body).toMatchObject({ title: 'DR. WHO' });
    expect(physician.headers.get('etag')).toBe(seeded.etag);
    const notified = await admin('POST', `${url}/physicians/${seeded.doctor}/notify`);
    expect(notified.body, notified.text).toEqual({ notified: 'Dr. Who' });
    expect((await admin('GET', `${url}/doctors`)).status).toBe(404);
    // the past events of doctors are physicians' now, for the administrator's feed, a filter, and the stream
    const feed = await admin('GET', `${url}/events?limit=100`);
    const events = (feed.body as { items: Event[] }).items;
    expect(events.filter((e) => e.recordId === seeded.doctor).map((e) => [e.type, e.resource])).toEqual([
      ['physicians.created', 'physicians'],
      ['physicians.notify', 'physicians'],
      ['physicians.notify', 'physicians'],
    ]);
    expect(events.some((e) => e.type.startsWith('doctors') || e.resource === 'doctors')).toBe(false);
    const filtered = await admin('GET', `${url}/events?types=physicians.created`);
    expect((filtered.body as { items: Event[] }).items.map((e) => e.recordId)).toEqual([seeded.doctor]);
    const old = await admin('GET', `${url}/events?types=doctors`);
    expect(old.status).toBe(400);
    expect(old.text).toContain('the resource doctors is now physicians');
    expect(await streamed(url, bearer, 5)).toEqual([
      'departments.created',
      'physicians.created',
      'physicians.notify',
      'appointments.created',
      'physicians.notify',
    ]);
    // the subscription follows the new name, and the deliveries still to make are sent under it
    const webhook = await admin('GET', `${url}/webhooks/${seeded.webhook}`);
    expect(webhook.body).toMatchObject({ types: ['physicians'] });
    const pending = await admin('GET', `${url}/webhooks/${seeded.webhook}/deliveries?status=pending`);
    const deliveries = (pending.body as { items: { type: string; event: Event }[] }).items.slice(0, 2);
    expect(deliveries.map((d) => [d.type, d.event.type, d.event.resource])).toEqual([
      ['physicians.created', 'physicians.created', 'physicians'],
      ['physicians.notify', 'physicians.notify', 'physicians'],
    ]);
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
  // an old file beside the new one: restsmith does not pick one, it stops and says what to do
  writeFileSync(join(dir, 'src/handlers/doctors.ts'), 'export const doctorsHandlers = {};\n');
  await expect(generate(`${V2}# again\n`)).rejects.toThrow(
    /both src\/handlers\/doctors\.ts and src\/handlers\/physicians\.ts exist/,
  );
  rmSync(join(dir, 'src/handlers/doctors.ts'));

  // renamed again in the same migration as a change SQLite makes by rebuilding the table (a ref added): the
  // appointments' ref follows the table to its new name, not to the table the rebuild drops
  const V3 = V2.replace('  physicians:\n    renamedFrom: doctors\n', '  clinicians:\n    renamedFrom: physicians\n')
    .replace('to: physicians,', 'to: clinicians,')
    .replace(
      '      departmentId: { type: ref, to: departments, required: true, onDelete: restrict }\n',
      '      departmentId: { type: ref, to: departments, required: true, onDelete: restrict }\n      wardId: { type: ref, to: departments, inverse: wardClinicians }\n',
    );
  expect(V3).toContain('wardId');
  const third = await generate(V3);
  expect(third).toContain('rename physicians to clinicians');
  expect(third).toContain('rename    src/computed/physicians.ts -> src/computed/clinicians.ts');
  await typecheckAndBuild(dir);
  await serve(async (url) => {
    const department = id(await admin('POST', `${url}/departments`, { name: 'Neurology' }));
    const clinician = id(await admin('POST', `${url}/clinicians`, { name: 'Dr. No', departmentId: department }));
    expect((await admin('GET', `${url}/clinicians/${clinician}`)).body).toMatchObject({ title: 'DR. NO' });
    expect((await admin('POST', `${url}/clinicians/${clinician}/notify`)).body).toEqual({ notified: 'Dr. No' });
    const feed = await admin('GET', `${url}/events?types=clinicians.created&limit=100`);
    expect((feed.body as { items: Event[] }).items.map((e) => e.recordId)).toEqual([seeded.doctor, clinician]);
    const appointment = id(await admin('POST', `${url}/appointments`, { doctorId: clinician, note: 'scan' }));
    const dangling = await admin('POST', `${url}/appointments`, { doctorId: '01900000-0000-7000-8000-000000000009' });
    expect(dangling.status, dangling.text).toBe(409);
    expect((await admin('DELETE', `${url}/clinicians/${clinician}`)).status).toBe(204);
    expect((await admin('GET', `${url}/appointments/${appointment}`)).status).toBe(404);
  });
}, 240_000);
