// Part of `npm run build`, after tsc: writes dist/precompiled-templates.js, every template precompiled
// (src/pipeline/templates.ts says why and how a run uses it).
import { writeFileSync } from 'node:fs';
import { precompiledModule } from '../dist/pipeline/templates.js';

writeFileSync(new URL('../dist/precompiled-templates.js', import.meta.url), precompiledModule());
