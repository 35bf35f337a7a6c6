import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { main } from '../../src/cli.js';

const run = promisify(execFile);

export const ROOT = resolve(import.meta.dirname, '../..');
/** Generated projects live under the repo so that they resolve the repo's node_modules (no install per test). */
export const WORK = join(ROOT, '.tmp');
/** TypeScript 7, the compiler generated projects use (the repo itself builds with TypeScript 6). */
export const TSC7 = join(ROOT, 'node_modules/typescript7/bin/tsc');

/** Runs the CLI in-process and returns its exit code and output. */
export async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    ['node', 'restsmith', ...args],
    (l) => out.push(l),
    (l) => err.push(l),
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Generates `definition` into a fresh directory under .tmp/ and returns that directory. */
export async function generateFresh(definition: string, name: string): Promise<string> {
  const dir = join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const result = await cli('generate', definition, '--out', dir);
  if (result.code !== 0) throw new Error(`generate failed (${result.code}):\n${result.err}`);
  return dir;
}

/** Type-checks (sources and tests) and builds a generated project with its own compiler, TypeScript 7. */
export async function typecheckAndBuild(dir: string): Promise<void> {
  // generated code has no unused names (the users' tsconfig does not ask for that: their code may)
  await run(process.execPath, [TSC7, '-p', 'tsconfig.json', '--noUnusedLocals'], { cwd: dir });
  await run(process.execPath, [TSC7, '-p', 'tsconfig.build.json'], { cwd: dir });
}

/** A module of a built project: `path` under its `dist` (`db/open.js`), typed as the test expects it. */
export async function loadBuilt<T>(dist: string, path: string): Promise<T> {
  return (await import(pathToFileURL(join(dist, path)).href)) as T;
}

/** Generates `definition` into .tmp/`name`, type-checks and builds it, and serves it: what most end-to-end tests start with. */
export async function serveGenerated(
  definition: string,
  name: string,
  env: Record<string, string>,
  healthPath = '/healthz',
): Promise<{ dir: string; server: RunningServer }> {
  const dir = await generateFresh(definition, name);
  await typecheckAndBuild(dir);
  return { dir, server: await startServer(dir, env, healthPath) };
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export interface RunningServer {
  url: string;
  process: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts a built project (`node dist/main.js`, after `nodeArgs`: `--import ./dist/telemetry/preload.js` as `npm start`
 * has it) on a free port of 127.0.0.1 and waits for /healthz.
 */
export async function startServer(
  dir: string,
  env: Record<string, string> = {},
  healthPath = '/healthz',
  nodeArgs: readonly string[] = [],
): Promise<RunningServer> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [...nodeArgs, 'dist/main.js'], {
    cwd: dir,
    // tests send more than a rate limit allows unless they test it (RATE_LIMIT_MAX: '' restores the definition's),
    // and stop their servers without the drain's delay unless they test it (SHUTDOWN_DELAY)
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '0',
      SHUTDOWN_DELAY: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  };
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      const response = await fetch(url + healthPath);
      if (response.ok) return { url, process: child, output: () => output, stop };
    } catch {
      // not listening yet
    }
    await new Promise((wait) => setTimeout(wait, 100));
  }
  await stop();
  throw new Error(`server did not answer ${healthPath} within 10 s:\n${output}`);
}

/** Starts a built project expecting it to refuse: resolves to its exit code and what it printed on stderr. */
export async function startToFailure(
  dir: string,
  env: Record<string, string>,
): Promise<{ code: number; stderr: string }> {
  const outcome = await run(process.execPath, ['dist/main.js'], {
    cwd: dir,
    env: { ...process.env, ...env, PORT: '0' },
  }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
  return outcome;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** One HTTP request with a JSON body (or raw text), parsed JSON answer. */
export async function http(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    init.headers = { 'content-type': 'application/json', ...headers };
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/**
 * A project regenerated from successive versions of one definition, as a user's project evolves: `generate` writes
 * the definition (`file`, beside the project under .tmp/) and runs `restsmith generate` on the project (a fresh
 * directory at first), throwing with its message when it fails; `serve` runs the built project for the time of `use`.
 */
export function evolvingProject(name: string, file: string) {
  const dir = join(WORK, name);
  const definitionFile = join(WORK, `${name}-definition`, file);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(WORK, `${name}-definition`), { recursive: true });
  return {
    dir,
    async generate(yaml: string): Promise<string> {
      writeFileSync(definitionFile, yaml);
      const result = await cli('generate', definitionFile, '--out', dir);
      if (result.code !== 0) throw new Error(`generate failed (${result.code}):\n${result.err}`);
      return result.out;
    },
    async serve<T>(env: Record<string, string>, use: (url: string) => Promise<T>): Promise<T> {
      const server = await startServer(dir, env);
      try {
        return await use(server.url);
      } finally {
        await server.stop();
      }
    },
    remove: (): void => rmSync(dir, { recursive: true, force: true }),
  };
}
