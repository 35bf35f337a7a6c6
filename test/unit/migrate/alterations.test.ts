import { describe, expect, it } from 'vitest';
import { alterations } from '../../../src/migrate/plan-migration.js';
import type { ColumnSnapshot } from '../../../src/schema/snapshot.js';

/** A column's change in the words a migration's step prints under `change <resource>.<field>`. */
const column = (over: Partial<ColumnSnapshot> = {}): ColumnSnapshot => ({
  name: 'code',
  field: 'code',
  type: 'string',
  notNull: false,
  unique: false,
  index: false,
  ...over,
});

const rows: { name: string; from: ColumnSnapshot; to: ColumnSnapshot; want: string[] }[] = [
  { name: 'nothing', from: column(), to: column(), want: [] },
  { name: 'made unique', from: column(), to: column({ unique: true }), want: ['made unique'] },
  { name: 'no longer unique', from: column({ unique: true }), to: column(), want: ['no longer unique'] },
  {
    name: 'a type and null',
    from: column(),
    to: column({ type: 'integer', notNull: true, default: 0 }),
    want: ['type string → integer', 'null no longer allowed', 'default none → 0'],
  },
  {
    name: 'a unique email made case-insensitive',
    from: column({ unique: true }),
    to: column({ unique: true, caseInsensitive: true }),
    want: ['unique whatever the case'],
  },
  {
    name: 'enum values',
    from: column({ type: 'enum', values: ['a', 'b'] }),
    to: column({ type: 'enum', values: ['a', 'b', 'c'] }),
    want: ['values a, b → a, b, c'],
  },
  {
    name: 'a ref and its onDelete',
    from: column({ type: 'ref', index: true, ref: { table: 'bins', idKind: 'uuid', onDelete: 'restrict' } }),
    to: column({ type: 'ref', index: true, ref: { table: 'bins', idKind: 'uuid', onDelete: 'cascade' } }),
    want: ['onDelete restrict → cascade'],
  },
  { name: 'indexed', from: column(), to: column({ index: true }), want: ['indexed'] },
];

describe('alterations', () => {
  it.each(rows)('$name', ({ from, to, want }) => expect(alterations(from, to)).toEqual(want));
});

describe('the migration in words', () => {
  it('names a renamed field by its fields, not by its columns', async () => {
    const { describe: inWords } = await import('../../../src/migrate/plan-migration.js');
    const { diff } = await import('../../../src/migrate/diff.js');
    const { column } = await import('./snapshots.js');
    const table = (field: string, name: string) => ({
      name: 'pets',
      resource: 'pets',
      id: 'uuid' as const,
      columns: [column(name, { field })],
    });
    const changes = diff(
      { tables: [table('microchip', 'microchip')] },
      { tables: [table('chipNumber', 'chip_number')] },
      new Map([['pets', new Map([['microchip', 'chip_number']])]]),
    );
    expect(inWords(changes)).toEqual(['rename pets.microchip to chipNumber (data kept)']);
  });
});
