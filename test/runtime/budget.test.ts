import { describe, expect, it } from 'vitest';
import { HttpProblem, problemType } from '../../runtime/src/http/problem.js';
import { mostEmbedded, overBudget } from '../../runtime/src/relations/budget.js';
import type { RelationLink, RelationMap } from '../../runtime/src/relations/embed.js';

/**
 * The budget for embedding (SPEC §10): the most records an include could embed, from the relations alone — a to-one
 * hop times 1, a to-many (or many-to-many) hop times the embedded page size, the top level times the limit.
 */
const one = (target: string, field: string): RelationLink => ({ kind: 'one', target, field, column: field });
const many = (target: string, column: string): RelationLink => ({ kind: 'many', target, field: 'id', column });
const relations: RelationMap = {
  tickets: {
    customer: one('customers', 'customerId'),
    tags: { ...many('tags', 'tag_id'), through: { resource: 'ticket-tags', near: 'ticket_id', far: 'tag_id' } },
  },
  customers: { tickets: many('tickets', 'customer_id') },
  tags: {},
};

describe('mostEmbedded', () => {
  it.each([
    { name: 'no path', resource: 'tickets', paths: [], top: 100, pageSize: 100, want: 0 },
    { name: 'to-one: one a record', resource: 'tickets', paths: ['customer'], top: 100, pageSize: 100, want: 100 },
    { name: 'to-one on a read', resource: 'tickets', paths: ['customer'], top: 1, pageSize: 100, want: 1 },
    { name: 'many-to-many: a page a record', resource: 'tickets', paths: ['tags'], top: 3, pageSize: 20, want: 60 },
    // the example: 100 customers, then a page of 100 tickets under each
    {
      name: 'to-one then to-many',
      resource: 'tickets',
      paths: ['customer.tickets'],
      top: 100,
      pageSize: 100,
      want: 10_100,
    },
    {
      name: 'the issue: four hops at 100',
      resource: 'tickets',
      paths: ['customer.tickets.customer.tickets'],
      top: 100,
      pageSize: 100,
      want: 100 + 10_000 + 10_000 + 1_000_000,
    },
    {
      name: 'a shared prefix counted once',
      resource: 'tickets',
      paths: ['customer', 'customer.tickets', 'tags'],
      top: 10,
      pageSize: 5,
      want: 10 + 50 + 50,
    },
    {
      name: 'paths in any order, a prefix given alone or not',
      resource: 'tickets',
      paths: ['tags', 'customer.tickets'],
      top: 10,
      pageSize: 5,
      want: 50 + 10 + 50,
    },
    {
      name: 'from customers, a read',
      resource: 'customers',
      paths: ['tickets.customer', 'tickets.tags'],
      top: 1,
      pageSize: 20,
      want: 20 + 20 + 400,
    },
  ])('$name', ({ resource, paths, top, pageSize, want }) => {
    expect(mostEmbedded(relations, resource, paths, top, pageSize)).toBe(want);
  });

  it('throws on a relation the map does not have (the route schema lets none through)', () => {
    expect(() => mostEmbedded(relations, 'tags', ['tickets'], 1, 20)).toThrow('no relation tags.tickets');
  });
});

describe('overBudget', () => {
  it('is a 400 naming what the include could embed and the budget', () => {
    const problem = overBudget(10_100, 1000);
    expect(problem).toBeInstanceOf(HttpProblem);
    expect(problem.toDocument()).toEqual({
      type: problemType('validation'),
      title: 'Bad Request',
      status: 400,
      detail:
        'include would embed up to 10,100 records; limits.include.maxRecords is 1,000: ask for a smaller limit, or ' +
        'fewer or shallower include paths',
      errors: [
        {
          path: '/include',
          message:
            'would embed up to 10,100 records; limits.include.maxRecords is 1,000: ask for a smaller limit, or ' +
            'fewer or shallower include paths',
        },
      ],
    });
  });
});
