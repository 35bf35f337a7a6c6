import type { ColumnSnapshot, Snapshot } from '../../../src/schema/snapshot.js';

/** Builders of data-model snapshots for the migration tables: a column, and a notes table beside users. */
export const column = (name: string, extra: Partial<ColumnSnapshot> = {}): ColumnSnapshot => ({
  name,
  field: name,
  type: 'string',
  notNull: false,
  unique: false,
  index: false,
  ...extra,
});

export const notes = (...columns: ColumnSnapshot[]): Snapshot => ({
  tables: [
    { name: 'users', resource: 'users', id: 'uuid', columns: [] },
    { name: 'notes', resource: 'notes', id: 'uuid', columns },
  ],
});
