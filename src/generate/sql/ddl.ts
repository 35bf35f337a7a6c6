import type { Api, Field, Resource } from '../../model.js';
import { isNotNull } from './columns.js';
import type { SqlDialect } from './dialect.js';

/** The statements that create the whole schema of an API from nothing, tables in dependency order. */
export function createSchema(api: Api, d: SqlDialect): string[] {
  return dependencyOrder(api.resources).flatMap((r) => [createTable(api, r, d), ...createIndexes(r, d)]);
}

export function createTable(api: Api, resource: Resource, d: SqlDialect): string {
  const columns = [
    `${d.ident('id')} ${d.idColumn(resource.id)}`,
    ...resource.fields.map((f) => columnDefinition(api, f, d)),
    `${d.ident('created_at')} TEXT NOT NULL`,
    `${d.ident('updated_at')} TEXT NOT NULL`,
    `${d.ident('version')} INTEGER NOT NULL DEFAULT 1`,
  ];
  return `CREATE TABLE ${d.ident(resource.table)} (\n  ${columns.join(',\n  ')}\n)`;
}

export function columnDefinition(api: Api, field: Field, d: SqlDialect): string {
  const target = field.ref === undefined ? undefined : api.resources.find((r) => r.name === field.ref?.to);
  const parts = [d.ident(field.column), d.columnType(field, target?.id)];
  if (isNotNull(field)) parts.push('NOT NULL');
  if (field.default !== undefined) parts.push(`DEFAULT ${d.literal(field.default, field)}`);
  if (field.ref !== undefined && target !== undefined) {
    parts.push(`REFERENCES ${d.ident(target.table)} (${d.ident('id')}) ON DELETE ${d.onDelete(field.ref.onDelete)}`);
  }
  return parts.join(' ');
}

/** Unique indexes for `unique`, plain ones for `index` and for every `ref` (joins, cascades, restrict checks). */
export function createIndexes(resource: Resource, d: SqlDialect): string[] {
  return resource.fields.flatMap((f) => {
    const on = `ON ${d.ident(resource.table)} (${d.ident(f.column)})`;
    if (f.unique) return [`CREATE UNIQUE INDEX ${d.ident(`${resource.table}_${f.column}_key`)} ${on}`];
    if (f.index || f.ref !== undefined) return [`CREATE INDEX ${d.ident(`${resource.table}_${f.column}_idx`)} ${on}`];
    return [];
  });
}

/** Resources with every referenced resource first; a cycle keeps the definition's order. */
export function dependencyOrder(resources: readonly Resource[]): Resource[] {
  const done = new Set<string>();
  const ordered: Resource[] = [];
  const visit = (r: Resource, path: Set<string>): void => {
    if (done.has(r.name) || path.has(r.name)) return;
    path.add(r.name);
    for (const f of r.fields) {
      const target = resources.find((t) => t.name === f.ref?.to);
      if (target !== undefined && target !== r) visit(target, path);
    }
    done.add(r.name);
    ordered.push(r);
  };
  for (const r of resources) visit(r, new Set());
  return ordered;
}
