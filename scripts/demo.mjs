#!/usr/bin/env node
// `npm start [-- definition]`: generate examples/blog.yaml (or the definition given) into .demo/<its name> and
// serve it on SQLite at http://127.0.0.1:3000. The demo project resolves its dependencies from this repository's
// node_modules, so no second install is needed.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const definition = process.argv[2] ?? 'examples/blog.yaml';
const name = basename(definition).replace(/\.(ya?ml|json)$/, '');
const project = `${root}.demo/${name}`;
// what the banner shows: the prefix, and the first collection (a broken definition is reported by generate below)
let shape = {};
try {
  shape = parse(readFileSync(definition, 'utf8')) ?? {};
} catch {
  shape = {};
}
const prefix = typeof shape.prefix === 'string' ? shape.prefix : '';
const first = Object.keys(shape.resources ?? {})[0] ?? '';
// a development secret, made up for this run unless one is set: never use it in production
const env = { ...process.env, JWT_SECRET: process.env.JWT_SECRET || randomBytes(32).toString('hex') };
env.PORT ??= '3000';
env.HOST ??= '127.0.0.1';

function step(args, cwd = root) {
  const result = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], env });
  if (result.status !== 0) {
    process.stdout.write(result.stdout);
    process.exit(result.status ?? 1);
  }
  return result.stdout.toString();
}

// `npm run build` first: a clone's `npm install` builds nothing (the package builds dist/ when packed: prepack), and
// the demo serves what the checkout's sources generate now
step(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json']);
step(['scripts/build.mjs']);
process.stdout.write(
  step(['bin/restsmith.js', 'generate', definition, '--out', project]).split('\n').slice(-2).join('\n'),
);
step([`${root}node_modules/typescript7/bin/tsc`, '-p', 'tsconfig.build.json'], project);
const token = step(
  [
    `${root}node_modules/tsx/dist/cli.mjs`,
    'src/token.ts',
    '--sub',
    'demo-admin',
    '--roles',
    'admin',
    '--expires',
    '12h',
  ],
  project,
).trim();

console.log(`
Serving ${definition} from .demo/${name} at http://${env.HOST}:${env.PORT}${prefix} (its routes: .demo/${name}/README.md)
An administrator token for this run (12 hours):

  TOKEN=${token}

  curl http://${env.HOST}:${env.PORT}${prefix}/${first} -H "authorization: Bearer $TOKEN"
`);
const server = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
  cwd: project,
  stdio: 'inherit',
  env,
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => process.exit(code ?? 0));
