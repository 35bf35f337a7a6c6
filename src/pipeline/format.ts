import prettier from 'prettier';
import { PRETTIER_OPTIONS } from '../generate/project-files.js';
import type { RenderedFile } from './render.js';

const PARSERS: Record<string, string> = { ts: 'typescript', json: 'json', md: 'markdown' };

/** Formats every emitted file with prettier, as the generated project's own .prettierrc.json says. */
export async function format(file: RenderedFile): Promise<RenderedFile> {
  const parser = PARSERS[file.path.split('.').pop() ?? ''];
  if (parser === undefined) return file;
  const content = await prettier.format(file.content, { ...PRETTIER_OPTIONS, parser });
  return { ...file, content };
}
