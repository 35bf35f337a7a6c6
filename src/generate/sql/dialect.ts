import type { ColumnSnapshot } from '../../migrate/snapshot.js';
import type { IdKind, JsonValue, OnDelete } from '../../model.js';

/** What differs between SQL dialects; statements are built from it once per dialect at generation time. */
export interface SqlDialect {
  readonly name: 'sqlite';
  /** a quoted identifier */
  ident(name: string): string;
  /** the placeholder of the n-th parameter (1-based) */
  param(n: number): string;
  /** the column definition of a primary key of this kind */
  idColumn(kind: IdKind): string;
  /** the column type of a field (refs take the type of the target's id) */
  columnType(column: ColumnSnapshot): string;
  /** the type of createdAt and updatedAt */
  readonly timestampType: string;
  /** a literal for a DEFAULT clause or a rebuild, escaped */
  literal(value: JsonValue, column: ColumnSnapshot): string;
  onDelete(action: OnDelete): string;
  /** `a` equals `b`, NULL equal to NULL */
  nullSafeEquals(a: string, b: string): string;
  /** RFC 7396: the JSON Merge Patch `patch` (JSON text) applied to the JSON `target` */
  jsonMergePatch(target: string, patch: string): string;
}

const quote = (s: string): string => `'${s.replaceAll("'", "''")}'`;

export const sqlite: SqlDialect = {
  name: 'sqlite',
  ident: (name) => `"${name.replaceAll('"', '""')}"`,
  param: () => '?',
  idColumn: (kind) => (kind === 'integer' ? 'INTEGER PRIMARY KEY AUTOINCREMENT' : 'TEXT PRIMARY KEY NOT NULL'),
  timestampType: 'TEXT',
  columnType(column) {
    switch (column.type) {
      case 'integer':
      case 'boolean':
        return 'INTEGER';
      case 'number':
        return 'REAL';
      case 'ref':
        return column.ref?.idKind === 'integer' ? 'INTEGER' : 'TEXT';
      default:
        return 'TEXT';
    }
  },
  literal(value, column) {
    if (value === null) return 'NULL';
    if (column.type === 'boolean') return value === true ? '1' : '0';
    if (column.type === 'json') return quote(JSON.stringify(value));
    if (typeof value === 'number') return String(value);
    return quote(String(value));
  },
  onDelete: (action) => ({ restrict: 'RESTRICT', cascade: 'CASCADE', setNull: 'SET NULL' })[action],
  nullSafeEquals: (a, b) => `${a} IS ${b}`,
  jsonMergePatch: (target, patch) => `json_patch(${target}, ${patch})`,
};
