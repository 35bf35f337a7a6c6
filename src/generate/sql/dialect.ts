import type { Field, IdKind, JsonValue, OnDelete } from '../../model.js';

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
  columnType(field: Field, refIdKind: IdKind | undefined): string;
  /** a literal for a DEFAULT clause, escaped */
  literal(value: JsonValue, field: Field): string;
  onDelete(action: OnDelete): string;
  /** `a` equals `b`, NULL equal to NULL */
  nullSafeEquals(a: string, b: string): string;
}

const quote = (s: string): string => `'${s.replaceAll("'", "''")}'`;

export const sqlite: SqlDialect = {
  name: 'sqlite',
  ident: (name) => `"${name.replaceAll('"', '""')}"`,
  param: () => '?',
  idColumn: (kind) => (kind === 'integer' ? 'INTEGER PRIMARY KEY AUTOINCREMENT' : 'TEXT PRIMARY KEY NOT NULL'),
  columnType(field, refIdKind) {
    switch (field.type) {
      case 'integer':
      case 'boolean':
        return 'INTEGER';
      case 'number':
        return 'REAL';
      case 'ref':
        return refIdKind === 'integer' ? 'INTEGER' : 'TEXT';
      default:
        return 'TEXT';
    }
  },
  literal(value, field) {
    if (value === null) return 'NULL';
    if (field.type === 'boolean') return value === true ? '1' : '0';
    if (field.type === 'json') return quote(JSON.stringify(value));
    if (typeof value === 'number') return String(value);
    return quote(String(value));
  },
  onDelete: (action) => ({ restrict: 'RESTRICT', cascade: 'CASCADE', setNull: 'SET NULL' })[action],
  nullSafeEquals: (a, b) => `${a} IS ${b}`,
};
