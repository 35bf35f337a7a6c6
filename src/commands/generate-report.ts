import { lossLines } from '../migrate/plan-migration.js';
import type { GenerateResult } from './generate.js';

/** What `restsmith generate` prints of a run: each change, the migration, and the last line. */

/** The last line of a run that wrote: how many files, where, and how many of them were edited by hand. */
export function wroteLine(result: GenerateResult): string {
  const overwritten = result.changes.filter((c) => c.kind === 'conflict').length;
  const written = result.changes.filter((c) =>
    ['create', 'update', 'grow', 'rename', 'delete'].includes(c.kind),
  ).length;
  return (
    `wrote ${written + overwritten} files to ${result.outDir}` +
    (overwritten > 0 ? ` (${overwritten} edited by hand, overwritten)` : '')
  );
}

export function describeChanges(result: GenerateResult): string[] {
  // what did not change is counted, not listed: a regenerate's news (changes, stubs, the migration) stays in view
  const unchanged = result.changes.filter((c) => c.kind === 'unchanged').length;
  const lines = result.changes
    .filter((c) => c.kind !== 'unchanged')
    .map((c) => {
      // with --force, a file edited by hand is overwritten: said so, not hidden among updates
      const kind = c.kind === 'conflict' && result.forced === true ? 'overwrite' : c.kind;
      // a file moved: from where to where
      const path = c.from === undefined ? c.path : `${c.from} -> ${c.path}`;
      return `${kind.padEnd(9)} ${path}${c.note === undefined ? '' : `  (${c.note})`}`;
    });
  if (unchanged > 0) lines.push(`unchanged ${unchanged} generated file${unchanged === 1 ? '' : 's'}`);
  if (result.migration !== undefined) {
    const refused = result.migration.losses !== undefined;
    lines.push(
      `migration ${result.migration.name}${refused ? ' (refused: it would lose data; --allow-data-loss accepts it)' : ''}:`,
      ...result.migration.summary.map((s) => `  - ${s}`),
      ...(refused ? ['it would lose:', ...lossLines(result.migration.losses ?? [])] : []),
      ...result.migration.cautions.map((caution) => `  caution: ${caution}`),
      // the first migration has no build before it
      ...(result.migration.name.startsWith('0001-') ? [] : [additiveLine(result.migration.notAdditive)]),
    );
  }
  return lines;
}

/** Whether a build from before the migration still starts on the database it leaves (migrate/additive.ts). */
const additiveLine = (notAdditive: readonly string[]): string =>
  notAdditive.length === 0
    ? '  additive: a build from before it still starts on the database it migrates (a rollback is safe)'
    : `  not additive (${notAdditive.join('; ')}): a build from before it refuses to start on the database it migrates; ` +
      'to roll out without downtime, expand first (see the README, Migrations and rolling deploys)';
