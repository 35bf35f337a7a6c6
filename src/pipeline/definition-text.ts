import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { UserError } from '../errors.js';

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/**
 * The text of a definition file, read without parsing it (the YAML parser is not loaded for a run that needs no
 * parse: a no-op `generate`). Throws a UserError for a file of another kind or one that cannot be read.
 */
export async function readDefinitionText(file: string): Promise<string> {
  const extension = extname(file).toLowerCase();
  if (!EXTENSIONS.has(extension)) {
    throw new UserError(`${file}: a definition must be a .yaml, .yml or .json file`, 2);
  }
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UserError(`cannot read ${file}: ${describeFsError(error)}`);
  }
}

function describeFsError(error: unknown): string {
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}
