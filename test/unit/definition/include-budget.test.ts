import { describe, expect, it } from 'vitest';
import { formatWarning } from '../../../src/errors.js';
import { unaffordablePaths } from '../../../src/contract/relations.js';
import { definitionWarned, readDefinitionWarned } from '../../../src/pipeline/read-definition.js';
import { dedent } from './helpers.js';

/**
 * `limits.include.maxRecords` (SPEC §10) at validation: the include paths that includeDepth and the page size allow
 * but no request can be served, even under one record, are a warning (not an error).
 */
const helpdesk = (limits: string): string =>
  dedent(`
    name: helpdesk
    version: "1"
    limits: ${limits}
    resources:
      customers:
        fields: { name: { type: string, required: true } }
      tickets:
        fields:
          title: { type: string, required: true }
          customerId: { type: ref, to: customers, required: true }
  `);

const warningsOf = (text: string): string[] => definitionWarned('api.yaml', text).warnings.map(formatWarning);

describe('unaffordablePaths', () => {
  it.each([
    { name: 'the defaults', limits: '{}', want: [] },
    // one customer: 100 tickets, their 100 customers, then 100 tickets under each
    {
      name: 'the issue: pages of 100, five deep',
      limits: '{ pageSize: { default: 100, max: 100 }, includeDepth: 5 }',
      // from a customer: tickets 100, .customer 100 more, .tickets 10,000 more, .customer 10,000, .tickets 1,000,000;
      // from a ticket: customer 1, .tickets 100, .customer 100, .tickets 10,000, .customer 10,000
      want: [
        { resource: 'customers', path: 'tickets.customer.tickets.customer.tickets', records: 1_020_200 },
        { resource: 'tickets', path: 'customer.tickets.customer.tickets.customer', records: 20_201 },
        { resource: 'customers', path: 'tickets.customer.tickets.customer', records: 20_200 },
        { resource: 'tickets', path: 'customer.tickets.customer.tickets', records: 10_201 },
        { resource: 'customers', path: 'tickets.customer.tickets', records: 10_200 },
      ],
    },
    {
      name: 'within a budget raised to match',
      limits: '{ pageSize: { default: 100, max: 100 }, includeDepth: 3, include: { maxRecords: 10200 } }',
      want: [],
    },
    {
      name: 'one over a budget lowered',
      limits: '{ pageSize: { default: 10, max: 100 }, includeDepth: 3, include: { maxRecords: 119 } }',
      want: [{ resource: 'customers', path: 'tickets.customer.tickets', records: 120 }],
    },
  ])('$name', ({ limits, want }) => {
    expect(unaffordablePaths(definitionWarned('api.yaml', helpdesk(limits)).api)).toEqual(want);
  });
});

describe('the warning', () => {
  it('names the costliest path, what it could embed, the budget and what to change, at includeDepth', () => {
    // line 3, column 63: the value of includeDepth
    const text = helpdesk('{ pageSize: { default: 100, max: 100 }, includeDepth: 5 }');
    expect(warningsOf(text)).toEqual([
      'api.yaml:3:63  limits.includeDepth  warning: with includeDepth 5 and embedded pages of 100 records ' +
        '(pageSize.default), include=tickets.customer.tickets.customer.tickets could embed up to 1,020,200 records ' +
        'under one record of customers, over limits.include.maxRecords (1,000): every request naming it is a 400, ' +
        'and so are 4 more paths. Lower includeDepth or pageSize.default, or raise limits.include.maxRecords',
    ]);
  });

  it('is none within the budget, and none for any example', async () => {
    expect(warningsOf(helpdesk('{ pageSize: { default: 100, max: 100 }, includeDepth: 1 }'))).toEqual([]);
    for (const example of ['blog', 'clinic', 'library', 'tasks']) {
      expect((await readDefinitionWarned(`examples/${example}.yaml`)).warnings, example).toEqual([]);
    }
  });
});
