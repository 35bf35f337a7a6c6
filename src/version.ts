import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE } from './package-folders.js';

/** restsmith's own version, from its package.json. */
export const VERSION: string = (JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as { version: string })
  .version;
