// `npm run build`, after tsc has type-checked src/: restsmith bundled into dist/ by esbuild, then every template
// precompiled into dist/precompiled-templates.js (src/pipeline/templates.ts says why and how a run uses it).
//
// Bundled because a run is a new process, and most of what a small regeneration costs is starting one: Node loads
// an ES module at a time, and restsmith is a hundred of them, zod and yaml a hundred more. In a few files the same
// code loads in a fraction of the time (bench/RESULTS.md, "Generator speed (session 27)"). What a run may not need
// stays out of the bundle and is loaded on first use: prettier and its oxc plugin (a regeneration that formats
// nothing, or formats in worker threads, never loads them), and ts-morph (only when a user's file gains a stub).
// Each step a run loads on demand (the pipeline's steps, watch, the starter definition) is a chunk of its own.
import { rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const dist = new URL('dist/', root);

rmSync(dist, { recursive: true, force: true });
await build({
  absWorkingDir: new URL('.', root).pathname,
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
  sourcemap: true,
  logLevel: 'warning',
});

const { precompiledModule } = await import(new URL('templates.js', dist).href);
writeFileSync(new URL('precompiled-templates.js', dist), precompiledModule());
