import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { planMigration } from '../migrate/plan-migration.js';
import { snapshotOf } from '../migrate/snapshot.js';
import type { Api } from '../model.js';
import { names } from '../naming.js';
import { compare, type Change } from '../pipeline/compare.js';
import { format } from '../pipeline/format.js';
import { hash, readManifest, type Manifest } from '../pipeline/manifest.js';
import { handlersPath, plan } from '../pipeline/plan.js';
import { readDefinition } from '../pipeline/read-definition.js';
import { render } from '../pipeline/render.js';
import { growHandlers, handlerNames } from '../pipeline/user-files.js';
import { apply } from '../pipeline/write.js';
import { VERSION } from '../version.js';

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
  migration: { name: string; summary: string[] } | undefined;
  /** true when files were written */
  written: boolean;
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

/** load → validate → normalise → plan → render → format → compare → write. */
export async function generate(file: string, options: GenerateOptions): Promise<GenerateResult> {
  const api = await readDefinition(file);
  const source = basename(file);
  const outDir = resolve(options.out ?? api.name);
  const manifest = readManifest(outDir);
  const migration = planMigration(api, manifest?.model, manifest?.migrations ?? [], options.allowDataLoss ?? false);
  const migrations = [...(manifest?.migrations ?? []), ...(migration === undefined ? [] : [migration.name])];
  const users = userFiles(outDir, api);

  const planned = plan(api, {
    source,
    migrations,
    newMigration: migration,
    orphanFiles: [...users.orphans.keys()],
    orphanHandlers: users.orphanHandlers,
  });
  const files = await Promise.all(planned.map((p) => format(render(p, source))));
  const changes = compare({ outDir, files, manifest, grown: users.grown, orphans: users.orphans, notes: users.notes });

  const conflicts = changes.filter((c) => c.kind === 'conflict').map((c) => c.path);
  const pending = changes.some((c) => !['unchanged', 'keep', 'orphan'].includes(c.kind));
  const result = { outDir, changes, migration: migration && { name: migration.name, summary: migration.summary } };
  if (options.dryRun || options.check) return { ...result, written: false };
  if (conflicts.length > 0 && !options.force) throw new ConflictError(conflicts);
  const next: Manifest = {
    generator: `restsmith ${VERSION}`,
    files: Object.fromEntries(files.filter((f) => f.owner === 'generator').map((f) => [f.path, hash(f.content)])),
    migrations,
    model: snapshotOf(api),
  };
  apply(outDir, changes, next, options.force ?? false);
  return { ...result, written: pending || manifest === undefined };
}

interface UserFiles {
  grown: Map<string, { text: string; note: string }>;
  /** user-owned files left out of compilation, with why */
  orphans: Map<string, string>;
  /** user-owned files kept as they are, with something the user must do */
  notes: Map<string, string>;
  orphanHandlers: Map<string, string[]>;
}

/** Reads the user-owned handlers files: what stubs they gain, which handlers and files are orphaned. */
function userFiles(outDir: string, api: Api): UserFiles {
  const result: UserFiles = { grown: new Map(), orphans: new Map(), notes: new Map(), orphanHandlers: new Map() };
  const handlersDir = join(outDir, 'src/handlers');
  const existing = existsSync(handlersDir) ? readdirSync(handlersDir).filter((f) => f.endsWith('.ts')) : [];
  for (const fileName of existing) {
    const kebab = fileName.slice(0, -3);
    const path = handlersPath(kebab);
    const resource = api.resources.find((r) => r.names.kebab === kebab);
    const actions = resource?.actions.filter((a) => a.set.length === 0) ?? [];
    if (resource === undefined || actions.length === 0) {
      result.orphans.set(
        path,
        `${resource === undefined ? 'its resource was removed' : 'its resource has no handler actions left'}: it is kept but left out of compilation; delete it when its code is no longer needed`,
      );
      continue;
    }
    const variable = `${names(kebab).camel}Handlers`;
    const text = readFileSync(join(outDir, path), 'utf8');
    const present = handlerNames(text, variable);
    const stubs = actions.map((a) => ({
      name: a.names.camel,
      doc: a.description ?? `POST /${resource.name}${a.on === 'item' ? '/{id}' : ''}/${a.name}`,
      path: `/${resource.name}${a.on === 'item' ? '/:id' : ''}/${a.name}`,
    }));
    if (present === undefined) {
      const missing = stubs.filter((s) => !text.includes(s.name)).map((s) => s.name);
      result.notes.set(
        path,
        `restsmith cannot edit it (${readReason(text, variable)})${missing.length > 0 ? `; add by hand the handlers ${missing.join(', ')}` : ''}`,
      );
      continue;
    }
    const orphaned = present.filter((name) => !stubs.some((s) => s.name === name));
    if (orphaned.length > 0) {
      result.orphanHandlers.set(kebab, orphaned);
      result.notes.set(path, `its handlers ${orphaned.join(', ')} have no action any more: delete them`);
    }
    const growth = growHandlers(text, variable, stubs);
    if (growth.kind === 'grown') result.grown.set(path, { text: growth.text, note: `adds ${growth.added.join(', ')}` });
  }
  return result;
}

function readReason(text: string, variable: string): string {
  const growth = growHandlers(text, variable, []);
  return growth.kind === 'unreadable' ? growth.reason : 'unknown';
}

export function describeChanges(result: GenerateResult): string[] {
  const lines = result.changes
    .filter((c) => c.kind !== 'unchanged' || result.changes.length < 200)
    .map((c) => `${c.kind.padEnd(9)} ${c.path}${c.note === undefined ? '' : `  (${c.note})`}`);
  if (result.migration !== undefined) {
    lines.push(`migration ${result.migration.name}:`, ...result.migration.summary.map((s) => `  - ${s}`));
  }
  return lines;
}
