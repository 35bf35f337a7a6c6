import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type RunningServer, serveGenerated } from '../helpers/project.js';
import { as, SECRET, token } from '../helpers/tokens.js';
import { databaseUrl } from '../helpers/database.js';

/** Listing of the task tracker's tasks: sort, filters and keyset cursors, checked against the same rows sorted here. */
let server: RunningServer;
let http: ReturnType<typeof as>;
let tasks: string;
type Task = {
  id: number;
  title: string;
  priority: number;
  estimate: number | null;
  status: string;
  dueOn: string | null;
};
const created: Task[] = [];

beforeAll(async () => {
  ({ server } = await serveGenerated(`${ROOT}/examples/tasks.yaml`, 'e2e-listing', {
    DATABASE_URL: await databaseUrl('listing'),
    JWT_SECRET: SECRET,
  }));
  http = as(await token('manager', { roles: ['manager'] }));
  tasks = `${server.url}/tasks`;
  const project = (await http('POST', `${server.url}/projects`, { key: 'LST', name: 'Listing' })).body as {
    id: number;
  };
  const statuses = ['todo', 'doing', 'done', 'cancelled'];
  for (let i = 0; i < 23; i += 1) {
    const body = {
      projectId: project.id,
      title: i % 5 === 0 ? `Write the Report ${i}` : `task ${String(i).padStart(2, '0')}`,
      priority: (i % 5) + 1,
      estimate: i % 4 === 0 ? null : (i % 7) * 1.5,
      status: statuses[i % 4],
      dueOn: i % 3 === 0 ? null : `2026-12-${String((i % 28) + 1).padStart(2, '0')}`,
    };
    created.push((await http('POST', tasks, body)).body as Task);
  }
});

afterAll(async () => {
  await server?.stop();
});

/** Every page of a listing, following nextCursor; fails on a repeated or missing record. */
async function all(query: string, limit = 4): Promise<Task[]> {
  const items: Task[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page += 1) {
    const url: string = `${tasks}?limit=${limit}${query ? `&${query}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await http('GET', url);
    expect(r.status, r.text).toBe(200);
    const body = r.body as { items: Task[]; nextCursor: string | null };
    items.push(...body.items);
    cursor = body.nextCursor;
    if (cursor === null) return items;
  }
  throw new Error('more than 50 pages');
}

/** The order SPEC'd: NULLs first ascending, last descending; ties by id ascending. */
function sorted(rows: Task[], keys: [keyof Task, 'asc' | 'desc'][]): number[] {
  const compare = (a: Task, b: Task): number => {
    for (const [key, direction] of keys) {
      const [x, y] = [a[key], b[key]];
      if (x === y) continue;
      const order = x === null ? -1 : y === null ? 1 : x < y ? -1 : 1;
      return direction === 'asc' ? order : -order;
    }
    return a.id - b.id;
  };
  return [...rows].sort(compare).map((t) => t.id);
}

describe('sort', () => {
  it.each([
    ['priority', [['priority', 'asc']]],
    [
      '-priority,title',
      [
        ['priority', 'desc'],
        ['title', 'asc'],
      ],
    ],
    ['estimate', [['estimate', 'asc']]],
    ['-estimate', [['estimate', 'desc']]],
    [
      '-dueOn,-id',
      [
        ['dueOn', 'desc'],
        ['id', 'desc'],
      ],
    ],
    [
      'status,-estimate',
      [
        ['status', 'asc'],
        ['estimate', 'desc'],
      ],
    ],
  ] as [string, [keyof Task, 'asc' | 'desc'][]][])(
    'sort=%s pages through every record once, in order',
    async (sort, keys) => {
      const listed = await all(`sort=${sort}`);
      expect(listed.map((t) => t.id)).toEqual(sorted(created, keys));
    },
  );

  it('refuses an unknown field, a field twice, and a cursor of another sort', async () => {
    const colour = await http('GET', `${tasks}?sort=colour`);
    expect(colour.status).toBe(400);
    // the message names the fields a listing sorts by
    expect((colour.body as { errors: { message: string }[] }).errors[0]?.message).toMatch(
      /^must be fields of this collection, comma-separated, each with an optional "-" \(id, .*title.*priority/,
    );
    expect((await http('GET', `${tasks}?sort=priority,-priority`)).status).toBe(400);
    const first = (await http('GET', `${tasks}?limit=2&sort=priority`)).body as { nextCursor: string };
    const other = await http('GET', `${tasks}?limit=2&sort=-priority&cursor=${first.nextCursor}`);
    expect(other.status).toBe(400);
    expect((other.body as { errors: { path: string }[] }).errors[0]?.path).toBe('/cursor');
  });

  it('refuses a forged or tampered cursor', async () => {
    const first = (await http('GET', `${tasks}?limit=2`)).body as { nextCursor: string };
    const [payload = '', signature = ''] = first.nextCursor.split('.');
    const forged = Buffer.from(JSON.stringify({ s: 'id', v: [1] })).toString('base64url');
    expect((await http('GET', `${tasks}?cursor=${forged}.${signature}`)).status).toBe(400);
    expect((await http('GET', `${tasks}?cursor=${payload}.${signature.slice(1)}x`)).status).toBe(400);
    expect((await http('GET', `${tasks}?cursor=garbage`)).status).toBe(400);
  });

  it("refuses another collection's cursor, though its sort and values would fit (found by a reviewer)", async () => {
    expect((await http('POST', `${server.url}/projects`, { key: 'CUR', name: 'Cursors' })).status).toBe(201);
    const projects = (await http('GET', `${server.url}/projects?limit=1`)).body as { nextCursor: string };
    const replayed = await http('GET', `${tasks}?cursor=${projects.nextCursor}`);
    expect(replayed.status).toBe(400);
    expect((replayed.body as { errors: { message: string }[] }).errors[0]?.message).toBe(
      'is not a cursor this listing issued',
    );
  });
});

describe('filters', () => {
  const ids = (rows: Task[]) => rows.map((t) => t.id).sort((a, b) => a - b);
  it.each([
    ['status=done', (t: Task) => t.status === 'done'],
    ['status[ne]=done', (t: Task) => t.status !== 'done'],
    ['priority[gte]=4', (t: Task) => t.priority >= 4],
    ['priority[lt]=2', (t: Task) => t.priority < 2],
    ['priority[in]=1,3,5', (t: Task) => [1, 3, 5].includes(t.priority)],
    ['estimate[gt]=3', (t: Task) => t.estimate !== null && t.estimate > 3],
    ['estimate[ne]=3', (t: Task) => t.estimate !== 3],
    ['dueOn[lte]=2026-12-10', (t: Task) => t.dueOn !== null && t.dueOn <= '2026-12-10'],
    ['title[contains]=REPORT', (t: Task) => t.title.toLowerCase().includes('report')],
    ['status[in]=todo,doing&priority[gt]=2', (t: Task) => ['todo', 'doing'].includes(t.status) && t.priority > 2],
    // `field[eq]` is `field`: what a client of the document's deepObject parameters sends for equality
    ['status[eq]=done', (t: Task) => t.status === 'done'],
    ['priority[eq]=3&status[in]=todo,done', (t: Task) => t.priority === 3 && ['todo', 'done'].includes(t.status)],
    ['project.key[eq]=LST&estimate[eq]=3', (t: Task) => t.estimate === 3],
    // an `in` list given as the parameter repeated, as openapi-fetch and orval send arrays
    ['status[in]=todo&status[in]=doing,done', (t: Task) => ['todo', 'doing', 'done'].includes(t.status)],
  ] as [string, (t: Task) => boolean][])('%s', async (query, keep) => {
    const listed = await all(query, 3);
    expect(ids(listed)).toEqual(ids(created.filter(keep)));
    expect(listed.length).toBeGreaterThan(0);
  });

  it('answers an unknown parameter, an unknown operator and an ill-typed value with 400s naming them', async () => {
    for (const [query, path] of [
      ['colour=red', '/colour'],
      ['priority[like]=1', '/priority[like]'],
      ['priority[gte]=high', '/priority[gte]'],
      ['labels=x', '/labels'],
      ['status=unknown', '/status'],
      ['status[eq]=unknown', '/status[eq]'],
      ['createdAt[gt]=0000-01-01T00:00:00Z', '/createdAt[gt]'],
      // each value of an `in` list is checked as the field's value is
      ['status[in]=bogus', '/status[in]/0'],
      ['status[in]=todo,bogus', '/status[in]/1'],
      ['dueOn[in]=2026-12-10,tomorrow', '/dueOn[in]/1'],
      ['priority[in]=1,0x10', '/priority[in]/1'],
      ['priority[in]=1,,2', '/priority[in]/1'],
      [`priority[in]=${Array.from({ length: 101 }, (_, i) => i).join(',')}`, '/priority[in]'],
    ]) {
      const r = await http('GET', `${tasks}?${query}`);
      expect(r.status, query).toBe(400);
      expect(
        (r.body as { errors: { path: string }[] }).errors.map((e) => e.path),
        query,
      ).toContain(path);
    }
  });
});

describe('contains, the same on SQLite and PostgreSQL', () => {
  it('is a substring match that ignores the case of ASCII letters only, with no wildcards', async () => {
    const project = (await http('POST', `${server.url}/projects`, { key: 'TXT', name: 'Texts' })).body as {
      id: number;
    };
    const titles = ['Crème BRÛLÉE', 'crème brûlée', '100% done', '100 percent', 'snake_case', 'snakeXcase'];
    const byTitle = new Map<string, number>();
    for (const title of titles) {
      byTitle.set(title, ((await http('POST', tasks, { projectId: project.id, title })).body as Task).id);
    }
    const matching = async (text: string): Promise<string[]> => {
      const r = await http('GET', `${tasks}?projectId=${project.id}&title[contains]=${encodeURIComponent(text)}`);
      expect(r.status, r.text).toBe(200);
      return (r.body as { items: Task[] }).items.map((t) => t.title).sort();
    };
    expect(await matching('CRème')).toEqual(['Crème BRÛLÉE', 'crème brûlée']); // C/c and R/r folded
    expect(await matching('CRÈME')).toEqual([]); // È and è are not
    expect(await matching('brûlée')).toEqual(['crème brûlée']); // Û and û are not folded
    expect(await matching('%')).toEqual(['100% done']); // no LIKE wildcards
    expect(await matching('e_c')).toEqual(['snake_case']);
    expect([...byTitle.keys()].sort()).toEqual([...titles].sort());
  });
});

describe('a sort on long texts', () => {
  it('pages with cursors that name their record instead of holding kilobytes of text (a newcomer got a 431)', async () => {
    const project = (await http('POST', `${server.url}/projects`, { key: 'LNG', name: 'Long notes' })).body as {
      id: number;
    };
    const ids: number[] = [];
    for (let i = 0; i < 7; i += 1) {
      // 20,000 characters each, sorting as their first letters say (g, f, …, a): far past what a URL holds
      const notes = `${String.fromCharCode(103 - i)}${'x'.repeat(20_000)}`;
      const body = { projectId: project.id, title: `long ${i}`, notes };
      ids.push(((await http('POST', tasks, body)).body as Task).id);
    }
    const pages: { items: Task[]; nextCursor: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `${tasks}?limit=2&sort=notes&projectId=${project.id}${cursor ? `&cursor=${cursor}` : ''}`;
      const r = await http('GET', url);
      expect(r.status, r.text.slice(0, 300)).toBe(200);
      const page = r.body as { items: Task[]; nextCursor: string | null };
      pages.push(page);
      cursor = page.nextCursor;
      if (cursor !== null) expect(cursor.length).toBeLessThan(300);
    } while (cursor !== null && pages.length < 10);
    expect(pages.flatMap((p) => p.items.map((t) => t.id))).toEqual([...ids].reverse());

    // the record a cursor names is gone: a 400 that says to start again, not a page from nowhere
    const first = (await http('GET', `${tasks}?limit=2&sort=notes&projectId=${project.id}`)).body as {
      items: Task[];
      nextCursor: string;
    };
    expect((await http('DELETE', `${tasks}/${first.items[1]?.id}`)).status).toBe(204);
    const gone = await http('GET', `${tasks}?limit=2&sort=notes&projectId=${project.id}&cursor=${first.nextCursor}`);
    expect(gone.status).toBe(400);
    expect((gone.body as { errors: { message: string }[] }).errors[0]?.message).toBe(
      'continues after a record that is gone: start again without it',
    );
  });
});
