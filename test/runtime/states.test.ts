import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../../runtime/src/http/problem.js';
import { inStates, whyRefused, type States } from '../../runtime/src/http/states.js';

/** Why a write its own statement refused was refused: given the record and the rule's states, want the answer. */
describe('whyRefused', () => {
  const booked: States = [{ field: 'status', values: ['booked'] }];
  const what = 'an appointment can be updated';
  const gaveAway = () => new HttpProblem(403, 'Forbidden', 'given away');

  it.each<[string, object | undefined, States, (() => Error) | undefined, number, string]>([
    [
      'out of its states: 409 naming the rule and the state',
      { status: 'cancelled' },
      booked,
      gaveAway,
      409,
      'an appointment can be updated only while status is "booked"; its status is "cancelled"',
    ],
    [
      'several fields and values, a missing value read as null',
      { status: 'done' },
      [
        { field: 'status', values: ['booked', 'waiting'] },
        { field: 'paid', values: [false] },
      ],
      undefined,
      409,
      'an appointment can be updated only while status is one of "booked", "waiting" and paid is false; its status is "done", paid is null',
    ],
    ['in its states: the other reason', { status: 'booked' }, booked, gaveAway, 403, 'given away'],
    [
      'in its states, no other reason: it changed in between',
      { status: 'booked' },
      booked,
      undefined,
      409,
      'the record changed while it was being written: read it, try again',
    ],
    [
      'gone in between',
      undefined,
      booked,
      gaveAway,
      409,
      'the record changed while it was being written: read it, try again',
    ],
  ])('%s', (_, record, when, otherwise, status, detail) => {
    const problem = whyRefused(record, { when, what, ...(otherwise !== undefined && { otherwise }) });
    expect(problem).toBeInstanceOf(HttpProblem);
    expect([(problem as HttpProblem).status, (problem as HttpProblem).detail]).toEqual([status, detail]);
  });

  it("leaves the record's state out for a caller who may write it but not read it (found by a reviewer)", () => {
    const problem = whyRefused({ status: 'done' }, { when: booked, what }, false) as HttpProblem;
    expect([problem.status, problem.detail]).toEqual([
      409,
      'an appointment can be updated only while status is "booked"',
    ]);
  });
});

/** Whether a record is in a `when`'s states (a handler's action checks it before the handler runs). */
describe('inStates', () => {
  const when: States = [
    { field: 'status', values: ['todo', 'doing'] },
    { field: 'closedAt', values: [null] },
  ];
  it.each<[string, object, boolean]>([
    ['each field one of its values', { status: 'doing', closedAt: null }, true],
    ['an absent field as null', { status: 'todo' }, true],
    ['one field outside', { status: 'done', closedAt: null }, false],
    ['the other outside', { status: 'todo', closedAt: '2026-11-28T10:00:00.000Z' }, false],
  ])('%s: %j', (_, record, want) => {
    expect(inStates(record, when)).toBe(want);
  });
});
