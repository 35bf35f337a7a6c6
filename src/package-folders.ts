import { fileURLToPath } from 'node:url';

/**
 * Where restsmith's own files are. This module sits directly under src/, and once built, its code sits directly
 * under dist/ (scripts/build.mjs bundles every module into files there): relative to it, the folder of restsmith's
 * code and the package's folder above it are the same either way, from the sources under the tests and from the
 * build. Every other module finds the templates, the runtime and its own code through these two.
 */

/** restsmith's code: src/ under the tests, dist/ when built */
export const CODE = fileURLToPath(new URL('./', import.meta.url));

/** the package: templates/, runtime/, bin/, package.json */
export const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
