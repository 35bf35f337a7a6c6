#!/usr/bin/env node
// `npm start`: generate examples/blog.yaml into .demo/blog and serve it on SQLite at http://127.0.0.1:3000.
// The demo project resolves its dependencies from this repository's node_modules, so no second install is needed.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const definition = process.argv[2] ?? 'examples/blog.yaml';
const out = '.demo/blog';

function step(args, cwd = root) {
  const result = spawnSync(process.execPath, args, { cwd, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

step(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
step(['bin/restsmith.js', 'generate', definition, '--out', out]);
step([`${root}node_modules/typescript7/bin/tsc`, '-p', 'tsconfig.build.json'], `${root}${out}`);

console.log(
  `\nServing ${definition} from ${out} — try: curl http://127.0.0.1:${process.env.PORT ?? 3000}/api/v1/healthz\n`,
);
const server = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
  cwd: `${root}${out}`,
  stdio: 'inherit',
  env: { ...process.env, PORT: process.env.PORT ?? '3000', HOST: process.env.HOST ?? '127.0.0.1' },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => process.exit(code ?? 0));
