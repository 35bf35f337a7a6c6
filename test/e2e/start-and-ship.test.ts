import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseUrl } from '../helpers/database.js';
import { freePort, generateFresh, http, ROOT, typecheckAndBuild } from '../helpers/project.js';

const run = promisify(execFile);

/**
 * SPEC §11 "Start": `npm start` on a production install of a built tree (`npm ci --omit=dev`) and on a fresh
 * development install alike, SIGTERM to npm stopping the server; and what of the Dockerfile this machine can check
 * without a Docker engine. Each project is a copy outside the repository (so that nothing resolves the repo's own
 * packages by walking up), its node_modules made of links to the repo's packages: every one for a development
 * install (TypeScript 7 as `typescript`), the project's dev dependencies left out for a production one. No
 * `npm install` runs: that is standalone-install.test.ts's.
 */
let dir: string;
const copies: string[] = [];

beforeAll(async () => {
  dir = await generateFresh(`${ROOT}/test/e2e/fixtures/shop.yaml`, 'e2e-start');
  await typecheckAndBuild(dir);
});

afterAll(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

/** The generated project's dev dependencies (src/generate/project-files.ts), and the repo's TypeScript 7. */
const DEVELOPMENT = new Set(['typescript', 'typescript7', 'tsx', '@types']);

/** node_modules for `project`: links to the repo's packages, without the dev ones unless `dev`. */
function install(project: string, dev: boolean): void {
  const modules = join(project, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name.startsWith('.') || DEVELOPMENT.has(name)) continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  }
  if (!dev) return;
  symlinkSync(join(ROOT, 'node_modules/typescript7'), join(modules, 'typescript'));
  symlinkSync(join(ROOT, 'node_modules/@types'), join(modules, '@types'));
  symlinkSync(join(ROOT, 'node_modules/tsx'), join(modules, 'tsx'));
  mkdirSync(join(modules, '.bin'));
  symlinkSync('../typescript/bin/tsc', join(modules, '.bin/tsc'));
}

/** A copy of the generated project outside the repo: `paths` of it only (all but node_modules when left out). */
function copyOf(paths?: readonly string[]): string {
  const copy = mkdtempSync(join(tmpdir(), 'restsmith-start-'));
  copies.push(copy);
  for (const path of paths ?? readdirSync(dir)) cpSync(join(dir, path), join(copy, path), { recursive: true });
  return copy;
}

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs `command` in `cwd` with a server's environment on a free port of 127.0.0.1. */
async function launch(cwd: string, command: string[], env: Record<string, string> = {}): Promise<Started> {
  const port = await freePort();
  const [file = '', ...args] = command;
  const child = spawn(file, args, {
    cwd,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: await databaseUrl('start', 'sqlite:./data/start.db'),
      LOG_LEVEL: 'info',
      SHUTDOWN_DELAY: '200',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/** Waits (60 s at most: a build may come first) until `/livez` answers 200. */
async function live(started: Started): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 200) {
    if (started.child.exitCode !== null) throw new Error(`exited with ${started.child.exitCode}:\n${started.output()}`);
    if (
      await fetch(`${started.url}/livez`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((wait) => setTimeout(wait, 200));
  }
  started.child.kill('SIGKILL');
  throw new Error(`no answer on /livez:\n${started.output()}`);
}

/** The process id the server logs (pino's `pid` on every line), and its parent's, read from /proc. */
function serverProcess(output: string): { pid: number; parent: number } {
  const pid = Number(/"pid":(\d+)/.exec(output)?.[1]);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return { pid, parent: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) };
}

const gone = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
};

describe('npm start', () => {
  it(
    'runs a built tree on a production install, and SIGTERM to npm stops the server cleanly',
    { timeout: 120_000 },
    async () => {
      const project = copyOf();
      install(project, false);
      expect(existsSync(join(project, 'node_modules/typescript'))).toBe(false);
      const npm = await launch(project, ['npm', 'start']);
      await live(npm);
      const server = serverProcess(npm.output());
      // exec: the server took the place of npm's shell, so npm's own child is the server
      expect(server.parent).toBe(npm.child.pid);
      npm.child.kill('SIGTERM');
      expect(await npm.exited).toBe(0); // npm exits with the server's code
      expect(gone(server.pid)).toBe(true);
      expect(npm.output()).toMatch(/"msg":"shutting down: \/readyz answers 503, requests are served for 200 ms more"/);
      expect(npm.output()).toMatch(/"msg":"stopped"/);
    },
  );

  it('builds first on a fresh development install, then serves', { timeout: 120_000 }, async () => {
    const project = copyOf(readdirSync(dir).filter((path) => path !== 'dist' && path !== 'data'));
    install(project, true);
    const npm = await launch(project, ['npm', 'start']);
    await live(npm);
    expect(existsSync(join(project, 'dist/main.js'))).toBe(true);
    npm.child.kill('SIGTERM');
    expect(await npm.exited).toBe(0);
  });

  it('says what to do, in one line, on a production install of a tree never built', { timeout: 60_000 }, async () => {
    const project = copyOf(readdirSync(dir).filter((path) => path !== 'dist'));
    install(project, false);
    const npm = await launch(project, ['npm', 'start', '--silent']);
    expect(await npm.exited).toBe(1);
    expect(npm.output().trim()).toBe(
      'dist/main.js is missing, and the TypeScript compiler is not installed to build it: run `npm install` (with the dev dependencies), then `npm run build`',
    );
  });
});

/** The Dockerfile's instructions, continuation lines joined. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [op = '', ...rest] = line.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

describe('the Dockerfile, as far as this machine can check it (no Docker engine)', () => {
  const steps = () => instructions(readFileSync(join(dir, 'Dockerfile'), 'utf8'));

  it('copies only files a generated project has, none of them left out by .dockerignore', () => {
    const ignored = readFileSync(join(dir, '.dockerignore'), 'utf8').split('\n').filter(Boolean);
    const sources = steps()
      .filter((step) => step.op === 'COPY' && !step.args.startsWith('--from'))
      .flatMap((step) => step.args.split(' ').slice(0, -1));
    expect(sources).toEqual(['package*.json', 'tsconfig.json', 'tsconfig.build.json', 'src', 'scripts']);
    for (const source of sources) {
      const pattern = new RegExp(`^${source.replaceAll('.', '\\.').replaceAll('*', '.*')}$`);
      const matching = readdirSync(dir).filter((path) => pattern.test(path));
      expect([source, matching.length > 0]).toEqual([source, true]);
      expect(matching.filter((path) => ignored.includes(path))).toEqual([]);
    }
  });

  it(
    'builds from what it copies, and the image it makes serves and passes its HEALTHCHECK',
    { timeout: 180_000 },
    async () => {
      const all = steps();
      const stages = all.map((step) => step.op).filter((op) => op === 'FROM').length;
      expect(stages).toBe(2);
      // the build stage: the files its COPY lines take, a development install in place of `npm ci`, then its RUN
      // line that builds (`npm prune --omit=dev` would edit the linked packages: the final stage installs none of them)
      const build = copyOf(['package.json', 'tsconfig.json', 'tsconfig.build.json', 'src']);
      install(build, true);
      const runs = all.filter((step) => step.op === 'RUN').map((step) => step.args);
      expect(runs).toContain('npm run build && npm prune --omit=dev');
      await run('npm', ['run', 'build'], { cwd: build });
      // the final stage: what it copies from the build, a production install, its ENV (on a free port of 127.0.0.1)
      const image = copyOf(['package.json', 'scripts']);
      for (const step of all.filter((s) => s.op === 'COPY' && s.args.startsWith('--from=build'))) {
        const [, from = ''] = step.args.split(' ');
        if (from === '/app/node_modules') continue;
        expect(existsSync(join(build, from.replace('/app/', '')))).toBe(true);
        if (from !== '/app/package.json')
          cpSync(join(build, from.replace('/app/', '')), join(image, from.replace('/app/', '')), { recursive: true });
      }
      install(image, false);
      mkdirSync(join(image, 'data'));
      const env = Object.fromEntries(
        (all.find((step) => step.op === 'ENV')?.args ?? '')
          .split(' ')
          .map((pair) => pair.split('=') as [string, string]),
      );
      expect(env).toMatchObject({ NODE_ENV: 'production', HOST: '0.0.0.0', PORT: '3000' });
      const cmd = JSON.parse(all.find((step) => step.op === 'CMD')?.args ?? '[]') as string[];
      const healthcheck = all.find((step) => step.op === 'HEALTHCHECK')?.args ?? '';
      const probe = JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD ') + 4)) as string[];
      expect(probe).toEqual(['node', 'dist/healthcheck.js']);

      // the image's own HOST and PORT aside: test servers listen on a free port of 127.0.0.1
      const imageEnv: Record<string, string> = { ...env };
      delete imageEnv.HOST;
      delete imageEnv.PORT;
      const server = await launch(image, cmd, imageEnv);
      const port = new URL(server.url).port;
      const check = () =>
        run(probe[0] ?? '', probe.slice(1), {
          cwd: image,
          env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: port },
        }).then(
          () => 0,
          (error: { code: number }) => error.code,
        );
      try {
        await live(server);
        expect(await check()).toBe(0);
      } finally {
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
      }
      expect(await check()).toBe(1);
    },
  );
});
