import type { Api } from '../model.js';
import type { ColumnSnapshot } from '../schema/snapshot.js';
import type { Diff } from './diff.js';

/**
 * What a migration may fail on, depending on the rows there are: a uniqueness it adds that the rows may already
 * break. Nothing is lost when it does: the migration runs in one transaction at the server's start, fails, and leaves
 * the database as it was (see the generated db/migrate.ts). And what it changes for clients of the API (`api`, the
 * model migrated to): a required field added, or a field made required, which a request that leaves it out now lacks.
 * These are said at generate time, one sentence each with what to do, so that neither is first met on a server in use.
 */
export function cautionsOf(diff: Diff, api?: Api): string[] {
  const cautions: string[] = [];
  for (const { before, after, steps } of diff.changed) {
    // a table whose ids change is made anew, without its records (a loss, see data-loss.ts)
    if (before.id !== after.id) continue;
    const { resource } = after;
    const model = api?.resources.find((r) => r.table === after.name);
    for (const step of steps) {
      // a required field a client must now send: added, or made required (a column made NOT NULL with a default)
      const field = model?.fields.find((f) =>
        step.kind === 'addColumn'
          ? f.name === step.column.field
          : step.kind === 'alterColumn' && step.to.notNull && !step.from.notNull && f.name === step.to.field,
      );
      // a client leaves out a read-only field, and may leave out an owner field (it takes the caller); a required field
      // with no default is a loss (data-loss.ts)
      if (
        field?.required === true &&
        field.default !== undefined &&
        !field.readOnly &&
        !model?.owners.includes(field.name)
      ) {
        cautions.push(
          step.kind === 'addColumn'
            ? `${resource}.${field.name} is added required: a client that leaves it out of a POST or a PUT now gets a 400 (the records there took its default); ` +
                `to keep such clients working, make it optional with a default instead`
            : `${resource}.${field.name} becomes required: the records where it is null take its default ${JSON.stringify(field.default)} (and new ETags), and a client that leaves it out of a POST or a PUT now gets a 400; ` +
                `to keep such clients working, make it optional with a default instead`,
        );
      }
      if (step.kind === 'addColumn' && step.column.unique && step.column.default != null) {
        const { field } = step.column;
        cautions.push(
          `${resource}.${field} is added unique with the default ${JSON.stringify(step.column.default)}, which every ${resource} record that exists would take: the migration fails, changing nothing, where there are two or more; ` +
            `to add it there, add it optional with no default, give each record its own value, then add the default`,
        );
      } else if (step.kind === 'alterColumn' && becomesUnique(step.from, step.to)) {
        cautions.push(
          `${resource}.${step.to.field} becomes unique${step.to.caseInsensitive === true ? ' (ignoring the case of letters)' : ''}: the migration fails, changing nothing, where two ${resource} records share a value of it; ` +
            `make their values differ first`,
        );
      }
    }
    // the keys it had, under the names of the columns renamed
    const renamed = new Map(steps.flatMap((s) => (s.kind === 'renameColumn' ? [[s.from, s.to] as const] : [])));
    // a key is a set of columns: in another order it holds the same values unique
    const text = (key: readonly string[]): string => [...key].sort().join(',');
    const kept = new Set((before.keys ?? []).map((key) => text(key.map((name) => renamed.get(name) ?? name))));
    for (const key of after.keys ?? []) {
      if (kept.has(text(key))) continue;
      const fields = key.map((name) => after.columns.find((c) => c.name === name)?.field ?? name);
      cautions.push(
        `${resource} gets the unique key (${fields.join(', ')}): the migration fails, changing nothing, where two ${resource} records share those values; ` +
          `make them differ first`,
      );
    }
  }
  return cautions;
}

/** Whether a column that stays a column gets a uniqueness it did not have (case-insensitive is stricter). */
const becomesUnique = (from: ColumnSnapshot, to: ColumnSnapshot): boolean =>
  to.unique && (!from.unique || (to.caseInsensitive === true && from.caseInsensitive !== true));
