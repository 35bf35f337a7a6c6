// `npm start` runs this first (prestart). With the TypeScript compiler installed (`npm install`: a development
// install), it builds dist/ from src/ (`npm run build`); without it (`npm ci --omit=dev` of a built tree, as the
// Dockerfile makes), it checks that dist/ is there, and says what to do when it is not. It needs no dependency, so
// that `npm start` never needs a development one.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const project = new URL('../', import.meta.url);
let compiler = true;
try {
  createRequire(new URL('package.json', project)).resolve('typescript/package.json');
} catch {
  compiler = false;
}

if (compiler) {
  // npm_execpath: the npm (or other package manager) that runs this script
  const [command, args] = process.env.npm_execpath
    ? [process.execPath, [process.env.npm_execpath, 'run', 'build']]
    : ['npm', ['run', 'build']];
  try {
    execFileSync(command, args, { cwd: project, stdio: 'inherit' });
  } catch (error) {
    // the compiler said what is wrong
    process.exit(typeof error.status === 'number' ? error.status : 1);
  }
} else if (!existsSync(new URL('dist/main.js', project))) {
  console.error(
    'dist/main.js is missing, and the TypeScript compiler is not installed to build it: run `npm install` (with the ' +
      'dev dependencies), then `npm run build`',
  );
  process.exit(1);
}
