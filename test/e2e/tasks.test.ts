import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateFresh, ROOT, type RunningServer, startServer, typecheckAndBuild } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

/** The task tracker: integer ids, no prefix, and every onDelete rule, over real HTTP. */
let server: RunningServer;
let api: string;
/** as the administrator: access rules have their own suite (guards.test.ts) */
let http: ReturnType<typeof as>;

/** The user's handler of `GET /tasks/summary`, written as a user would (typed by the generated actions.ts). */
const SUMMARY_HANDLER = `
  async summary({ input, caller }) {
    return { body: { projectId: input.projectId, includeCancelled: input.includeCancelled ?? null, by: caller?.subject ?? null } };
  },
`;

/** The user's handler of `POST /tasks/{id}/reschedule`: what it was given, to show it ran. */
const RESCHEDULE_HANDLER = `
  async reschedule({ input, record }) {
    return { body: { id: record.id, status: record.status, dueOn: input.dueOn } };
  },
`;

beforeAll(async () => {
  const dir = await generateFresh(`${ROOT}/examples/tasks.yaml`, 'e2e-tasks');
  const handlers = join(dir, 'src/handlers/tasks.ts');
  const stub = (name: string) =>
    new RegExp(`\\n {2}/\\*\\*[^\\n]*\\n {2}async ${name}\\(_context\\) \\{\\n[^\\n]*\\n {2}\\},\\n`);
  const written = readFileSync(handlers, 'utf8')
    .replace(stub('summary'), SUMMARY_HANDLER)
    .replace(stub('reschedule'), RESCHEDULE_HANDLER);
  writeFileSync(handlers, written);
  await typecheckAndBuild(dir);
  server = await startServer(dir, {
    DATABASE_URL: await databaseUrl('tasks', 'sqlite:./data/e2e.db'),
    JWT_SECRET: SECRET,
  });
  api = server.url;
  http = as(await token('admin-1', { roles: ['admin'] }));
});

afterAll(async () => {
  await server?.stop();
});

type Rec = Record<string, unknown>;
let counter = 0;

async function create(path: string, body: Rec): Promise<Rec> {
  const r = await http('POST', `${api}${path}`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as Rec;
}

async function person(): Promise<Rec> {
  counter += 1;
  return create('/people', {
    subject: `user-${counter}`,
    email: `p${counter}@example.com`,
    displayName: `Person ${counter}`,
    calendarToken: 'secret',
  });
}

async function project(leadId: unknown = null): Promise<Rec> {
  counter += 1;
  return create('/projects', { key: `P${counter}`, name: `Project ${counter}`, leadId });
}

describe('integer ids and no prefix', () => {
  it('numbers records and points Location at them', async () => {
    const first = await person();
    const second = await person();
    expect(typeof first.id).toBe('number');
    expect(second.id).toBe((first.id as number) + 1);
    const again = await http('GET', `${api}/people/${first.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.id, subject: first.subject });
  });

  it('never returns a write-only field', async () => {
    const p = await person();
    expect(p).not.toHaveProperty('calendarToken');
    const read = await http('GET', `${api}/people/${p.id}`);
    expect(read.text).not.toContain('secret');
  });

  it('answers a non-numeric id with a 404', async () => {
    expect((await http('GET', `${api}/people/abc`)).status).toBe(404);
    expect((await http('GET', `${api}/people/0`)).status).toBe(404);
  });

  it('pages integer ids with cursors', async () => {
    for (let i = 0; i < 3; i += 1) await person();
    const first = (await http('GET', `${api}/people?limit=2`)).body as { items: Rec[]; nextCursor: string };
    const second = (await http('GET', `${api}/people?limit=2&cursor=${first.nextCursor}`)).body as { items: Rec[] };
    expect(second.items[0]?.id as number).toBeGreaterThan(first.items[1]?.id as number);
  });
});

describe('onDelete', () => {
  it('restrict: a project with tasks cannot be deleted (409), and can once they are gone', async () => {
    const p = await project();
    const task = await create('/tasks', { projectId: p.id, title: 'Blocker' });
    const blocked = await http('DELETE', `${api}/projects/${p.id}`);
    expect(blocked.status).toBe(409);
    expect((blocked.body as Rec).detail).toMatch(/refer/);
    expect((await http('GET', `${api}/projects/${p.id}`)).status).toBe(200);
    expect((await http('DELETE', `${api}/tasks/${task.id}`)).status).toBe(204);
    expect((await http('DELETE', `${api}/projects/${p.id}`)).status).toBe(204);
  });

  it('setNull: deleting a person clears the lead of their projects and the assignee of their tasks', async () => {
    const lead = await person();
    const p = await project(lead.id);
    const task = await create('/tasks', { projectId: p.id, title: 'Assigned', assigneeId: lead.id });
    expect((await http('DELETE', `${api}/people/${lead.id}`)).status).toBe(204);
    expect(((await http('GET', `${api}/projects/${p.id}`)).body as Rec).leadId).toBeNull();
    expect(((await http('GET', `${api}/tasks/${task.id}`)).body as Rec).assigneeId).toBeNull();
  });

  it('cascade: deleting a task deletes its activity', async () => {
    const p = await project();
    const task = await create('/tasks', { projectId: p.id, title: 'Noisy' });
    const entry = await create('/activity', { taskId: task.id, message: 'created' });
    expect((await http('DELETE', `${api}/tasks/${task.id}`)).status).toBe(204);
    expect((await http('GET', `${api}/activity/${entry.id}`)).status).toBe(404);
  });
});

describe('field types', () => {
  it('round-trips dates, enums with defaults, json, uuids and numbers; validates patterns', async () => {
    const p = await project();
    const task = await create('/tasks', {
      projectId: p.id,
      title: 'Typed',
      dueOn: '2026-12-24',
      estimate: 2.5,
      labels: ['x', { y: 1 }],
      externalId: '3f0c4a52-8f7e-4b8e-9d43-0e1f2a3b4c5d',
    });
    expect(task).toMatchObject({
      status: 'todo',
      priority: 3,
      dueOn: '2026-12-24',
      estimate: 2.5,
      labels: ['x', { y: 1 }],
    });
    const bad = await http('POST', `${api}/projects`, { key: 'lower', name: 'x' });
    expect(bad.status).toBe(400);
    const badDate = await http('POST', `${api}/tasks`, {
      projectId: p.id,
      title: 'x',
      dueOn: '24/12/2026',
      priority: 9,
    });
    expect(((badDate.body as Rec).errors as Rec[]).map((e) => e.path).sort()).toEqual(['/dueOn', '/priority']);
  });

  it('takes a unique uuid once', async () => {
    const p = await project();
    const externalId = '11111111-2222-4333-8444-555555555555';
    await create('/tasks', { projectId: p.id, title: 'One', externalId });
    const again = await http('POST', `${api}/tasks`, { projectId: p.id, title: 'Two', externalId });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      detail: 'a task with this externalId already exists',
      errors: [{ path: '/externalId', message: 'is taken: another record has this value' }],
    });
  });

  it('names the unique field whose value is taken, of several (found by a newcomer)', async () => {
    const taken = await person();
    const body = { displayName: 'Again', calendarToken: 'secret' };
    // the email is unique whatever the case of its letters: its index is on lower(email)
    const email = await http('POST', `${api}/people`, {
      ...body,
      subject: 'someone-new',
      email: String(taken.email).toUpperCase(),
    });
    expect([email.status, (email.body as Rec).detail, (email.body as Rec).errors]).toEqual([
      409,
      'a person with this email already exists',
      [{ path: '/email', message: 'is taken: another record has this value' }],
    ]);
    const subject = await http('POST', `${api}/people`, { ...body, subject: taken.subject, email: 'new@example.com' });
    expect((subject.body as Rec).errors).toEqual([
      { path: '/subject', message: 'is taken: another record has this value' },
    ]);
  });
});

describe('datetimes', () => {
  it('stores any ISO 8601 offset in UTC with a Z, and refuses what JavaScript cannot read (a leap second)', async () => {
    const p = await project();
    const task = await create('/tasks', { projectId: p.id, title: 'Timed', startedAt: '2026-03-01T10:30:00+02:00' });
    expect(task.startedAt).toBe('2026-03-01T08:30:00.000Z');
    const leap = await http('POST', `${api}/tasks`, {
      projectId: p.id,
      title: 'Leap',
      startedAt: '2016-12-31T23:59:60Z',
    });
    expect(leap.status).toBe(400);
    expect(((leap.body as Rec).errors as Rec[])[0]?.path).toBe('/startedAt');
  });
});

describe('owner scoping', () => {
  it("lists only the caller's own tasks where the rule admits them only as owner, and every task for a manager", async () => {
    const p = await project();
    const member = (subject: string) => token(subject, { roles: ['member'] }).then(as);
    const ann = await member('ann');
    const ben = await member('ben');
    for (const title of ['a1', 'a2', 'a3'])
      expect((await ann('POST', `${api}/tasks`, { projectId: p.id, title })).status).toBe(201);
    expect((await ben('POST', `${api}/tasks`, { projectId: p.id, title: 'b1' })).status).toBe(201);
    const listed = async (caller: ReturnType<typeof as>, query = '') =>
      ((await caller('GET', `${api}/tasks?limit=200${query}`)).body as { items: Rec[] }).items;
    const mine = await listed(ann);
    expect(mine.map((t) => t.title).sort()).toEqual(['a1', 'a2', 'a3']);
    expect(mine.every((t) => t.reporterId === 'ann')).toBe(true);
    // the owner's pages hold only the owner's records, cursor after cursor
    const page = (await ann('GET', `${api}/tasks?limit=2`)).body as { items: Rec[]; nextCursor: string };
    const next = (await ann('GET', `${api}/tasks?limit=2&cursor=${page.nextCursor}`)).body as {
      items: Rec[];
      nextCursor: null;
    };
    expect([...page.items, ...next.items].map((t) => t.title).sort()).toEqual(['a1', 'a2', 'a3']);
    expect(next.nextCursor).toBeNull();
    const manager = as(await token('mia', { roles: ['manager'] }));
    const all = await listed(manager);
    expect(all.map((t) => t.title)).toEqual(expect.arrayContaining(['a1', 'a2', 'a3', 'b1']));
  });
});

describe('a read-only action (method: get)', () => {
  it('takes its input as validated query parameters and calls the handler; other methods are a 405', async () => {
    const answer = await http('GET', `${api}/tasks/summary?projectId=7&includeCancelled=true`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ projectId: 7, includeCancelled: true, by: 'admin-1' });
    // the default applies, as to a body
    expect((await http('GET', `${api}/tasks/summary?projectId=7`)).body).toMatchObject({ includeCancelled: false });
    const bad = await http('GET', `${api}/tasks/summary?projectId=0&colour=red`);
    expect(bad.status).toBe(400);
    expect((bad.body as { errors: { path: string }[] }).errors.map((e) => e.path).sort()).toEqual([
      '/colour',
      '/projectId',
    ]);
    expect((await http('GET', `${api}/tasks/summary`)).status).toBe(400);
    const post = await http('POST', `${api}/tasks/summary`, {});
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    // its access rule: managers only
    const member = as(await token('m-1', { roles: ['member'] }));
    expect((await member('GET', `${api}/tasks/summary?projectId=7`)).status).toBe(403);
  });

  it('is a GET operation with query parameters in the OpenAPI document', async () => {
    type Op = { parameters: { name: string; in: string; required: boolean }[]; requestBody?: unknown };
    const doc = (await http('GET', `${api}/openapi.json`)).body as { paths: Record<string, Record<string, Op>> };
    const operation = doc.paths['/tasks/summary'];
    expect(Object.keys(operation ?? {})).toEqual(['get']);
    expect(operation?.get?.parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['projectId', 'query', true],
      ['includeCancelled', 'query', false],
    ]);
    expect(operation?.get?.requestBody).toBeUndefined();
  });
});

describe('an item action your handler answers, with a `when` (reschedule)', () => {
  it('runs your handler only in the states its when allows (else 409) and at the version If-Match names (else 412)', async () => {
    const p = await project();
    const task = await create('/tasks', { projectId: p.id, title: 'Movable' });
    const url = `${api}/tasks/${String(task.id)}/reschedule`;
    const input = { dueOn: '2026-12-24', reason: 'waiting on parts' };
    const ran = await http('POST', url, input);
    expect(ran.status, JSON.stringify(ran.body)).toBe(200);
    expect(ran.body).toEqual({ id: task.id, status: 'todo', dueOn: '2026-12-24' });
    // If-Match: the record's own ETag runs it, another version is a 412, a malformed one a 400
    const etag = String((await http('GET', `${api}/tasks/${String(task.id)}`)).headers.get('etag'));
    expect((await http('POST', url, input, { 'if-match': etag })).status).toBe(200);
    expect((await http('POST', url, input, { 'if-match': '"99"' })).status).toBe(412);
    expect((await http('POST', url, input, { 'if-match': 'nope' })).status).toBe(400);
    // done: outside its when, the handler is not called
    expect((await http('POST', `${api}/tasks/${String(task.id)}/complete`)).status).toBe(200);
    const refused = await http('POST', url, input);
    expect(refused.status).toBe(409);
    expect((refused.body as Rec).detail).toBe('reschedule needs status to be one of "todo", "doing"; status is "done"');
  });
});

describe('deprecation', () => {
  it('a deprecated resource says so on every response, errors included; the others do not', async () => {
    const p = await project();
    const task = await create('/tasks', { projectId: p.id, title: 'Deprecated log' });
    const answers = [
      await http('POST', `${api}/activity`, { taskId: task.id, message: 'x' }),
      await http('GET', `${api}/activity`),
      await http('GET', `${api}/activity/999999`),
      await http('POST', `${api}/activity`, { message: 'no task' }),
      // a method the path does not take, and the nested route of its records under a task
      await http('DELETE', `${api}/activity`),
      await http('GET', `${api}/tasks/${task.id}/activity`),
      await http('PATCH', `${api}/tasks/${task.id}/activity`),
    ];
    expect(answers.map((r) => r.status)).toEqual([201, 200, 404, 400, 405, 200, 405]);
    for (const r of answers) {
      expect(r.headers.get('deprecation')).toBe('@1793491200');
      expect(r.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
      expect(r.headers.get('link')).toBe(
        '<https://example.com/docs/activity-is-going>; rel="deprecation"; type="text/html"',
      );
    }
    const tasks = await http('GET', `${api}/tasks/${task.id}`);
    expect([tasks.headers.get('deprecation'), tasks.headers.get('sunset'), tasks.headers.get('link')]).toEqual([
      null,
      null,
      null,
    ]);
  });

  it('the OpenAPI document marks the deprecated operations and fields', async () => {
    type Doc = {
      paths: Record<string, Record<string, { deprecated?: boolean; description?: string }>>;
      components: { schemas: Record<string, { properties: Record<string, { deprecated?: boolean }> }> };
    };
    const doc = (await http('GET', `${api}/openapi.json`)).body as Doc;
    expect(doc.paths['/activity']?.get).toMatchObject({
      deprecated: true,
      description: expect.stringMatching(
        /Deprecated since 2026-11-01; it stops answering on 2027-06-30; see https:\/\/example\.com\/docs\/activity-is-going\./,
      ),
    });
    expect(doc.paths['/activity/{id}']?.get?.deprecated).toBe(true);
    expect(doc.paths['/tasks']?.get?.deprecated).toBeUndefined();
    expect(doc.components.schemas.Task?.properties.estimate?.deprecated).toBe(true);
    expect(doc.components.schemas.Task?.properties.title?.deprecated).toBeUndefined();
  });
});

describe('operations switched off', () => {
  it('activity has no update or delete routes', async () => {
    const p = await project();
    const task = await create('/tasks', { projectId: p.id, title: 'Logged' });
    const entry = await create('/activity', { taskId: task.id, message: 'hello' });
    expect((await http('GET', `${api}/activity/${entry.id}`)).status).toBe(200);
    const patch = await http('PATCH', `${api}/activity/${entry.id}`, { message: 'changed' });
    expect(patch.status).toBe(405);
    expect(patch.headers.get('allow')).toBe('GET, HEAD');
    expect((await http('DELETE', `${api}/activity/${entry.id}`)).status).toBe(405);
    const collection = await http('DELETE', `${api}/activity`);
    expect(collection.status).toBe(405);
    expect(collection.headers.get('allow')).toBe('GET, HEAD, POST');
    expect((await http('GET', `${api}/activity/${entry.id}`)).body).toMatchObject({ message: 'hello' });
  });

  it('answers OPTIONS, TRACE and the other methods Node parses with 405 and Allow on a known path', async () => {
    // fetch refuses TRACE: node:http sends any method
    const send = (method: string, url: string) =>
      new Promise<{ status: number; allow: unknown; type: unknown }>((resolve, reject) => {
        request(url, { method }, (response) => {
          response.resume();
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              allow: response.headers.allow,
              type: response.headers['content-type'],
            }),
          );
        })
          .on('error', reject)
          .end();
      });
    for (const method of ['OPTIONS', 'TRACE', 'PROPFIND', 'PURGE', 'M-SEARCH']) {
      const r = await send(method, `${api}/activity`);
      expect(r.status, method).toBe(405);
      expect(r.allow, method).toBe('GET, HEAD, POST');
      expect(r.type).toMatch(/^application\/problem\+json/);
    }
    expect((await send('PROPFIND', `${api}/no-such-collection`)).status).toBe(404);
    // the server's own paths too (found by a newcomer: they were 404s)
    for (const [method, path, allow] of [
      ['POST', '/healthz', 'GET, HEAD'],
      ['POST', '/openapi.json', 'GET, HEAD'],
      ['DELETE', '/events', 'GET, HEAD'],
      ['POST', '/events/stream', 'GET, HEAD'],
    ]) {
      const r = await send(method!, `${api}${path}`);
      expect([r.status, r.allow], `${method} ${path}`).toEqual([405, allow]);
      expect(r.type).toMatch(/^application\/problem\+json/);
    }
  });
});
