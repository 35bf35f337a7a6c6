import { FIELD_TYPE } from '../field-types/index.js';
import type { ColumnSnapshot, Snapshot } from '../schema/snapshot.js';
import { checksValues } from './checked-values.js';
import type { Diff } from './diff.js';

/**
 * What a lossy column change does to stored rows: deletes those holding NULL, those whose ref has no target, or
 * those whose value does not convert into a required date, datetime or uuid with no default (checked-values.ts).
 */
export interface ColumnLoss {
  message: string;
  deletes?: 'null' | 'unreferenced' | 'unconverted';
  /** what would keep the data */
  keep: string;
}

/** Why a column change can lose data, or undefined when it keeps every value. */
export function columnLoss(table: string, from: ColumnSnapshot, to: ColumnSnapshot): ColumnLoss | undefined {
  const where = `${table}.${to.field}`;
  // a type whose stored values its new type holds as they are (the SQL type is the same or wider) keeps them
  if (from.type !== to.type && !FIELD_TYPE[from.type].widensTo.includes(to.type)) {
    if (checksValues(from, to) && to.notNull && to.default === undefined) {
      return {
        message: `${where} changes from ${from.type} to ${to.type}: records whose ${to.field} is not a ${to.type} would be deleted`,
        deletes: 'unconverted',
        keep: `keep ${where} a ${from.type}, give it a \`default\`, or add a new field for the ${to.type} values`,
      };
    }
    return {
      message: `${where} changes from ${from.type} to ${to.type}: stored values that do not convert would be lost`,
      keep: `keep ${where} a ${from.type}, or add a new field for the ${to.type} values`,
    };
  }
  if (from.type === 'enum' && to.type === 'enum') {
    const removed = (from.values ?? []).filter((v) => !(to.values ?? []).includes(v));
    if (removed.length > 0) {
      const replacement = to.default === undefined ? 'NULL' : JSON.stringify(to.default);
      return {
        message: `${where} loses the values ${removed.map((v) => JSON.stringify(v)).join(', ')}: records holding them would get ${replacement}`,
        keep: `keep those values in ${where}`,
      };
    }
  }
  if (!from.notNull && to.notNull && to.default === undefined) {
    return {
      message: `${where} becomes required with no default: records where it is null would be deleted`,
      deletes: 'null',
      keep: `give ${where} a \`default\``,
    };
  }
  if (from.ref !== undefined && to.ref !== undefined && from.ref.table !== to.ref.table) {
    return {
      message: `${where} now refers to ${to.ref.table} instead of ${from.ref.table}: records whose ${to.field} is not an id of ${to.ref.table} would be deleted`,
      deletes: 'unreferenced',
      keep: `keep ${where} referring to ${from.ref.table}`,
    };
  }
  return undefined;
}

/** One way a migration would lose data, and what would keep it (only advice that applies to this change). */
export interface Loss {
  message: string;
  keep: string;
}

/** Everything a migration would lose, one sentence each; empty when it keeps every row and value. */
export function lossesOf(diff: Diff, before: Snapshot): Loss[] {
  // a resource removed while another is created may be a rename that does not say so
  const created = diff.created.map((t) => t.resource);
  const losses: Loss[] = diff.dropped.map((t) => ({
    message: `the table of ${t.resource} is dropped: every ${t.resource} record would be deleted${cascades(before, t.name)}`,
    keep:
      created.length > 0
        ? `if ${created.join(' or ')} is ${t.resource} renamed, say \`renamedFrom: ${t.resource}\` on it; else keep ${t.resource}`
        : `keep the resource ${t.resource} in the definition`,
  }));
  for (const change of diff.changed) {
    const { before: old, after } = change;
    if (old.id !== after.id) {
      losses.push({
        message: `the ids of ${after.resource} change from ${old.id} to ${after.id}: every ${after.resource} record would be deleted${cascades(before, after.name)}`,
        keep: `keep \`id: ${old.id}\` on ${after.resource}`,
      });
      continue;
    }
    // a field removed while another is added to the same table may be a rename that does not say so
    const added = change.steps.filter((s) => s.kind === 'addColumn').map((s) => s.column.field);
    for (const step of change.steps) {
      if (step.kind === 'dropColumn') {
        const field = step.column.field;
        losses.push({
          message: `${after.resource}.${field} is removed: its values would be deleted`,
          keep:
            added.length > 0
              ? `if ${added.join(' or ')} is ${field} renamed, say \`renamedFrom: ${field}\` on it; else keep ${field}`
              : `keep ${after.resource}.${field}`,
        });
      } else if (step.kind === 'addColumn' && step.column.notNull && step.column.default === undefined) {
        losses.push({
          message: `${after.resource}.${step.column.field} is added as required with no default: existing ${after.resource} records would be deleted${cascades(before, after.name)}`,
          keep: `give ${after.resource}.${step.column.field} a \`default\``,
        });
      } else if (step.kind === 'alterColumn') {
        const loss = columnLoss(after.resource, step.from, step.to);
        if (loss === undefined) continue;
        const deletes = loss.deletes === undefined ? '' : cascades(before, after.name);
        losses.push({ message: loss.message + deletes, keep: loss.keep });
      }
    }
  }
  return losses;
}

/**
 * The records of other tables that refer to rows of `table` a migration deletes, in words. A migration never
 * deletes rows that others refer to (whatever their onDelete): it fails instead, on both databases, changing nothing.
 */
function cascades(snapshot: Snapshot, table: string): string {
  const referring = snapshot.tables.flatMap((t) =>
    t.name === table ? [] : t.columns.filter((c) => c.ref?.table === table).map((c) => `${t.resource}.${c.field}`),
  );
  if (referring.length === 0) return '';
  return `; and while a record refers to one of them (${referring.join(', ')}), the migration fails and changes nothing`;
}
