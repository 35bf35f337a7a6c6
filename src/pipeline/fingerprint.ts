import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VERSION } from '../version.js';

/** restsmith's own folders whose files decide what it writes (its code: dist/ when built, src/ under tests). */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CODE = fileURLToPath(new URL('../', import.meta.url));
const FOLDERS = [
  CODE,
  join(ROOT, 'templates'),
  join(ROOT, 'runtime/src'),
  join(ROOT, 'runtime/test'),
  join(ROOT, 'bin'),
];

/** The formatter's packages: another prettier may format the same text otherwise. */
const FORMATTERS = ['prettier/package.json', '@prettier/plugin-oxc/package.json'];

let known: string | undefined;

/**
 * What decides the output besides the definition: restsmith's version and the very code that generates — its
 * modules, templates and runtime files, and the formatter's versions. The no-op fast path and the format cache are
 * keyed on it (manifest.ts), so that a restsmith built from another commit under the same version number (a git
 * install, this repository) regenerates what changed instead of reporting nothing to do. Read once a run (~250 small
 * files; source maps left out).
 */
export function generatorFingerprint(): string {
  if (known !== undefined) return known;
  const digest = createHash('sha256').update(`${VERSION}\n`);
  const require = createRequire(import.meta.url);
  for (const name of FORMATTERS) digest.update(readFileSync(require.resolve(name)));
  for (const folder of FOLDERS) {
    for (const file of filesUnder(folder)) digest.update(`${file}\n`).update(readFileSync(join(folder, file)));
  }
  known = digest.digest('hex');
  return known;
}

/**
 * What identifies the formatted text of `text`: the text as rendered and the restsmith that formats it (SHA-256, in
 * hex): the key of the format cache, for whole files and markdown chunks (manifest.ts, markdown-chunks.ts).
 */
export const formattingKey = (text: string): string =>
  createHash('sha256').update(`${generatorFingerprint()}\n`).update(text).digest('hex');

/** The files under `folder`, as sorted paths relative to it. */
function filesUnder(folder: string, prefix = ''): string[] {
  return readdirSync(join(folder, prefix), { withFileTypes: true })
    .flatMap((entry) => {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) return filesUnder(folder, path);
      return entry.isFile() && !entry.name.endsWith('.map') ? [path] : [];
    })
    .sort();
}
