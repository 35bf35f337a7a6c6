import { foreignKeyName, indexesOf, type IndexSnapshot } from './ddl.js';
import type { Snapshot, TableSnapshot } from './snapshot.js';

/** PostgreSQL keeps the first 63 bytes of a name (NAMEDATALEN - 1): two longer names that share them are one. */
export const POSTGRES_NAME_BYTES = 63;

/** An index of a table, by the resource and the fields it is made for. */
export interface IndexSite {
  /**
   * tables and indexes share one namespace per schema, in both databases; a foreign key's name (PostgreSQL's, of a ref
   * column) is one per table
   */
  kind: 'table' | 'index' | 'foreign key';
  resource: string;
  /** the fields (API names) of its columns */
  fields: string[];
  /** the unique key (`unique:` of the resource) it is made for, by its place; absent for a field's own index */
  key?: number;
  name: string;
}

/** Two indexes whose names are one name in a database: the migration that makes the second would fail. */
export interface IndexClash {
  first: IndexSite;
  second: IndexSite;
  /** the shared name, as PostgreSQL keeps it */
  name: string;
  /** whether the names differ, but not in the bytes PostgreSQL keeps */
  postgresOnly: boolean;
}

/**
 * Index names share one namespace with table names in both databases, and are made of the table's and the columns'
 * names (ddl.ts, indexesOf): `rooms.slot_code` and `rooms_slot.code` both give `rooms_slot_code_key`, as does the
 * table of `rooms-slot-code-key`; two names longer than 63 bytes may share the part PostgreSQL keeps — as may the names
 * of two foreign keys of one table there. Each clash is reported once, at the later one. (The server's own tables and
 * indexes begin with `restsmith_`, a prefix no resource may take.)
 */
export function indexClashes(snapshot: Snapshot): IndexClash[] {
  const seen = new Map<string, IndexSite>();
  const clashes: IndexClash[] = [];
  for (const table of snapshot.tables) {
    const own: IndexSite = { kind: 'table', resource: table.resource, fields: [], name: table.name };
    // PostgreSQL names a table's primary key index <table>_pkey, and an integer id's sequence <table>_id_seq
    const made = [`${table.name}_pkey`, ...(table.id === 'integer' ? [`${table.name}_id_seq`] : [])].map(
      (name): IndexSite => ({ kind: 'index', resource: table.resource, fields: ['id'], name }),
    );
    for (const site of [own, ...made, ...indexesOf(table).map((index) => siteOf(table, index))]) {
      const kept = postgresName(site.name);
      const first = seen.get(kept);
      if (first === undefined) seen.set(kept, site);
      else clashes.push({ first, second: site, name: kept, postgresOnly: first.name !== site.name });
    }
    const keys = new Map<string, IndexSite>();
    for (const column of table.columns) {
      if (column.ref === undefined) continue;
      const name = foreignKeyName(table.name, column.name);
      const site: IndexSite = { kind: 'foreign key', resource: table.resource, fields: [column.field], name };
      const kept = postgresName(name);
      const first = keys.get(kept);
      if (first === undefined) keys.set(kept, site);
      else clashes.push({ first, second: site, name: kept, postgresOnly: true });
    }
  }
  return clashes;
}

/** The bytes of a name PostgreSQL keeps. */
export function postgresName(name: string): string {
  // names are ASCII (definition/schema.ts): a byte is a character, and no character is cut in two
  return name.length <= POSTGRES_NAME_BYTES ? name : name.slice(0, POSTGRES_NAME_BYTES);
}

function siteOf(table: TableSnapshot, index: IndexSnapshot): IndexSite {
  const fields = index.columns
    .filter((column) => column !== 'id')
    .map((column) => table.columns.find((c) => c.name === column)?.field ?? column);
  const key = (table.keys ?? []).findIndex((k) => k.join('\0') === index.columns.join('\0'));
  return {
    kind: 'index',
    resource: table.resource,
    fields,
    ...(index.unique && key >= 0 && { key }),
    name: index.name,
  };
}
