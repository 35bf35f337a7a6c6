import { describe, expect, it } from 'vitest';
import { fixtures } from '../../../src/generate/fixtures.js';
import { matrixView } from '../../../src/generate/matrix-view.js';
import { normalise } from '../../../src/pipeline/normalise.js';
import { definitionOf } from '../definition/helpers.js';

/** Work orders whose status only actions set: an update is allowed while open or in progress. */
const viewOf = (actions: string) => {
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
          access:
            update: { access: admin, when: { status: [open, in-progress] } }
          actions:
${actions}
    `),
  );
  return matrixView(api, fixtures(api));
};
const statesOf = (actions: string) => viewOf(actions).actions.flatMap((view) => view.states);

describe('how the generated tests take a record out of the states its update needs', () => {
  it.each([
    [
      'an action a new record may take, before one whose own state it is not in yet',
      `            finish: { on: item, access: admin, when: { status: [in-progress] }, set: { status: done } }
            cancel: { on: item, access: admin, when: { status: [open] }, set: { status: cancelled } }`,
      'cancel',
    ],
    [
      'an action without a state of its own',
      `            finish: { on: item, access: admin, when: { status: [in-progress] }, set: { status: done } }
            close: { on: item, access: admin, set: { status: done } }`,
      'close',
    ],
    [
      'the first that leaves, when no action may be taken by a new record',
      `            finish: { on: item, access: admin, when: { status: [in-progress] }, set: { status: done } }`,
      'finish',
    ],
  ])('%s', (_, actions, want) => {
    expect(statesOf(actions)).toEqual([
      { operation: 'update', when: { status: ['open', 'in-progress'] }, out: { action: want } },
    ]);
  });
});

describe('how the listing test gives a value to a field only actions set', () => {
  it('names the actions that take a new record there, one after the other; none for a field records are made with', () => {
    const view = viewOf(
      [
        '            start: { on: item, access: admin, when: { status: [open] }, set: { status: in-progress } }',
        '            finish: { on: item, access: admin, when: { status: [in-progress] }, set: { status: done, closedAt: now } }',
      ].join('\n'),
    );
    const fields = view.listings.flatMap((listing) => listing.fields);
    expect(fields.find((f) => f.name === 'closedAt')?.setBy).toEqual(['start', 'finish']);
    expect(fields.find((f) => f.name === 'status')?.setBy).toEqual(['start']);
    expect(fields.find((f) => f.name === 'title')).not.toHaveProperty('setBy');
  });
});
