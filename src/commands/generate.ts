import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import type { Loss } from '../migrate/data-loss.js';
import { lossLines, planMigration } from '../migrate/plan-migration.js';
import { compare, type Change } from '../pipeline/compare.js';
import { formatAll } from '../pipeline/format.js';
import {
  formattedBefore,
  inputHash,
  MANIFEST,
  nextManifest,
  readManifest,
  unchangedFiles,
  upToDate,
} from '../pipeline/manifest.js';
import { projectReader } from '../pipeline/paths.js';
import { handlersPath, plan } from '../pipeline/plan.js';
import { readDefinition } from '../pipeline/read-definition.js';
import { render } from '../pipeline/render.js';
import { scanUserFiles } from '../pipeline/scan-user-files.js';
import { apply } from '../pipeline/write.js';

export interface GenerateOptions {
  out?: string;
  dryRun?: boolean;
  check?: boolean;
  force?: boolean;
  allowDataLoss?: boolean;
}

export interface GenerateResult {
  outDir: string;
  changes: Change[];
  migration: { name: string; summary: string[]; losses?: Loss[] } | undefined;
  /** true when files were written */
  written: boolean;
  /** --force: conflicts are overwritten */
  forced?: boolean;
}

/** Generate-time conflicts: generator-owned files edited by hand. Nothing is written. */
export class ConflictError extends UserError {
  constructor(readonly paths: string[]) {
    super(
      [
        'these generator-owned files were edited by hand, so nothing was written:',
        ...paths.map((p) => `  ${p}`),
        'Move your changes into a file restsmith does not own (src/hooks.ts, src/handlers/, a new file), or run',
        'generate with --force to overwrite them.',
      ].join('\n'),
    );
    this.name = 'ConflictError';
  }
}

/**
 * load → validate → normalise (readDefinition); then, unless nothing changed since the last run, plan the migration
 * and scan the user's files (both decide what plan writes) → plan → render → format → compare → write.
 */
export async function generate(file: string, options: GenerateOptions): Promise<GenerateResult> {
  const api = await readDefinition(file);
  const source = shownFileName(basename(file));
  const outDir = resolve(options.out ?? api.name);
  checkTarget(outDir);
  const manifest = readManifest(outDir);
  const input = inputHash(file, source);
  if (manifest !== undefined && upToDate(outDir, manifest, input)) {
    return { outDir, changes: unchangedFiles(manifest), migration: undefined, written: false };
  }
  // a dry run shows the whole plan, a migration that would be refused included (and then exits 1)
  const allowLoss = (options.allowDataLoss ?? false) || (options.dryRun ?? false);
  const migration = planMigration(api, manifest?.model, manifest?.migrations ?? [], allowLoss);
  const refused = options.allowDataLoss === true ? [] : (migration?.losses ?? []);
  const migrations = [...(manifest?.migrations ?? []), ...(migration === undefined ? [] : [migration.name])];
  const users = await scanUserFiles(outDir, api);
  // handlers files left without actions stay out of compilation, and so does one its user then deleted (so that
  // deleting it changes nothing): the list is kept in the manifest until the file is a handlers file again
  const handlerFiles = new Set(
    api.resources.filter((r) => r.actions.some((a) => a.set.length === 0)).map((r) => handlersPath(r.names.kebab)),
  );
  const orphanFiles = [...new Set([...users.orphans.keys(), ...(manifest?.orphanFiles ?? [])])]
    .filter((path) => !handlerFiles.has(path))
    .sort();

  const planned = plan(api, {
    source,
    migrations,
    newMigration: migration,
    orphanFiles,
    orphanHandlers: users.orphanHandlers,
  });
  const rendered = planned.map((p) => render(p, source));
  const read = projectReader(outDir);
  const files = await formatAll(rendered, formattedBefore(read, manifest));
  const changes = compare({
    read,
    files,
    manifest,
    grown: users.grown,
    orphans: users.orphans,
    notes: users.notes,
    manual: users.manual,
  });

  const conflicts = changes.filter((c) => c.kind === 'conflict').map((c) => c.path);
  const pending = changes.some((c) => !['unchanged', 'keep', 'orphan'].includes(c.kind));
  const result = {
    outDir,
    changes,
    migration: migration && {
      name: migration.name,
      summary: migration.summary,
      ...(refused.length > 0 && { losses: refused }),
    },
    forced: options.force === true,
  };
  if (options.dryRun || options.check) return { ...result, written: false };
  if (conflicts.length > 0 && !options.force) throw new ConflictError(conflicts);
  const next = nextManifest({
    outDir,
    api,
    input,
    files,
    rendered,
    changes,
    migrations,
    orphanFiles,
    orphans: users.orphans,
  });
  apply(outDir, changes, next, options.force ?? false);
  return { ...result, written: pending || manifest === undefined };
}

/** A target is a new or empty folder, or a project restsmith generated (it has a manifest). */
function checkTarget(outDir: string): void {
  if (!existsSync(outDir)) return;
  if (!statSync(outDir).isDirectory()) throw new UserError(`${outDir} is a file: choose a folder for the project`);
  // .restsmith/ is made before the first file is written: a first run killed midway may be run again
  const own = existsSync(join(outDir, dirname(MANIFEST)));
  if (!own && readdirSync(outDir).length > 0) {
    throw new UserError(
      `${outDir} is not empty and restsmith did not generate it (no ${MANIFEST}): choose a new or empty folder`,
    );
  }
}

export function describeChanges(result: GenerateResult): string[] {
  const lines = result.changes
    .filter((c) => c.kind !== 'unchanged' || result.changes.length < 200)
    .map((c) => {
      // with --force, a file edited by hand is overwritten: said so, not hidden among updates
      const kind = c.kind === 'conflict' && result.forced === true ? 'overwrite' : c.kind;
      return `${kind.padEnd(9)} ${c.path}${c.note === undefined ? '' : `  (${c.note})`}`;
    });
  if (result.migration !== undefined) {
    const refused = result.migration.losses !== undefined;
    lines.push(
      `migration ${result.migration.name}${refused ? ' (refused: it would lose data; --allow-data-loss accepts it)' : ''}:`,
      ...result.migration.summary.map((s) => `  - ${s}`),
      ...(refused ? ['it would lose:', ...lossLines(result.migration.losses ?? [])] : []),
    );
  }
  return lines;
}

/**
 * The definition's file name as generated files show it (headers, README): control characters (a newline could end
 * a comment), quotes and backslashes escaped as in JSON, and no `--` (which could end an HTML comment).
 */
export function shownFileName(name: string): string {
  return JSON.stringify(name)
    .slice(1, -1)
    .replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
    .replaceAll('--', '-\\-');
}
