import type { ColumnSnapshot } from './snapshot.js';
import type { Diff } from './diff.js';

/** Type changes that keep every stored value as it is (the SQL type is the same or wider). */
const WIDENINGS: Record<string, readonly string[]> = {
  integer: ['number'],
  string: ['text'],
  text: ['string'],
  enum: ['string', 'text'],
  uuid: ['string', 'text'],
  date: ['string', 'text'],
  datetime: ['string', 'text'],
};

/** What a lossy column change does to stored rows: deletes those holding NULL, or those whose ref has no target. */
export interface ColumnLoss {
  message: string;
  deletes?: 'null' | 'unreferenced';
}

/** Why a column change can lose data, or undefined when it keeps every value. */
export function columnLoss(table: string, from: ColumnSnapshot, to: ColumnSnapshot): ColumnLoss | undefined {
  const where = `${table}.${to.field}`;
  if (from.type !== to.type && !(WIDENINGS[from.type] ?? []).includes(to.type)) {
    return {
      message: `${where} changes from ${from.type} to ${to.type}: stored values that do not convert would be lost`,
    };
  }
  if (from.type === 'enum' && to.type === 'enum') {
    const removed = (from.values ?? []).filter((v) => !(to.values ?? []).includes(v));
    if (removed.length > 0) {
      const replacement = to.default === undefined ? 'NULL' : JSON.stringify(to.default);
      return {
        message: `${where} loses the values ${removed.map((v) => JSON.stringify(v)).join(', ')}: records holding them would get ${replacement}`,
      };
    }
  }
  if (!from.notNull && to.notNull && to.default === undefined) {
    return {
      message: `${where} becomes required with no default: records where it is null would be deleted`,
      deletes: 'null',
    };
  }
  if (from.ref !== undefined && to.ref !== undefined && from.ref.table !== to.ref.table) {
    return {
      message: `${where} now refers to ${to.ref.table} instead of ${from.ref.table}: records whose ${to.field} is not an id of ${to.ref.table} would be deleted`,
      deletes: 'unreferenced',
    };
  }
  return undefined;
}

/** Everything a migration would lose, one sentence each; empty when it keeps every row and value. */
export function lossesOf(diff: Diff): string[] {
  const losses = diff.dropped.map(
    (t) => `the table of ${t.resource} is dropped: every ${t.resource} record would be deleted`,
  );
  for (const change of diff.changed) {
    const { before, after } = change;
    if (before.id !== after.id) {
      losses.push(
        `the ids of ${after.resource} change from ${before.id} to ${after.id}: every ${after.resource} record would be deleted`,
      );
      continue;
    }
    for (const step of change.steps) {
      if (step.kind === 'dropColumn') {
        losses.push(`${after.resource}.${step.column.field} is removed: its values would be deleted`);
      } else if (step.kind === 'addColumn' && step.column.notNull && step.column.default === undefined) {
        losses.push(
          `${after.resource}.${step.column.field} is added as required with no default: existing ${after.resource} records would be deleted`,
        );
      } else if (step.kind === 'alterColumn') {
        const loss = columnLoss(after.resource, step.from, step.to);
        if (loss !== undefined) losses.push(loss.message);
      }
    }
  }
  return losses;
}
