import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Handlebars from 'handlebars';
import { CODE, PACKAGE } from '../package-folders.js';

/**
 * The templates, compiled. `npm run build` precompiles them into dist/precompiled-templates.js
 * (scripts/build.mjs), so that a run skips Handlebars' compiler (a twentieth of a regeneration);
 * each comes with the hash of its source, and a template edited since the build (or a run from src/, under the
 * tests) is compiled from its source instead.
 */

const TEMPLATES = join(PACKAGE, 'templates/');

/** How every template is compiled: values are escaped by the helpers (render.ts), for where they land. */
export const OPTIONS = { noEscape: true, strict: true };

interface Precompiled {
  hash: string;
  spec: TemplateSpecification;
}

const hashOf = (source: string): string => createHash('sha256').update(source).digest('hex');

/** Every template under templates/, as a path relative to it. */
function templatePaths(folder = ''): string[] {
  return readdirSync(TEMPLATES + folder, { withFileTypes: true })
    .flatMap((entry) => {
      const path = `${folder}${entry.name}`;
      return entry.isDirectory() ? templatePaths(`${path}/`) : path.endsWith('.hbs') ? [path] : [];
    })
    .sort();
}

/** The module `npm run build` writes: every template precompiled, with the hash of its source. */
export function precompiledModule(): string {
  const entries = templatePaths().map((path) => {
    const source = readFileSync(TEMPLATES + path, 'utf8');
    const spec = Handlebars.precompile(source, OPTIONS);
    return `  ${JSON.stringify(path)}: { hash: ${JSON.stringify(hashOf(source))}, spec: ${String(spec)} },`;
  });
  return [
    '// Written by `npm run build` (scripts/build.mjs): the templates, precompiled. Do not edit.',
    'export const PRECOMPILED = {',
    ...entries,
    '};',
    '',
  ].join('\n');
}

/** What the build precompiled; nothing in a run from src/. */
async function loadPrecompiled(): Promise<Record<string, Precompiled>> {
  try {
    const module = (await import(pathToFileURL(join(CODE, 'precompiled-templates.js')).href)) as {
      PRECOMPILED: Record<string, Precompiled>;
    };
    return module.PRECOMPILED;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return {};
    throw error;
  }
}

const precompiled = await loadPrecompiled();

/**
 * The template at `path` (relative to templates/) for `handlebars` (which has the helpers): precompiled when the
 * build's is of the same source, else compiled now.
 */
export function compileTemplate(handlebars: typeof Handlebars, path: string): HandlebarsTemplateDelegate {
  const source = readFileSync(TEMPLATES + path, 'utf8');
  const built = precompiled[path];
  return built !== undefined && built.hash === hashOf(source)
    ? handlebars.template(built.spec)
    : handlebars.compile(source, OPTIONS);
}

/** The partials, by name: `{{> name}}` for partials/name.hbs. */
export function partials(handlebars: typeof Handlebars): Map<string, HandlebarsTemplateDelegate> {
  return new Map(
    readdirSync(`${TEMPLATES}partials`)
      .filter((file) => file.endsWith('.hbs'))
      .map((file) => [file.replace(/\.hbs$/, ''), compileTemplate(handlebars, `partials/${file}`)]),
  );
}
