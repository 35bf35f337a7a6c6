import { isAscii } from 'node:buffer';
import { lstatSync, readFileSync } from 'node:fs';
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

/**
 * The file `path` of the project in `outDir`, after checking that it is inside the project and reached by no link.
 * `realFolders`: folders already found to be no link, not looked at again (see projectFiles).
 */
export function projectFile(outDir: string, path: string, realFolders = new Set<string>()): string {
  if (!isProjectPath(path))
    throw new UserError(`"${path}" is not a path inside the project: restsmith refuses to touch it`);
  const parts = path.split('/');
  let current = outDir;
  for (const [i, part] of parts.entries()) {
    current = join(current, part);
    const folder = i < parts.length - 1;
    if (folder && realFolders.has(current)) continue;
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (stat === undefined) break;
    if (stat.isSymbolicLink()) {
      throw new UserError(
        `${current} is a symbolic link: restsmith never writes through links inside a project (one could lead outside it); make it a real ${folder ? 'folder' : 'file'}`,
      );
    }
    if (folder) realFolders.add(current);
  }
  return join(outDir, path);
}

/** projectFile for the many files of one project in one run: each folder on their way is looked at once. */
export function projectFiles(outDir: string): (path: string) => string {
  const realFolders = new Set<string>();
  return (path) => projectFile(outDir, path, realFolders);
}

/**
 * The project's files as this run found them, each checked (projectFile) and read once; undefined when absent. For
 * the steps before writing: what may be reused, and what each file becomes.
 */
export function projectReader(outDir: string): (path: string) => string | undefined {
  const file = projectFiles(outDir);
  const read = new Map<string, string | undefined>();
  return (path) => {
    if (!read.has(path)) read.set(path, readIfThere(file(path)));
    return read.get(path);
  };
}

function readIfThere(file: string): string | undefined {
  try {
    return textOf(readFileSync(file));
  } catch (error) {
    if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) {
      return undefined;
    }
    throw error;
  }
}

/**
 * A file's bytes as text (UTF-8): ASCII, as most generated files are, made a string byte for byte (a 12 MB OpenAPI
 * document in 2 ms, against 25 ms decoded as UTF-8).
 */
const textOf = (bytes: Buffer): string => bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
