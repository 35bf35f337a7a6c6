import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { generateFresh, startServer, typecheckAndBuild, WORK, type RunningServer } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';

/**
 * Nobody but staff gives a record away (SPEC §9): a caller admitted by `authenticated` may edit a record, not hand it
 * to someone else; and with a server-set owner first (`owner: [createdBy, assigneeId]`), the creator stays an owner
 * whoever is assigned, while the assignee may not pass the record on.
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
      expect((r.body as Rec).detail).toMatch(/may make someone else the authorId/);
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

    const passed = await bob('PATCH', path, { assigneeId: 'carol' });
    expect(passed.status, passed.text).toBe(403);
    const reassigned = await alice('PATCH', path, { assigneeId: 'carol' });
    expect([reassigned.status, (reassigned.body as Rec).assigneeId]).toEqual([200, 'carol']);
    expect((await bob('GET', path)).status).toBe(404);
    expect((await carol('GET', path)).status).toBe(200);
  });
});
