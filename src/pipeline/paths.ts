import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { UserError } from '../errors.js';

/**
 * Paths restsmith reads, writes or deletes inside a project. The manifest lives in the project, so it is untrusted
 * input like the definition: a path it lists must stay inside the project (relative, no `..`), and no folder or file
 * on the way may be a symbolic link, which could lead outside it.
 */
export function isProjectPath(path: string): boolean {
  if (path === '' || isAbsolute(path) || /[\\\0]/.test(path) || /^[A-Za-z]:/.test(path)) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/** The file `path` of the project in `outDir`, after checking that it is inside the project and reached by no link. */
export function projectFile(outDir: string, path: string): string {
  if (!isProjectPath(path))
    throw new UserError(`"${path}" is not a path inside the project: restsmith refuses to touch it`);
  let current = outDir;
  for (const part of path.split('/')) {
    current = join(current, part);
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (stat === undefined) break;
    if (stat.isSymbolicLink()) {
      throw new UserError(
        `${current} is a symbolic link: restsmith never writes through links inside a project (one could lead outside it); make it a real ${part === path.split('/').at(-1) ? 'file' : 'folder'}`,
      );
    }
  }
  return join(outDir, path);
}

/**
 * The project's files as this run found them, each checked (projectFile) and read once; undefined when absent. For
 * the steps before writing: what may be reused, and what each file becomes.
 */
export function projectReader(outDir: string): (path: string) => string | undefined {
  const read = new Map<string, string | undefined>();
  return (path) => {
    if (!read.has(path)) {
      const target = projectFile(outDir, path);
      read.set(path, existsSync(target) ? readFileSync(target, 'utf8') : undefined);
    }
    return read.get(path);
  };
}
