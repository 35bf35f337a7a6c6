// `npm run build`, after tsc has type-checked src/ (tsconfig.build.json): restsmith bundled into dist/ by esbuild,
// then every template precompiled into dist/precompiled-templates.js (src/pipeline/templates.ts says why and how a
// run uses it).
//
// Bundled because every run is a new process that loads restsmith first: Node loads an ES module at a time, and
// restsmith is about a hundred of them, zod and yaml a hundred more, a fifth of a one-field edit of a large project.
// From two dozen files the same code loads in a fraction of that (bench/RESULTS.md, "Generator speed (session 27)").
// What a run may not need stays out of the bundle and is loaded on first use: prettier and its oxc plugin (a
// regeneration that formats nothing never loads them), and ts-morph (read only when the project has handlers or
// computed fields of its user's). Each part a run loads on demand (the pipeline's steps, --watch, the starter
// definition) is a chunk of its own.
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const dist = new URL('dist/', root);

rmSync(dist, { recursive: true, force: true });
await build({
  absWorkingDir: fileURLToPath(root),
  // every file directly under dist/: src/package-folders.ts finds the package from there (src/ under the tests)
  entryPoints: { cli: 'src/cli.ts', templates: 'src/pipeline/templates.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['prettier', '@prettier/plugin-oxc', 'ts-morph'],
  // the CommonJS packages bundled (handlebars, randexp) require Node's own modules
  banner: {
    js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);",
  },
  // the maps name the sources' files and lines (NODE_OPTIONS=--enable-source-maps); their text stays out of them
  sourcemap: true,
  sourcesContent: false,
  logLevel: 'warning',
});

const { precompiledModule } = await import(new URL('templates.js', dist).href);
writeFileSync(new URL('precompiled-templates.js', dist), precompiledModule());
