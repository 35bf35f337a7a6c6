import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CODE, PACKAGE } from '../package-folders.js';
import { VERSION } from '../version.js';

/**
 * restsmith's own folders whose files decide what it writes: its code (src/ under tests; dist/ when built, with the
 * packages it bundles: scripts/build.mjs), templates, runtime and format worker.
 */
const FOLDERS = [
  CODE,
  join(PACKAGE, 'templates'),
  join(PACKAGE, 'runtime/src'),
  join(PACKAGE, 'runtime/test'),
  join(PACKAGE, 'bin'),
];

/**
 * The packages whose code decides what restsmith writes: the formatter, the template engine (another handlebars may
 * render the same view otherwise, and a file rendered from the same view is not rendered again: render.ts,
 * renderOrKnown), the definition's parser and schema, the samples' generator and pattern engine, and ts-morph, which
 * adds stubs to the user's files. Their versions (package.json) are part of the fingerprint.
 */
const PACKAGES = ['prettier', '@prettier/plugin-oxc', 'handlebars', 'yaml', 'zod', 'randexp', 're2js', 'ts-morph'];

let known: string | undefined;

/**
 * What decides the output besides the definition: restsmith's version and the very code that generates — its
 * modules, templates and runtime files, and the versions of the packages it generates with (PACKAGES). The no-op
 * fast path, the format cache and the keys of rendered files are keyed on it (manifest.ts, render.ts), so that a
 * restsmith built from another commit under the same version number (a git install, this repository) regenerates
 * what changed instead of reporting nothing to do. Read once a run (the bundle, the templates and the runtime:
 * about 200 files; source maps left out).
 */
export function generatorFingerprint(): string {
  if (known !== undefined) return known;
  const digest = createHash('sha256').update(`${VERSION}\n`);
  for (const file of packageFiles()) digest.update(`${file}\n`).update(readFileSync(file));
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

/** The package.json of each of PACKAGES, as restsmith resolves them. */
export function packageFiles(): string[] {
  const require = createRequire(import.meta.url);
  return PACKAGES.map((name) => packageJsonOf(name, require));
}

/** The package.json of package `name`, where `require` finds it: exported, or found above its entry point. */
function packageJsonOf(name: string, require: NodeJS.Require): string {
  try {
    return require.resolve(`${name}/package.json`);
  } catch {
    // a package that does not export its package.json: the folder above its entry point named for it
    let folder = dirname(require.resolve(name));
    while (!folder.endsWith(join('node_modules', name)) && dirname(folder) !== folder) folder = dirname(folder);
    return join(folder, 'package.json');
  }
}
