import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Api } from '../model.js';
import { names } from '../naming.js';
import { projectFile } from './paths.js';
import { computedPath, handlersPath } from './plan.js';
import { checkBothKept, renamedUserFiles, type RenamedFile } from './renamed-user-files.js';

/**
 * What the user-owned handlers files of a project become in this run: the stubs they gain, the handlers and
 * files that are orphaned. ts-morph is loaded only when there are such files: it is the slowest import.
 */
export interface UserFiles {
  grown: Map<string, { text: string; note: string }>;
  /** user-owned files left out of compilation, with why */
  orphans: Map<string, string>;
  /** user-owned files kept as they are, with something the user must do */
  notes: Map<string, string>;
  /** user-owned files restsmith cannot edit although they lack a stub: the project is not what generate would write */
  manual: Map<string, string>;
  orphanHandlers: Map<string, string[]>;
  /** user-owned files of renamed resources, moved to the new name: by new path (renamed-user-files.ts) */
  renamed: Map<string, RenamedFile>;
}

/** Reads the user-owned handlers files: what stubs they gain, which handlers and files are orphaned. */
export async function scanUserFiles(outDir: string, api: Api): Promise<UserFiles> {
  const result: UserFiles = {
    grown: new Map(),
    orphans: new Map(),
    notes: new Map(),
    manual: new Map(),
    orphanHandlers: new Map(),
    renamed: await renamedUserFiles(outDir, api),
  };
  await scanComputedFiles(outDir, api, result);
  await scanHandlersFiles(outDir, api, result);
  checkBothKept(result.renamed, (path) => result.grown.get(path)?.text ?? result.renamed.get(path)?.text ?? '');
  return result;
}

/** The `.ts` files of a folder of the user's, as this run leaves them: those of renamed resources under the new name. */
function filesOf(outDir: string, folder: string, renamed: ReadonlyMap<string, RenamedFile>): string[] {
  const dir = projectFile(outDir, folder);
  const present = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.ts')) : [];
  const moved = [...renamed].filter(([to]) => to.startsWith(`${folder}/`));
  const gone = new Set(moved.map(([, file]) => file.from.slice(folder.length + 1)));
  const arrived = moved.map(([to]) => to.slice(folder.length + 1));
  return [...new Set([...present.filter((f) => !gone.has(f)), ...arrived])];
}

/** A user's file as this run reads it: one carried over from a renamed resource's as it was edited. */
const textOf = (outDir: string, path: string, renamed: ReadonlyMap<string, RenamedFile>): string =>
  renamed.get(path)?.text ?? readFileSync(projectFile(outDir, path), 'utf8');

/** The handlers files (src/handlers/<collection>.ts): the stubs they gain, the handlers and files orphaned. */
async function scanHandlersFiles(outDir: string, api: Api, result: UserFiles): Promise<void> {
  const existing = filesOf(outDir, 'src/handlers', result.renamed);
  if (existing.length === 0) return;
  const { growHandlers, handlerNames } = await import('./user-files.js');
  const readReason = (text: string, variable: string): string => {
    const growth = growHandlers(text, variable, []);
    return growth.kind === 'unreadable' ? growth.reason : 'unknown';
  };
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
    const text = textOf(outDir, path, result.renamed);
    const present = handlerNames(text, variable);
    const stubs = actions.map((a) => {
      const method = a.method === 'get' ? 'GET' : 'POST';
      return {
        name: a.names.camel,
        doc: a.description ?? `${method} /${resource.name}${a.on === 'item' ? '/{id}' : ''}/${a.name}`,
        // what notImplemented takes: the method and the path (a stub of an older restsmith gives a POST's path alone)
        path: `${method} /${resource.name}${a.on === 'item' ? '/:id' : ''}/${a.name}`,
      };
    });
    if (present === undefined) {
      // a handler written as `name(` or `name:` is there; the others must be added by hand
      const missing = stubs.filter((s) => !new RegExp(`\\b${s.name}\\s*[(:]`).test(text)).map((s) => s.name);
      const reason = `restsmith cannot edit it (${readReason(text, variable)})`;
      if (missing.length > 0) result.manual.set(path, `${reason}: add by hand the handlers ${missing.join(', ')}`);
      else result.notes.set(path, reason);
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
}

/**
 * The user-owned files of computed fields (src/computed/<collection>.ts): the stubs they gain, the files orphaned.
 * A function whose field is gone still compiles (the generated interface takes any other function): it is named.
 */
async function scanComputedFiles(outDir: string, api: Api, result: UserFiles): Promise<void> {
  const existing = filesOf(outDir, 'src/computed', result.renamed);
  if (existing.length === 0) return;
  const { growComputed, handlerNames } = await import('./user-files.js');
  for (const fileName of existing) {
    const kebab = fileName.slice(0, -3);
    const path = computedPath(kebab);
    const resource = api.resources.find((r) => r.names.kebab === kebab);
    if (resource === undefined || resource.computed.length === 0) {
      const why = resource === undefined ? 'its resource was removed' : 'its resource has no computed fields left';
      result.orphans.set(
        path,
        `${why}: it is kept but left out of compilation; delete it when its code is no longer needed`,
      );
      continue;
    }
    const variable = `${resource.names.camel}Computed`;
    const text = textOf(outDir, path, result.renamed);
    const stubs = resource.computed.map((f) => ({ name: f.name, doc: f.description ?? `${f.name} (computed)` }));
    const present = handlerNames(text, variable);
    if (present === undefined) {
      const missing = stubs.filter((s) => !new RegExp(`\\b${s.name}\\s*[(:]`).test(text)).map((s) => s.name);
      const reason = `restsmith cannot edit it (it has no \`export const ${variable} = { … }\` it can read)`;
      if (missing.length > 0) result.manual.set(path, `${reason}: add by hand the functions ${missing.join(', ')}`);
      else result.notes.set(path, reason);
      continue;
    }
    const orphaned = present.filter((name) => !stubs.some((s) => s.name === name));
    if (orphaned.length > 0)
      result.notes.set(path, `its functions ${orphaned.join(', ')} have no computed field any more: delete them`);
    const growth = growComputed(text, variable, stubs);
    if (growth.kind === 'grown') result.grown.set(path, { text: growth.text, note: `adds ${growth.added.join(', ')}` });
  }
}
