import { describe, expect, it } from 'vitest';
import { actionPath, statePath } from '../../../src/generate/action-paths.js';
import { fixtures } from '../../../src/generate/fixtures.js';
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
