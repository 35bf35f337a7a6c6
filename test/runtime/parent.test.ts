import { describe, expect, it } from 'vitest';
import { HttpProblem } from '../../runtime/src/http/problem.js';
import { underParent } from '../../runtime/src/relations/parent.js';

/** The body of a nested create takes its ref field from the path; a body naming another record is refused. */
describe('underParent', () => {
  it.each([
    { name: 'left out: set from the path', body: { title: 'Dune' }, parent: 7, want: { title: 'Dune', authorId: 7 } },
    {
      name: 'the same id: kept',
      body: { title: 'Dune', authorId: 7 },
      parent: 7,
      want: { title: 'Dune', authorId: 7 },
    },
    {
      name: 'a uuid id',
      body: { title: 'Dune' },
      parent: '0b6c1a9e-8f0e-4c55-9d4e-0a5b1c2d3e4f',
      want: { title: 'Dune', authorId: '0b6c1a9e-8f0e-4c55-9d4e-0a5b1c2d3e4f' },
    },
  ])('$name', ({ body, parent, want }) => {
    expect(underParent(body, 'authorId', parent)).toEqual(want);
  });

  it.each([
    { name: 'another id', given: 8 },
    { name: 'null', given: null },
    { name: 'the same id as text', given: '7' },
  ])('another record ($name): 400 naming the field', ({ given }) => {
    let thrown: unknown;
    try {
      underParent({ title: 'Dune', authorId: given }, 'authorId', 7);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HttpProblem);
    expect((thrown as HttpProblem).status).toBe(400);
    expect((thrown as HttpProblem).errors).toEqual([{ path: '/authorId', message: 'must be 7, the id in the path' }]);
  });

  it('does not change the body it was given', () => {
    const body = { title: 'Dune' };
    underParent(body, 'authorId', 7);
    expect(body).toEqual({ title: 'Dune' });
  });
});
