import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { formatWarning, UserError } from '../errors.js';
import type { Api } from '../model.js';
import type { Loss } from '../migrate/data-loss.js';
import { planMigration } from '../migrate/plan-migration.js';
import type { Change } from '../pipeline/compare.js';
import { readDefinitionText } from '../pipeline/definition-text.js';
import {
  formattedBefore,
  inputHash,
  MANIFEST,
  nextManifest,
  readManifest,
  unchangedFiles,
  upToDate,
  type Manifest,
} from '../pipeline/manifest.js';
import { projectReader } from '../pipeline/paths.js';
import type { FormatPool } from '../pipeline/format-pool.js';

export { describeChanges, wroteLine } from './generate-report.js';

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
  /**
   * `cautions`: what it may fail on, depending on the rows there are (migrate/cautions.ts); `notAdditive`: what of it
   * an older build cannot run with (migrate/additive.ts), empty when it is additive
   */
  migration:
    { name: string; summary: string[]; losses?: Loss[]; cautions: string[]; notAdditive: string[] } | undefined;
  /** true when files were written */
  written: boolean;
  /** --force: conflicts are overwritten */
  forced?: boolean;
  /** what the definition would do better to change, though valid (pipeline/read-definition.ts), as printed lines */
  warnings?: string[];
  /** how many fields have notes (see read-definition.ts), as a printed line; `generate --watch` leaves it out */
  notes?: string[];
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
        ...(paths.some((p) => p.startsWith('package.json'))
          ? [
              'In package.json only the entries restsmith writes count: put them back as they were (your own',
              'dependencies, scripts and fields are kept), or --force restores them.',
            ]
          : []),
      ].join('\n'),
    );
    this.name = 'ConflictError';
  }
}

/**
 * A no-op run reads the definition's text, the manifest and the project's files, and stops there (manifest.ts,
 * upToDate); with --out it does not even parse the definition, and loads none of the other steps. Otherwise:
 * load → validate → normalise (definitionOf); plan the migration and scan the user's files (both decide what plan
 * writes) → plan → render → format → compare → write.
 */
export async function generate(file: string, options: GenerateOptions): Promise<GenerateResult> {
  const text = await readDefinitionText(file);
  const source = shownFileName(basename(file));
  const input = inputHash(source, text);
  const unchanged = options.out === undefined ? undefined : unchangedProject(resolve(options.out), input);
  if (unchanged !== undefined) return unchanged;

  const steps = await import('../pipeline/steps.js');
  const read = steps.definitionWarned(file, text);
  const api = read.api;
  const warnings = read.warnings.map(formatWarning);
  const notes = notesSummary(source, new Set(read.notes.map((note) => note.path)).size);
  const outDir = resolve(options.out ?? api.name);
  checkTarget(outDir);
  const manifest = readManifest(outDir);
  if (manifest !== undefined && upToDate(outDir, manifest, input))
    return { ...noChanges(outDir, manifest), warnings, notes };
  // workers load prettier while this thread plans and renders
  const pool = steps.startPool(api.resources.length, manifest === undefined);
  try {
    return { ...(await run({ steps, api, source, outDir, manifest, input, options, pool })), warnings, notes };
  } finally {
    await pool?.close();
  }
}

interface Run {
  steps: typeof import('../pipeline/steps.js');
  api: Api;
  source: string;
  outDir: string;
  manifest: Manifest | undefined;
  input: string;
  options: GenerateOptions;
  pool: FormatPool | undefined;
}

async function run({ steps, api, source, outDir, manifest, input, options, pool }: Run): Promise<GenerateResult> {
  // a dry run shows the whole plan, a migration that would be refused included (and then exits 1)
  const allowLoss = (options.allowDataLoss ?? false) || (options.dryRun ?? false);
  const migration = planMigration(api, manifest?.model, manifest?.migrations ?? [], allowLoss);
  const refused = options.allowDataLoss === true ? [] : (migration?.losses ?? []);
  const migrations = [...(manifest?.migrations ?? []), ...(migration === undefined ? [] : [migration.name])];
  const users = await steps.scanUserFiles(outDir, api);
  // handlers files left without actions stay out of compilation, and so does one its user then deleted (so that
  // deleting it changes nothing): the list is kept in the manifest until the file is a handlers file again
  const handlerFiles = new Set(
    api.resources
      .filter((r) => r.actions.some((a) => a.set.length === 0))
      .map((r) => steps.handlersPath(r.names.kebab)),
  );
  const orphanFiles = [...new Set([...users.orphans.keys(), ...(manifest?.orphanFiles ?? [])])]
    .filter((path) => !handlerFiles.has(path))
    .sort();

  const planned = steps.plan(api, {
    source,
    migrations,
    newMigration: migration,
    orphanFiles,
    orphanHandlers: users.orphanHandlers,
  });
  const read = projectReader(outDir);
  const pkg = steps.packageStep(planned, read, manifest, options.force === true);
  const known = formattedBefore(read, manifest);
  const rendered = pkg.planned.map((p) => steps.renderOrKnown(p, source, known));
  const files = pkg.asWritten(await steps.formatAll(rendered, known, pool));
  const changes = steps.compare({
    read,
    files,
    manifest,
    grown: users.grown,
    orphans: users.orphans,
    notes: users.notes,
    manual: users.manual,
    renamed: users.renamed,
    merged: pkg.merged,
  });

  const conflicts = changes
    .filter((c) => c.kind === 'conflict')
    .map((c) => (c.note === undefined ? c.path : `${c.path}: ${c.note}`));
  const pending = changes.some((c) => !['unchanged', 'keep', 'orphan'].includes(c.kind));
  const result = {
    outDir,
    changes,
    migration: migration && {
      name: migration.name,
      summary: migration.summary,
      ...(refused.length > 0 && { losses: refused }),
      cautions: migration.cautions,
      notAdditive: migration.notAdditive,
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
    packageJson: pkg.ownEntries,
  });
  steps.apply(outDir, changes, next, options.force ?? false);
  return { ...result, written: pending || manifest === undefined };
}

/**
 * The no-op result when `outDir` is a project whose manifest says it was generated from `input` and nothing in it
 * changed since; undefined otherwise, and when anything is wrong with it: the whole run then says what, in the order
 * it always has (the definition's problems first).
 */
function unchangedProject(outDir: string, input: string): GenerateResult | undefined {
  try {
    const manifest = readManifest(outDir);
    return manifest !== undefined && upToDate(outDir, manifest, input) ? noChanges(outDir, manifest) : undefined;
  } catch {
    return undefined;
  }
}

const noChanges = (outDir: string, manifest: Manifest): GenerateResult => ({
  outDir,
  changes: unchangedFiles(manifest),
  migration: undefined,
  written: false,
});

/** A target that is no project restsmith may write into: a file, or a folder with files restsmith did not make. */
export class TargetError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}

/** A target is a new or empty folder, or a project restsmith generated (it has a manifest). */
function checkTarget(outDir: string): void {
  if (!existsSync(outDir)) return;
  if (!statSync(outDir).isDirectory()) throw new TargetError(`${outDir} is a file: choose a folder for the project`);
  // .restsmith/ is made before the first file is written: a first run killed midway may be run again
  const own = existsSync(join(outDir, dirname(MANIFEST)));
  if (!own && readdirSync(outDir).length > 0) {
    throw new TargetError(
      `${outDir} is not empty and restsmith did not generate it (no ${MANIFEST}): choose a new or empty folder`,
    );
  }
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

/**
 * generate says in one line how many fields have notes (a listing no index serves, a trigram field whose values have
 * no bound: see read-definition.ts); `restsmith validate` prints them, a line each.
 */
function notesSummary(file: string, fields: number): string[] {
  if (fields === 0) return [];
  const have = fields === 1 ? '1 field has' : `${fields} fields have`;
  return [
    `${file}  note: ${have} notes (listings that would read the whole table, or trigram indexes of unbounded values): \`restsmith validate ${file}\` names them`,
  ];
}
