#!/usr/bin/env node
// `npm run examples`: generate each definition of examples/ into the folder beside it (examples/blog.yaml →
// examples/blog/), the projects committed as the goldens (test/golden/golden.test.ts). Run it after an intended change
// of the output, then read the diff.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = `${root}bin/restsmith.js`;
const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
let failed = 0;
for (const file of readdirSync(`${root}examples`)
  .filter((f) => /\.(ya?ml|json)$/.test(f))
  .sort()) {
  const out = `examples/${file.replace(/\.(ya?ml|json)$/, '')}`;
  const { status } = spawnSync(process.execPath, [cli, 'generate', `examples/${file}`, '--out', out], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  console.log(`${status === 0 ? 'wrote' : 'failed'} ${out}`);
  if (status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
