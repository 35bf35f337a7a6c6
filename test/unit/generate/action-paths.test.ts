import { describe, expect, it } from 'vitest';
import { actionPath, statePath } from '../../../src/generate/action-paths.js';
import { fixtures } from '../../../src/generate/fixtures.js';
import { matrixView } from '../../../src/generate/matrix-view.js';
import type { Resource } from '../../../src/model.js';
import { normalise } from '../../../src/pipeline/normalise.js';
import { definitionOf } from '../definition/helpers.js';

/** Work orders whose status and closedAt only actions set; `actions` is the YAML of their actions. */
function workOrders(actions: string, access = ''): Resource {
  const resource = shop(actions, access).resources[0];
  if (resource === undefined) throw new Error('no resource');
  return resource;
}

function shop(actions: string, access = '') {
  return normalise(
    definitionOf(`
      name: shop
      version: 1.0.0
      auth: { roles: [admin] }
      resources:
        work-orders:
          fields:
            title: { type: string, required: true }
            status: { type: enum, values: [open, in-progress, done, cancelled], default: open, readOnly: true }
            closedAt: { type: datetime, nullable: true, readOnly: true }
          ${access}
          actions:
${actions}
    `),
  );
}

const START = '            start: { on: item, access: admin, when: { status: [open] }, set: { status: in-progress } }';
const FINISH =
  '            finish: { on: item, access: admin, when: { status: [in-progress] }, set: { status: done, closedAt: now } }';
const CANCEL = '            cancel: { on: item, access: admin, when: { status: [open] }, set: { status: cancelled } }';

describe('actionPath: the actions that take a new record to one that sets a field', () => {
  it.each([
    ['one action a new record may take', [CANCEL, START, FINISH], 'status', ['cancel']],
    ['the fewest actions, through the states each leaves', [CANCEL, START, FINISH], 'closedAt', ['start', 'finish']],
    ['none where no new record gets there', [CANCEL, FINISH], 'closedAt', undefined],
    [
      'no action that takes input (a test sends none)',
      ['            close: { on: item, access: admin, input: { fields: { reason: string } }, set: { closedAt: now } }'],
      'closedAt',
      undefined,
    ],
  ])('%s', (_, actions, field, want) => {
    const resource = workOrders(actions.join('\n'));
    expect(actionPath(resource, (a) => a.set.some((s) => s.field === field))).toEqual(want);
  });
});

describe('statePath: the actions that take a record made with a body where a write is allowed', () => {
  const when = (values: string[]) => [{ field: 'status', values }];
  it.each([
    ['none when it is made there (the default)', ['open', 'in-progress'], {}, []],
    ['the actions, when only they set the state', ['in-progress'], {}, ['start']],
    ['through two states', ['done'], {}, ['start', 'finish']],
    ['none when the body sets the state (a writable one)', ['done'], { status: 'done' }, []],
    ['undefined when no action takes a new record there', ['archived'], {}, undefined],
  ])('%s', (_, values, body, want) => {
    expect(statePath(workOrders([CANCEL, START, FINISH].join('\n')), when(values), body)).toEqual(want);
  });

  it('reads a nullable field without a default as null, as a record made stores it', () => {
    const REVIEW =
      '            review: { on: item, access: admin, when: { closedAt: null }, set: { status: in-progress } }';
    const resource = workOrders([REVIEW, FINISH].join('\n'));
    expect(statePath(resource, [{ field: 'closedAt', values: [null] }])).toEqual([]);
    expect(statePath(resource, when(['done']))).toEqual(['review', 'finish']);
  });

  it('holds no condition on a field each record has its own value of (varied, a reference, an owner)', () => {
    const OPENED =
      '            open: { on: item, access: admin, when: { title: [first] }, set: { status: in-progress } }';
    const resource = workOrders(OPENED);
    const first = [{ field: 'title', values: ['first'] }];
    expect(statePath(resource, first, { title: 'first' })).toEqual([]);
    expect(statePath(resource, first, { title: 'first' }, ['title'])).toBeUndefined();
    expect(statePath(resource, when(['in-progress']), { title: 'first' })).toEqual(['open']);
    expect(statePath(resource, when(['in-progress']), { title: 'first' }, ['title'])).toBeUndefined();
  });

  it("is what the generated API test takes its records through, where update's and delete's `when` need", () => {
    const api = shop(
      [CANCEL, START, FINISH].join('\n'),
      'access: { update: { access: admin, when: { status: [in-progress] } }, delete: { access: admin, when: { status: [cancelled] } } }',
    );
    expect(fixtures(api)[0]).toMatchObject({ toUpdate: ['start'], toDelete: ['cancel'] });
    const open = shop(CANCEL, 'access: { update: { access: admin, when: { status: [done] } } }');
    expect(fixtures(open)[0]).toMatchObject({ toUpdate: null });
    expect(fixtures(open)[0]).not.toHaveProperty('toDelete');
  });
});

/** The matrix view of work orders updated while open or in progress, with `actions`. */
function viewOf(actions: string) {
  const api = shop(actions, 'access: { update: { access: admin, when: { status: [open, in-progress] } } }');
  return matrixView(api, fixtures(api));
}

describe('how the generated tests take a record out of the states its update needs', () => {
  const CLOSE = '            close: { on: item, access: admin, set: { status: done } }';
  it.each([
    ['an action a new record may take, before one whose own state it is not in yet', [FINISH, CANCEL], 'cancel'],
    ['an action without a state of its own', [FINISH, CLOSE], 'close'],
    ['the first that leaves, when no action may be taken by a new record', [FINISH], 'finish'],
  ])('%s', (_, actions, want) => {
    expect(viewOf(actions.join('\n')).actions.flatMap((view) => view.states)).toEqual([
      { operation: 'update', when: { status: ['open', 'in-progress'] }, out: { action: want } },
    ]);
  });
});

describe('how the listing test gives a value to a field only actions set', () => {
  it('names the actions that take a new record there, one after the other; none for a field records are made with', () => {
    const fields = viewOf([START, FINISH].join('\n')).listings.flatMap((listing) => listing.fields);
    expect(fields.find((f) => f.name === 'closedAt')?.setBy).toEqual(['start', 'finish']);
    expect(fields.find((f) => f.name === 'status')?.setBy).toEqual(['start']);
    expect(fields.find((f) => f.name === 'title')).not.toHaveProperty('setBy');
  });
});

describe('how the actions test brings a record into the state a set action needs', () => {
  const REOPEN = '            reopen: { on: item, access: admin, when: { status: [done] }, set: { status: open } }';
  it('names the actions before it, several deep; none where a new record is; null where none get there', () => {
    const set = viewOf([START, FINISH, REOPEN, CANCEL].join('\n')).actions.flatMap((view) => view.set);
    expect(Object.fromEntries(set.map((a) => [a.name, a.path]))).toEqual({
      start: [],
      finish: ['start'],
      reopen: ['start', 'finish'],
      cancel: [],
    });
    const stuck = viewOf(FINISH).actions.flatMap((view) => view.set);
    expect(stuck).toMatchObject([{ name: 'finish', path: null }]);
  });
});

describe('how the actions test calls an action that takes input, or that your handler answers', () => {
  it('gives each a valid input, and an item handler its path into its when', () => {
    const REJECT =
      '            reject: { on: item, access: admin, when: { status: [open] }, set: { status: cancelled }, input: { fields: { reason: { type: string, required: true } } } }';
    const ESTIMATE =
      '            estimate: { on: item, access: admin, when: { status: [in-progress] }, input: { fields: { hours: { type: integer, min: 1, required: true } } } }';
    const view = viewOf([START, REJECT, ESTIMATE].join('\n'));
    const [actions] = view.actions;
    expect(actions?.set.find((a) => a.name === 'reject')).toMatchObject({
      path: [],
      input: { reason: expect.any(String) },
    });
    expect(actions?.set.find((a) => a.name === 'start')).toMatchObject({ input: null });
    expect(actions?.handled).toMatchObject([
      { name: 'estimate', when: { status: ['in-progress'] }, path: ['start'], input: { hours: expect.any(Number) } },
    ]);
    // the access matrix calls them with it too, and takes a record out of its update's states with it
    const rows = view.matrix['work-orders']?.rows ?? [];
    expect(rows.find((r) => r.what === 'estimate')?.input).toEqual(actions?.handled[0]?.input);
    expect(rows.find((r) => r.what === 'start')).not.toHaveProperty('input');
    const out = viewOf(REJECT).actions.flatMap((a) => a.states);
    expect(out).toMatchObject([{ out: { action: 'reject', input: { reason: expect.any(String) } } }]);
  });
});
