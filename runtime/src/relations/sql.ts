import type { Dialect } from '../db/database.js';
import type { RelationTarget } from './embed.js';

/** The pieces of SQL that embedding and links write, per dialect (identifiers are the generator's, never a client's). */
export const q = (identifier: string): string => `"${identifier}"`;

/** A target is only ever scoped to an owner when it has an owner column (see readScope). */
export function ownerColumn(target: RelationTarget): string {
  if (target.owner === undefined) throw new Error(`${target.table} has no owner column`);
  return q(target.owner.column);
}

export function param(dialect: Dialect, n: number, kind: 'text' | 'integer' = 'text'): string {
  if (dialect === 'sqlite') return '?';
  return `$${n}::${kind === 'integer' ? 'bigint' : 'text'}`;
}

/** The values of a JSON array parameter, as a subquery `IN` takes. */
export function inList(dialect: Dialect, kind: 'text' | 'integer', n: number): string {
  if (dialect === 'sqlite') return 'SELECT value FROM json_each(?)';
  return `SELECT value::${kind === 'integer' ? 'bigint' : 'text'} FROM jsonb_array_elements_text($${n}::jsonb) AS value`;
}
