import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/project.js';

/**
 * restsmith as a package (package.json): what an install of it gets. test/e2e/package.test.ts packs and installs it;
 * these are the rules that keep it so, at no cost.
 */
interface Manifest {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  files: string[];
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

function* files(dir: string, suffixes: readonly string[]): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path, suffixes);
    else if (suffixes.some((suffix) => entry.name.endsWith(suffix))) yield path;
  }
}

/** The package a bare specifier names: `ts-morph`, `@prettier/plugin-oxc` (of `@scope/name/sub/path`). */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * The packages restsmith's own code imports when it runs: what src/ (bundled into dist/ or left external by
 * scripts/build.mjs) and bin/ (the format worker) import, besides Node's modules; type-only imports left out.
 */
function importedPackages(): string[] {
  const sources = [...files(join(ROOT, 'src'), ['.ts']), ...files(join(ROOT, 'bin'), ['.js', '.mjs'])];
  const found = new Set<string>();
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    // `import … from 'x'`, `export … from 'x'`, `import 'x'`, `import('x')`; not `import type … from 'x'`
    for (const [, specifier] of text.matchAll(/^(?:import(?! type )|export)[^;]*?from '([^'.][^']*)'/gms)) {
      found.add(packageOf(specifier ?? ''));
    }
    for (const [, bare, dynamic] of text.matchAll(/^import '([^'.][^']*)'|\bimport\('([^'.][^']*)'\)/gm)) {
      found.add(packageOf(bare ?? dynamic ?? ''));
    }
  }
  return [...found].filter((name) => !name.startsWith('node:')).sort();
}

describe('package.json', () => {
  it("depends on exactly the packages restsmith's code imports: a generated project's go in devDependencies", () => {
    // the tests run generated projects from this repository's node_modules, which holds devDependencies too
    expect(Object.keys(manifest.dependencies).sort()).toEqual(importedPackages());
  });

  it('runs no script when it is installed, and builds dist/ when it is packed', () => {
    // npm runs `prepare` of a package installed from a tarball or git, and warns of it as an install script
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) {
      expect(manifest.scripts[script], script).toBeUndefined();
    }
    expect(manifest.scripts.prepack).toBe('npm run build');
  });

  it('ships the code, templates, runtime and docs: nothing of the tests, the benchmark or the sources', () => {
    expect(manifest.files).toEqual(
      expect.arrayContaining(['bin', 'dist', 'docs', 'runtime/scripts', 'runtime/src', 'runtime/test', 'templates']),
    );
    for (const entry of manifest.files) expect(entry).not.toMatch(/^(src|test|bench|scripts|examples|\.tmp)\b/);
  });
});
