import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFresh, ROOT, type RunningServer, startServer, typecheckAndBuild } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

/**
 * The clinic of examples/clinic.yaml over real HTTP: receptionists act for patients, and an appointment belongs to
 * its patient and its doctor at once (`owner: [patientId, doctorId]`), with no hand-written access code.
 */
let server: RunningServer;
let base: string;
type Caller = ReturnType<typeof as>;
let admin: Caller;
let receptionist: Caller;
type Rec = Record<string, unknown>;

const url = (path: string): string => `${base}/api${path}`;

/**
 * The user's handler of `POST /appointments/{id}/add-note`, as a user writes it: a done appointment is outside the
 * update rule's `when` (booked), which binds clients' PATCH; this write is the code's own (`anyState`).
 */
const ADD_NOTE_HANDLER = `
  async addNote({ input, caller, record, version, store }) {
    const written = await store.patch(record.id, { notes: input.notes }, null, version, null, caller?.subject ?? null, {
      anyState: true,
    });
    if (written === undefined) throw conflict('the appointment changed since it was read');
    return { body: written.record, version: written.version };
  },
`;

/**
 * A route of the user's own (src/routes.ts) that closes an appointment's file whatever its state: the store's replace
 * and delete refused outside the rules' `when`, then with `{ anyState: true }`. It answers what each call returned.
 */
const OWN_ROUTES = `import { access, notFound, type FastifyInstance, type RouteDependencies } from './extend.js';

export async function registerRoutes(api: FastifyInstance, { stores, authorizer }: RouteDependencies): Promise<void> {
  api.post<{ Params: { id: string } }>(
    '/appointments/:id/close-file',
    { preParsing: authorizer.guard(access.appointments.delete) },
    async (request) => {
      const { id } = request.params;
      const found = await stores.appointments.get(id, null);
      if (found === undefined) throw notFound('no such appointment');
      const { patientId, doctorId, startsAt } = found.record;
      const input = { patientId, doctorId, startsAt, reason: 'file closed' };
      const store = stores.appointments;
      const replaceRefused = (await store.replace(id, input, null, null, null, 'admin-1')) === undefined;
      const replaced = await store.replace(id, input, null, null, null, 'admin-1', { anyState: true });
      const deleteRefused = !(await store.delete(id, null, null, 'admin-1'));
      const deleted = await store.delete(id, null, null, 'admin-1', { anyState: true });
      return { replaceRefused, reason: replaced?.record.reason ?? null, deleteRefused, deleted };
    },
  );
}
`;

beforeAll(async () => {
  const dir = await generateFresh(`${ROOT}/examples/clinic.yaml`, 'e2e-clinic');
  writeFileSync(join(dir, 'src/routes.ts'), OWN_ROUTES);
  const handlers = join(dir, 'src/handlers/appointments.ts');
  const stub = /\n {2}\/\*\*[^\n]*\n {2}async addNote\(_context\) \{\n[^\n]*\n {2}\},\n/;
  const source = readFileSync(handlers, 'utf8');
  if (!stub.test(source)) throw new Error(`no addNote stub in ${handlers}`);
  writeFileSync(
    handlers,
    source.replace(stub, ADD_NOTE_HANDLER).replace('import { notImplemented }', 'import { conflict, notImplemented }'),
  );
  await typecheckAndBuild(dir);
  const env = { DATABASE_URL: await databaseUrl('clinic'), JWT_SECRET: SECRET };
  server = await startServer(dir, env, '/api/healthz');
  base = server.url;
  admin = as(await token('admin-1', { roles: ['admin'] }));
  receptionist = as(await token('desk-1', { roles: ['receptionist'] }));
});

afterAll(async () => {
  await server?.stop();
});

let counter = 0;

async function created(caller: Caller, path: string, body: Rec): Promise<Rec> {
  const r = await caller('POST', url(path), body);
  expect(r.status, r.text).toBe(201);
  return r.body as Rec;
}

/** A patient record and a caller signed in as that patient (their token's subject is their id). */
async function patient(): Promise<{ id: string; as: Caller }> {
  counter += 1;
  const record = await created(receptionist, '/patients', { name: `Patient ${counter}`, birthDate: '1990-01-01' });
  const id = String(record.id);
  return { id, as: as(await token(id, { roles: ['patient'] })) };
}

async function doctor(): Promise<{ id: string; as: Caller }> {
  counter += 1;
  const record = await created(admin, '/doctors', { name: `Doctor ${counter}`, specialty: 'general' });
  const id = String(record.id);
  return { id, as: as(await token(id, { roles: ['doctor'] })) };
}

const slot = (): string => `2026-12-01T${String(8 + (counter++ % 10)).padStart(2, '0')}:00:00.000Z`;

async function ids(caller: Caller, path: string): Promise<string[]> {
  const found: string[] = [];
  let next: string | null = path;
  for (let pages = 0; next !== null && pages < 50; pages += 1) {
    const r = await caller('GET', url(next));
    expect(r.status, r.text).toBe(200);
    const page = r.body as { items: Rec[]; nextCursor: string | null };
    found.push(...page.items.map((item) => String(item.id)));
    const separator = path.includes('?') ? '&' : '?';
    next = page.nextCursor === null ? null : `${path}${separator}cursor=${encodeURIComponent(page.nextCursor)}`;
  }
  return found;
}

describe('staff act for others', () => {
  it('a receptionist books for any patient with any doctor, and becomes neither', async () => {
    const [p, d] = [await patient(), await doctor()];
    const booked = await created(receptionist, '/appointments', {
      patientId: p.id,
      doctorId: d.id,
      startsAt: slot(),
    });
    expect([booked.patientId, booked.doctorId, booked.status]).toEqual([p.id, d.id, 'booked']);
  });

  it('a receptionist who leaves a required owner out gets a 400 naming it, not a record in their own name', async () => {
    const p = await patient();
    const r = await receptionist('POST', url('/appointments'), { patientId: p.id, startsAt: slot() });
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ errors: [{ path: '/doctorId', message: 'is required' }] });
  });

  it('one 400 names every problem: the owner fields this caller must send among them', async () => {
    const d = await doctor();
    const paths = async (caller: Caller, body: Rec) => {
      const r = await caller('POST', url('/appointments'), { ...body, startsAt: 'soon' });
      expect(r.status, r.text).toBe(400);
      return ((r.body as { errors: { path: string }[] }).errors ?? []).map((e) => e.path).sort();
    };
    // staff who name the doctor act for a patient: they must name the patient too
    expect(await paths(receptionist, { doctorId: d.id })).toEqual(['/patientId', '/startsAt']);
    // a patient who leaves patientId out is the patient: only the doctor is missing
    expect(await paths((await patient()).as, {})).toEqual(['/doctorId', '/startsAt']);
  });

  it('a receptionist may move an appointment to another patient (staff change owners)', async () => {
    const [p, q, d] = [await patient(), await patient(), await doctor()];
    const booked = await created(receptionist, '/appointments', { patientId: p.id, doctorId: d.id, startsAt: slot() });
    const r = await receptionist('PATCH', url(`/appointments/${String(booked.id)}`), { patientId: q.id });
    expect(r.status, r.text).toBe(200);
    expect((r.body as Rec).patientId).toBe(q.id);
  });
});

describe('several owner fields', () => {
  it('a patient books for themselves: the patientId left out takes the caller', async () => {
    const [p, d] = [await patient(), await doctor()];
    const booked = await created(p.as, '/appointments', { doctorId: d.id, startsAt: slot() });
    expect([booked.patientId, booked.doctorId]).toEqual([p.id, d.id]);
  });

  it('a caller with no patient record who leaves patientId out is told it took their subject (found by a newcomer)', async () => {
    const d = await doctor();
    const ghost = as(await token('no-such-patient', { roles: ['patient'] }));
    const r = await ghost('POST', url('/appointments'), { doctorId: d.id, startsAt: slot() });
    expect(r.status, r.text).toBe(409);
    expect(r.body).toMatchObject({
      detail:
        'patientId was left out, so it took your token\'s subject ("no-such-patient"), and no patient has that id: patientId refers to a patient by its id, so a caller\'s token subject must be the id of their own patient (staff and the administrator may send patientId instead)',
      errors: [{ path: '/patientId', message: 'must be the id of an existing patient' }],
    });
  });

  it('a patient may not book for another patient (403), and nothing is written', async () => {
    const [p, q, d] = [await patient(), await patient(), await doctor()];
    const r = await p.as('POST', url('/appointments'), { patientId: q.id, doctorId: d.id, startsAt: slot() });
    expect(r.status, r.text).toBe(403);
    expect((r.body as Rec).detail).toMatch(/must name you as its patientId or doctorId/);
    expect(await ids(q.as, '/appointments')).toEqual([]);
  });

  it('the patient and the doctor both read and list it; another patient or doctor gets 404 and an empty list', async () => {
    const [p, d, stranger, otherDoctor] = [await patient(), await doctor(), await patient(), await doctor()];
    const booked = await created(receptionist, '/appointments', { patientId: p.id, doctorId: d.id, startsAt: slot() });
    const path = `/appointments/${String(booked.id)}`;
    for (const owner of [p, d]) {
      expect((await owner.as('GET', url(path))).status).toBe(200);
      expect(await ids(owner.as, '/appointments')).toEqual([booked.id]);
    }
    for (const outsider of [stranger, otherDoctor]) {
      expect((await outsider.as('GET', url(path))).status).toBe(404);
      expect((await outsider.as('PATCH', url(path), { reason: 'mine now' })).status).toBe(404);
      expect(await ids(outsider.as, '/appointments')).toEqual([]);
    }
  });

  it("a doctor pages through exactly their appointments, whoever the patient, and no one else's", async () => {
    const [d, other] = [await doctor(), await doctor()];
    const mine: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const p = await patient();
      const booked = await created(p.as, '/appointments', { doctorId: d.id, startsAt: slot() });
      mine.push(String(booked.id));
      await created(p.as, '/appointments', { doctorId: other.id, startsAt: slot() });
    }
    const paged = await ids(d.as, '/appointments?limit=2');
    expect(paged.sort()).toEqual([...mine].sort());
    expect(new Set(paged).size).toBe(paged.length);
    const sorted = await ids(d.as, '/appointments?limit=3&sort=-startsAt');
    expect(sorted.sort()).toEqual([...mine].sort());
  });

  it('neither owner may change the doctor or the patient (SPEC §12), a receptionist may', async () => {
    const [p, q, d, e] = [await patient(), await patient(), await doctor(), await doctor()];
    const booked = await created(p.as, '/appointments', { doctorId: d.id, startsAt: slot() });
    const path = url(`/appointments/${String(booked.id)}`);
    const kept = await p.as('PATCH', path, { doctorId: e.id });
    expect(kept.status, kept.text).toBe(403);
    expect((kept.body as Rec).detail).toMatch(/may change the patientId or doctorId of a record/);
    const moved = await receptionist('PATCH', path, { doctorId: e.id });
    expect(moved.status, moved.text).toBe(200);
    expect((moved.body as Rec).doctorId).toBe(e.id);

    // nor give it to another patient, though not a record this patient may name: the owner change is the 403 it is,
    // before the ref's 409 could tell whether that patient exists
    const given = await p.as('PATCH', path, { patientId: q.id });
    expect(given.status, given.text).toBe(403);
    expect((given.body as Rec).detail).toMatch(/may change the patientId or doctorId of a record/);
    // nor can the doctor hand the appointment to another doctor
    const handed = await e.as('PATCH', path, { doctorId: d.id });
    expect(handed.status, handed.text).toBe(403);
    expect((handed.body as Rec).detail).toMatch(/may change the patientId or doctorId of a record/);
    const replaced = await e.as('PUT', path, { patientId: p.id, doctorId: d.id, startsAt: slot() });
    expect(replaced.status, replaced.text).toBe(403);
    const stored = await admin('GET', path);
    expect([(stored.body as Rec).patientId, (stored.body as Rec).doctorId]).toEqual([p.id, e.id]);
    // with If-Match at the current version the refusal is still a 403, not a 412
    const etag = stored.headers.get('etag') ?? '';
    const conditional = await e.as('PATCH', path, { doctorId: d.id }, { 'if-match': etag });
    expect(conditional.status, conditional.text).toBe(403);
  });

  it('a PUT that sends the owners it found changes no owner and is no give-away', async () => {
    const [p, d] = [await patient(), await doctor()];
    const booked = await created(receptionist, '/appointments', { patientId: p.id, doctorId: d.id, startsAt: slot() });
    const r = await d.as('PUT', url(`/appointments/${String(booked.id)}`), {
      patientId: p.id,
      doctorId: d.id,
      startsAt: booked.startsAt,
      reason: 'follow-up',
    });
    expect(r.status, r.text).toBe(200);
  });
});

describe('writes only in some states (update: { access, when })', () => {
  it('a cancelled appointment cannot be changed: 409 naming the rule and its state, with or without If-Match', async () => {
    const [p, d] = [await patient(), await doctor()];
    const booked = await created(p.as, '/appointments', { doctorId: d.id, startsAt: slot() });
    const path = url(`/appointments/${String(booked.id)}`);
    expect((await p.as('PATCH', path, { reason: 'checkup' })).status).toBe(200);
    expect((await p.as('POST', `${path}/cancel`)).status).toBe(200);
    const current = await p.as('GET', path);
    const etag = current.headers.get('etag') ?? '';
    const detail = 'an appointment can be updated only while status is "booked"; its status is "cancelled"';
    for (const [method, body, headers] of [
      ['PATCH', { reason: 'too late' }, {}],
      ['PUT', { doctorId: d.id, startsAt: slot(), reason: 'too late' }, {}],
      ['PATCH', { reason: 'too late' }, { 'if-match': etag }],
    ] as const) {
      const r = await receptionist(method, path, body, headers);
      expect(r.status, r.text).toBe(409);
      expect((r.body as Rec).detail).toBe(detail);
    }
    // a stale ETag is still a 412: the record changed since it was read
    expect((await receptionist('PATCH', path, { reason: 'x' }, { 'if-match': '"1"' })).status).toBe(412);
    const after = (await p.as('GET', path)).body as Rec;
    expect([after.reason, after.status, current.headers.get('etag')]).toEqual(['checkup', 'cancelled', etag]);
    // an outsider still gets the 404 of a record they cannot see, not the 409 that would reveal its state
    const stranger = await patient();
    expect((await stranger.as('PATCH', path, { reason: 'x' })).status).toBe(404);
  });

  it("your handler writes where the rule's when refuses a client (anyState): a doctor's notes on a done one", async () => {
    const [p, d] = [await patient(), await doctor()];
    const booked = await created(p.as, '/appointments', { doctorId: d.id, startsAt: slot() });
    const path = url(`/appointments/${String(booked.id)}`);
    // booked: outside add-note's own when, so the handler is not called
    const early = await d.as('POST', `${path}/add-note`, { notes: 'too early' });
    expect([early.status, (early.body as Rec).detail]).toEqual([
      409,
      'add-note needs status to be "done"; status is "booked"',
    ]);
    expect((await d.as('POST', `${path}/complete`)).status).toBe(200);
    // a client may not write them: read-only (400), and a done appointment takes no PATCH (409)
    expect((await d.as('PATCH', path, { notes: 'by PATCH' })).status).toBe(400);
    expect((await d.as('PATCH', path, { reason: 'by PATCH' })).status).toBe(409);
    const before = await d.as('GET', path);
    const noted = await d.as('POST', `${path}/add-note`, { notes: 'Rest for a week.' });
    expect(noted.status, noted.text).toBe(200);
    expect(noted.body).toMatchObject({ id: booked.id, status: 'done', notes: 'Rest for a week.' });
    const after = await d.as('GET', path);
    expect((after.body as Rec).notes).toBe('Rest for a week.');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(noted.headers.get('etag')).toBe(after.headers.get('etag'));
    // the write recorded its event, with the doctor as its actor (the doctor's feed: their own records' events)
    const events: Rec[] = [];
    let cursor: string | null = '0';
    for (let page = 0; cursor !== null && page < 50; page += 1) {
      const r = await d.as('GET', url(`/events?types=appointments.updated&limit=100&after=${cursor}`));
      expect(r.status, r.text).toBe(200);
      const body = r.body as { items: Rec[]; nextCursor: string | null };
      events.push(...body.items);
      cursor = body.nextCursor;
    }
    expect(events.filter((e) => e.recordId === booked.id).at(-1)).toMatchObject({
      actor: d.id,
      data: { notes: 'Rest for a week.', status: 'done' },
    });
  });

  it("your own route replaces and deletes outside the rules' when only with { anyState: true }", async () => {
    const [p, d] = [await patient(), await doctor()];
    const booked = await created(p.as, '/appointments', { doctorId: d.id, startsAt: slot() });
    const path = url(`/appointments/${String(booked.id)}`);
    expect((await d.as('POST', `${path}/complete`)).status).toBe(200);
    expect((await receptionist('POST', `${path}/close-file`)).status).toBe(403);
    const closed = await admin('POST', `${path}/close-file`);
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body).toEqual({ replaceRefused: true, reason: 'file closed', deleteRefused: true, deleted: true });
    expect((await admin('GET', path)).status).toBe(404);
  });

  it('deletes only booked or cancelled appointments: a done one is a 409, and stays', async () => {
    const [p, d] = [await patient(), await doctor()];
    const cancelled = await created(p.as, '/appointments', { doctorId: d.id, startsAt: slot() });
    await p.as('POST', url(`/appointments/${String(cancelled.id)}/cancel`));
    expect((await admin('DELETE', url(`/appointments/${String(cancelled.id)}`))).status).toBe(204);

    const done = await created(p.as, '/appointments', { doctorId: d.id, startsAt: slot() });
    expect((await d.as('POST', url(`/appointments/${String(done.id)}/complete`))).status).toBe(200);
    const r = await admin('DELETE', url(`/appointments/${String(done.id)}`));
    expect(r.status, r.text).toBe(409);
    expect((r.body as Rec).detail).toBe(
      'an appointment can be deleted only while status is one of "booked", "cancelled"; its status is "done"',
    );
    expect((await admin('GET', url(`/appointments/${String(done.id)}`))).status).toBe(200);
  });
});

describe('a staff role of one resource is not staff of another', () => {
  it('a doctor writes a prescription for any patient; a patient cannot write one', async () => {
    const [p, d] = [await patient(), await doctor()];
    const written = await created(d.as, '/prescriptions', {
      patientId: p.id,
      doctorId: d.id,
      drug: 'amoxicillin',
      dosage: '500 mg, three times a day',
    });
    expect((await p.as('GET', url(`/prescriptions/${String(written.id)}`))).status).toBe(200);
    const r = await p.as('POST', url('/prescriptions'), { doctorId: d.id, drug: 'x', dosage: 'y' });
    expect(r.status).toBe(403);
  });
});

describe('a write its rule admits but the read rule does not shows nothing of the record (found by a reviewer)', () => {
  it('another doctor may change a prescription (update: [doctor]) but gets a 204, not the record he may not read', async () => {
    const [p, d, other] = [await patient(), await doctor(), await doctor()];
    const written = await created(d.as, '/prescriptions', { patientId: p.id, doctorId: d.id, drug: 'a', dosage: 'b' });
    const path = url(`/prescriptions/${String(written.id)}`);
    expect((await other.as('GET', path)).status).toBe(404);
    const patched = await other.as('PATCH', path, { dosage: 'c' });
    expect([patched.status, patched.text, patched.headers.get('etag')]).toEqual([204, '', '"2"']);
    // the write was made; the prescription's own doctor reads it, with the record in the reply to his own write
    expect(((await d.as('GET', path)).body as Rec).dosage).toBe('c');
    const own = await d.as('PATCH', path, { dosage: 'd' });
    expect([own.status, (own.body as Rec).dosage]).toEqual([200, 'd']);
    // moved to himself, the other doctor may read it: the reply shows it
    const moved = await other.as('PATCH', path, { doctorId: other.id });
    expect([moved.status, (moved.body as Rec).doctorId]).toEqual([200, other.id]);
  });

  it('another doctor may complete an appointment (complete: doctor): 204, and its 409 does not tell him its state', async () => {
    const [p, d, other] = [await patient(), await doctor(), await doctor()];
    const booked = await created(receptionist, '/appointments', { patientId: p.id, doctorId: d.id, startsAt: slot() });
    const complete = url(`/appointments/${String(booked.id)}/complete`);
    const done = await other.as('POST', complete);
    expect([done.status, done.text]).toEqual([204, '']);
    const again = await other.as('POST', complete);
    expect(again.status).toBe(409);
    expect((again.body as Rec).detail).toBe('complete needs status to be "booked"');
    // the appointment's own doctor is told its state
    const own = await d.as('POST', complete);
    expect((own.body as Rec).detail).toBe('complete needs status to be "booked"; status is "done"');
  });
});

describe('a delete that records still refer to', () => {
  it('is a 409 naming the refs that block it (found by a newcomer)', async () => {
    const [p, d] = [await patient(), await doctor()];
    await created(receptionist, '/appointments', { patientId: p.id, doctorId: d.id, startsAt: slot() });
    const refused = await admin('DELETE', url(`/doctors/${d.id}`));
    expect([refused.status, (refused.body as Rec).detail]).toEqual([
      409,
      'other records still refer to this doctor (by appointments.doctorId or prescriptions.doctorId): change or delete them first',
    ]);
  });
});
