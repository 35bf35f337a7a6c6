import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CODE, PACKAGE } from '../../src/package-folders.js';
import { ROOT } from '../helpers/project.js';

/** What `npm run build` (scripts/build.mjs) leaves in dist/, which every test of the CLI runs. */
describe('the build', () => {
  it('puts every file directly under dist/, where src/package-folders.ts finds the package from', () => {
    const entries = readdirSync(join(ROOT, 'dist'), { withFileTypes: true });
    expect(entries.filter((e) => !e.isFile()).map((e) => e.name)).toEqual([]);
    expect(entries.map((e) => e.name)).toEqual(expect.arrayContaining(['cli.js', 'precompiled-templates.js']));
  });

  it('finds the same folders from the sources: src/ and the package above it', () => {
    expect(CODE).toBe(join(ROOT, 'src/'));
    expect(PACKAGE).toBe(join(ROOT, '/'));
  });

  it('runs the CLI from the bundle, with the version of the package', () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const printed = execFileSync(process.execPath, [join(ROOT, 'bin/restsmith.js'), '--version'], { encoding: 'utf8' });
    expect(printed.trim()).toBe(version);
  });

  it('precompiles every template, and the bundle takes them instead of compiling them', async () => {
    const built = (await import(pathToFileURL(join(ROOT, 'dist/templates.js')).href)) as {
      compileTemplate: (handlebars: object, path: string) => unknown;
    };
    const precompiled = (await import(pathToFileURL(join(ROOT, 'dist/precompiled-templates.js')).href)) as {
      PRECOMPILED: Record<string, unknown>;
    };
    const paths = Object.keys(precompiled.PRECOMPILED);
    expect(paths).toEqual(expect.arrayContaining(['resource/store.ts.hbs', 'project/README.md.hbs']));
    const taken: string[] = [];
    const handlebars = {
      template: () => taken.push('precompiled'),
      compile: () => taken.push('compiled'),
    };
    for (const path of paths) built.compileTemplate(handlebars, path);
    expect(taken).toEqual(paths.map(() => 'precompiled'));
  });
});
