import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { generateFresh, http, startServer, typecheckAndBuild, WORK, type RunningServer } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';

/**
 * Nobody but staff gives a record away (SPEC §9, §12): a caller admitted by `authenticated` may edit a record, not hand
 * it to someone else; with a server-set owner first (`owner: [createdBy, assigneeId]`), the creator stays an owner
 * whoever is assigned, while neither owner may pass the record on; and with two client-written owners, a co-owner keeps
 * both as they are, by PATCH, PUT or a `set` action.
 */
const DEFINITION = `
name: handovers
version: 1.0.0
auth: { default: authenticated, adminRole: admin, roles: [admin, lead] }
resources:
  notes:
    owner: authorId
    fields:
      authorId: string
      text: { type: string, required: true }
    access: { list: authenticated, read: authenticated, create: authenticated, update: [authenticated, lead], delete: admin }
  tickets:
    owner: [createdBy, assigneeId]
    fields:
      createdBy: { type: string, readOnly: true }
      assigneeId: { type: string, nullable: true }
      title: { type: string, required: true }
    access: { list: [owner, lead], read: [owner, lead], create: authenticated, update: [owner, lead], delete: admin }
  cases:
    owner: [customerId, assigneeId]
    fields:
      customerId: { type: string, required: true }
      assigneeId: { type: string, nullable: true }
      title: { type: string, required: true }
    access: { list: [owner, lead], read: [owner, lead], create: lead, update: [owner, lead], delete: admin }
    actions:
      release: { on: item, access: [owner, lead], set: { assigneeId: null } }
  remarks:
    owner: authorId
    fields:
      authorId: { type: string, readOnly: true }
      caseId: { type: ref, to: cases, required: true }
      text: { type: string, required: true }
    access: { list: owner, read: owner, create: authenticated, update: owner, delete: owner }
  desks:
    owner: [holderId, deputyId]
    fields:
      holderId: { type: string, required: true }
      deputyId: { type: string, nullable: true }
      state: { type: enum, values: [open, shut], default: open }
    access: { list: [owner, lead], read: [owner, lead], create: lead, update: lead, delete: admin }
    actions:
      vacate: { on: item, access: authenticated, when: { state: [open] }, set: { deputyId: null } }
  boards:
    owner: ownerId
    fields:
      ownerId: string
      text: { type: string, required: true }
    access: { list: public, read: public, create: authenticated, update: public, delete: admin }
  members:
    owner: id
    fields:
      name: { type: string, required: true }
    access: { list: lead, read: [owner, lead], create: lead, update: lead, delete: admin }
  visits:
    owner: [memberId, hostId]
    fields:
      memberId: { type: ref, to: members, required: true }
      hostId: { type: ref, to: members, nullable: true, inverse: hostedVisits }
      note: string
    access: { list: [owner, lead], read: [owner, lead], create: lead, update: [owner, lead], delete: admin }
`;

let server: RunningServer;
type Caller = ReturnType<typeof as>;
let alice: Caller, bob: Caller, carol: Caller, lead: Caller;
type Rec = Record<string, unknown>;

beforeAll(async () => {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, 'handovers.yaml');
  writeFileSync(file, DEFINITION);
  const dir = await generateFresh(file, 'e2e-handovers');
  await typecheckAndBuild(dir);
  server = await startServer(dir, { DATABASE_URL: await databaseUrl('handovers'), JWT_SECRET: SECRET });
  alice = as(await token('alice'));
  bob = as(await token('bob'));
  carol = as(await token('carol'));
  lead = as(await token('lee', { roles: ['lead'] }));
});

afterAll(async () => {
  await server?.stop();
});

async function created(caller: Caller, path: string, body: Rec): Promise<Rec> {
  const r = await caller('POST', `${server.url}${path}`, body);
  expect(r.status, r.text).toBe(201);
  return r.body as Rec;
}

describe('one owner field, an update open to every signed-in caller', () => {
  it('lets another caller edit the record, send its owner back unchanged, but not give it to a third', async () => {
    const note = await created(alice, '/notes', { text: 'mine' });
    expect(note.authorId).toBe('alice');
    const path = `${server.url}/notes/${String(note.id)}`;
    expect((await bob('PATCH', path, { text: 'edited by bob' })).status).toBe(200);
    expect((await bob('PUT', path, { text: 'again', authorId: 'alice' })).status).toBe(200);
    for (const [method, body] of [
      ['PATCH', { authorId: 'carol' }],
      ['PUT', { text: 'given', authorId: 'carol' }],
    ] as const) {
      const r = await bob(method, path, body);
      expect(r.status, r.text).toBe(403);
      expect((r.body as Rec).detail).toMatch(/may change the authorId of a record/);
    }
    const stored = (await alice('GET', path)).body as Rec;
    expect([stored.authorId, stored.text]).toEqual(['alice', 'again']);
    // staff (admitted by the role the rule names) may
    const moved = await lead('PATCH', path, { authorId: 'carol' });
    expect([moved.status, (moved.body as Rec).authorId]).toEqual([200, 'carol']);
  });
});

describe('a server-set owner first, then a writable one', () => {
  it('makes the creator an owner whoever is assigned; the assignee sees it but cannot pass it on', async () => {
    const ticket = await created(alice, '/tickets', { title: 'fix the door', assigneeId: 'bob' });
    expect([ticket.createdBy, ticket.assigneeId]).toEqual(['alice', 'bob']);
    const path = `${server.url}/tickets/${String(ticket.id)}`;
    const listed = async (caller: Caller) =>
      ((await caller('GET', `${server.url}/tickets`)).body as { items: Rec[] }).items.map((t) => t.id);
    expect(await listed(bob)).toContain(ticket.id);
    expect(await listed(carol)).not.toContain(ticket.id);
    expect((await carol('GET', path)).status).toBe(404);

    // neither owner may pass it on: the assignee, nor the creator (an owner too, admitted only as one)
    for (const caller of [bob, alice]) {
      const passed = await caller('PATCH', path, { assigneeId: 'carol' });
      expect(passed.status, passed.text).toBe(403);
    }
    const reassigned = await lead('PATCH', path, { assigneeId: 'carol' });
    expect([reassigned.status, (reassigned.body as Rec).assigneeId]).toEqual([200, 'carol']);
    expect((await bob('GET', path)).status).toBe(404);
    expect((await carol('GET', path)).status).toBe(200);
    expect((await alice('GET', path)).status).toBe(200);
  });
});

describe('two client-written owners (SPEC §12: owner fields are changed only by staff)', () => {
  it('keeps a co-owner from giving the record away by PATCH, PUT or a set action; the same values pass', async () => {
    const ticket = await created(lead, '/cases', { title: 'broken tap', customerId: 'alice', assigneeId: 'bob' });
    const path = `${server.url}/cases/${String(ticket.id)}`;
    const stored = async (): Promise<Rec> => (await lead('GET', path)).body as Rec;
    for (const [method, body] of [
      ['PATCH', { customerId: 'carol' }],
      ['PATCH', { customerId: 'bob' }],
      ['PATCH', { assigneeId: null }],
      ['PUT', { title: 'broken tap', customerId: 'carol', assigneeId: 'bob' }],
      ['PUT', { title: 'broken tap', customerId: 'alice', assigneeId: 'carol' }],
    ] as const) {
      for (const caller of [bob, alice]) {
        const r = await caller(method, path, body);
        expect(r.status, `${method} ${JSON.stringify(body)}: ${r.text}`).toBe(403);
        expect((r.body as Rec).detail).toMatch(/may change the customerId or assigneeId of a record/);
      }
    }
    const after = await stored();
    expect([after.customerId, after.assigneeId]).toEqual(['alice', 'bob']);
    // the other customer still cannot read it
    expect((await carol('GET', path)).status).toBe(404);

    // the values they already hold are no change, and a PUT that leaves the owners out keeps them
    const patched = await bob('PATCH', path, { customerId: 'alice', assigneeId: 'bob', title: 'tap, kitchen' });
    expect(patched.status, patched.text).toBe(200);
    const put = await alice('PUT', path, { title: 'tap, bathroom', customerId: 'alice', assigneeId: 'bob' });
    expect(put.status, put.text).toBe(200);
    const left = await bob('PUT', path, { title: 'tap' });
    expect([left.status, (left.body as Rec).customerId, (left.body as Rec).assigneeId]).toEqual([200, 'alice', 'bob']);

    // a set action that writes an owner field is staff's too, unless it leaves it as it is
    const released = await alice('POST', `${path}/release`);
    expect(released.status, released.text).toBe(403);
    expect((released.body as Rec).detail).toMatch(/may change the assigneeId of a record/);
    expect((await stored()).assigneeId).toBe('bob');
    expect((await lead('POST', `${path}/release`)).status).toBe(200);
    const again = await alice('POST', `${path}/release`);
    expect([again.status, (again.body as Rec).assigneeId]).toEqual([200, null]);
    // staff may give it to anyone
    const moved = await lead('PATCH', path, { customerId: 'carol' });
    expect([moved.status, (moved.body as Rec).customerId]).toEqual([200, 'carol']);
    expect((await carol('GET', path)).status).toBe(200);
    expect((await alice('GET', path)).status).toBe(404);
  });
});

describe('an action that sets an owner field, run by a caller who may not read the record (a reviewer)', () => {
  it('answers the same whatever state the record is in: its 403 would tell them', async () => {
    const open = await created(lead, '/desks', { holderId: 'alice', deputyId: 'bob' });
    const shut = await created(lead, '/desks', { holderId: 'alice', deputyId: 'bob', state: 'shut' });
    const [a, b] = [
      await carol('POST', `${server.url}/desks/${String(open.id)}/vacate`),
      await carol('POST', `${server.url}/desks/${String(shut.id)}/vacate`),
    ];
    expect(a.status, a.text).toBe(409);
    expect([b.status, (b.body as Rec).detail]).toEqual([a.status, (a.body as Rec).detail]);
    // an owner who reads it is told why: it would change an owner field
    expect((await alice('POST', `${server.url}/desks/${String(open.id)}/vacate`)).status).toBe(403);
    expect((await lead('GET', `${server.url}/desks/${String(open.id)}`)).body).toMatchObject({ deputyId: 'bob' });
  });
});

describe('a public update (a reviewer: anyone could rewrite the owner)', () => {
  it('lets anyone edit, and only staff or the administrator change the owner', async () => {
    const board = await created(alice, '/boards', { text: 'lost keys' });
    expect(board.ownerId).toBe('alice');
    const path = `${server.url}/boards/${String(board.id)}`;
    const anonymous = (method: string, url: string, body?: unknown) => http(method, url, body);
    for (const caller of [anonymous, bob, alice]) {
      const r = await caller('PATCH', path, { ownerId: 'carol' });
      expect(r.status, r.text).toBe(403);
    }
    const edited = await anonymous('PATCH', path, { text: 'found keys', ownerId: 'alice' });
    expect([edited.status, (edited.body as Rec).ownerId]).toEqual([200, 'alice']);
    const admin = as(await token('root', { roles: ['admin'] }));
    const moved = await admin('PATCH', path, { ownerId: 'carol' });
    expect([moved.status, (moved.body as Rec).ownerId]).toEqual([200, 'carol']);
  });
});

describe('owner fields that are refs (issue 56: a co-owner named another owner they may not read)', () => {
  it('refuses the change as the owner change it is (403), not as a missing ref (409), whether or not it exists', async () => {
    const member = async (name: string): Promise<string> => String((await created(lead, '/members', { name })).id);
    const [m1, m2, m3] = [await member('Mia'), await member('Hal'), await member('Tom')];
    const visit = await created(lead, '/visits', { memberId: m1, hostId: m2, note: 'tour' });
    const path = `${server.url}/visits/${String(visit.id)}`;
    const host = as(await token(m2));
    for (const [method, body] of [
      ['PATCH', { memberId: m3 }],
      ['PATCH', { memberId: '0190b6c4-1d2e-7f00-8000-000000000001' }],
      ['PUT', { memberId: m3, hostId: m2, note: 'tour' }],
    ] as const) {
      const r = await host(method, path, body);
      expect(r.status, `${method} ${JSON.stringify(body)}: ${r.text}`).toBe(403);
      expect((r.body as Rec).detail).toMatch(/may change the memberId or hostId of a record/);
    }
    // a ref the host may read, changed, is refused by the write itself, with the same words
    const self = await host('PATCH', path, { memberId: m2 });
    expect([self.status, (self.body as Rec).detail]).toEqual([403, expect.stringMatching(/memberId or hostId/)]);
    // the values it holds pass, and staff move it
    expect((await host('PATCH', path, { memberId: m1, note: 'tour, east wing' })).status).toBe(200);
    const moved = await lead('PATCH', path, { memberId: m3 });
    expect([moved.status, (moved.body as Rec).memberId]).toEqual([200, m3]);
  });
});

describe('a ref sent back as stored (issue 56: a comment whose author lost sight of its ticket)', () => {
  it('needs no read check on PUT and PATCH; another record the caller may not read is still a 409', async () => {
    const own = await created(lead, '/cases', { title: 'leak', customerId: 'alice', assigneeId: 'bob' });
    const other = await created(lead, '/cases', { title: 'other', customerId: 'carol' });
    const remark = await created(bob, '/remarks', { caseId: own.id, text: 'on my way' });
    // the case goes to someone else: bob may no longer read it
    expect((await lead('PATCH', `${server.url}/cases/${String(own.id)}`, { assigneeId: 'dave' })).status).toBe(200);
    expect((await bob('GET', `${server.url}/cases/${String(own.id)}`)).status).toBe(404);
    const path = `${server.url}/remarks/${String(remark.id)}`;
    const put = await bob('PUT', path, { caseId: own.id, text: 'on my way, late' });
    expect([put.status, (put.body as Rec).caseId], put.text).toEqual([200, own.id]);
    const patched = await bob('PATCH', path, { caseId: own.id, text: 'arrived' });
    expect([patched.status, (patched.body as Rec).text], patched.text).toEqual([200, 'arrived']);
    for (const [method, body] of [
      ['PATCH', { caseId: other.id }],
      ['PUT', { caseId: other.id, text: 'moved' }],
    ] as const) {
      const r = await bob(method, path, body);
      expect(r.status, r.text).toBe(409);
      expect((r.body as { errors: Rec[] }).errors).toEqual([
        { path: '/caseId', message: 'must be the id of a case you may read' },
      ]);
    }
    expect(((await bob('GET', path)).body as Rec).caseId).toBe(own.id);
  });
});
