import { describe, expect, it } from 'vitest';
import { actionPath } from '../../../src/generate/action-paths.js';
import type { Resource } from '../../../src/model.js';
import { normalise } from '../../../src/pipeline/normalise.js';
import { definitionOf } from '../definition/helpers.js';

/** Work orders whose status and closedAt only actions set; `actions` is the YAML of their actions. */
function workOrders(actions: string): Resource {
  const api = normalise(
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
          actions:
${actions}
    `),
  );
  const resource = api.resources[0];
  if (resource === undefined) throw new Error('no resource');
  return resource;
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
