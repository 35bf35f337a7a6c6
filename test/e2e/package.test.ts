import { execFile } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, ROOT, WORK } from '../helpers/project.js';

const execFileAsync = promisify(execFile);

/**
 * restsmith as its users get it until it is published (README, "Use it on your own API"): `npm pack`, then
 * `npm install -g` of the tarball into an empty prefix, and `restsmith init`, `validate` and `generate` run from there,
 * in a folder outside this repository, with an environment that names nothing of it (no NODE_PATH, no PATH entry, no
 * npm variable of the npm running the tests). npm reuses its cache (--prefer-offline): the CLI's dependencies are
 * packages this repository installs too. SQLite or PostgreSQL makes no difference here: the SQLite run has it.
 */
interface Manifest {
  version: string;
  files: string[];
  dependencies: Record<string, string>;
}

interface Packed {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
const scratch = mkdtempSync(join(tmpdir(), 'restsmith-package-'));
const prefix = join(scratch, 'prefix');
const work = join(scratch, 'work');
const installed = join(prefix, 'lib/node_modules/restsmith');
const restsmith = join(prefix, 'bin/restsmith');
const reference = join(WORK, 'package-reference');
const seconds: Record<string, number> = {};

/** The environment of a user's shell: nothing in it points into this repository, and no npm runs around it. */
function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || value.includes(ROOT) || key === 'NODE_PATH' || key === 'INIT_CWD') continue;
    // the npm running the tests sets npm_package_*, npm_lifecycle_* and more; a user's npm settings (the cache, the
    // registry) are npm_config_*
    if (key.toLowerCase().startsWith('npm_') && !key.toLowerCase().startsWith('npm_config_')) continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => !entry.startsWith(ROOT))
    .join(delimiter);
  return env;
}

const ENV = userEnvironment();

/** Runs `command` in `cwd` with the user's environment: its exit code and output, whatever the code. */
async function run(command: string, args: string[], cwd: string): Promise<Ran> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, { cwd, env: ENV, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** `run`, timed into `seconds[label]`, expected to succeed. */
async function timed(label: string, command: string, args: string[], cwd: string): Promise<Ran> {
  const started = performance.now();
  const ran = await run(command, args, cwd);
  seconds[label] = (seconds[label] ?? 0) + (performance.now() - started) / 1000;
  if (ran.code !== 0) throw new Error(`${label} failed (${ran.code}):\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

/** The files under `dir`, as sorted paths relative to it. */
function filesUnder(dir: string, prefixPath = ''): string[] {
  return readdirSync(join(dir, prefixPath), { withFileTypes: true })
    .flatMap((entry) => {
      const path = prefixPath === '' ? entry.name : `${prefixPath}/${entry.name}`;
      return entry.isDirectory() ? filesUnder(dir, path) : [path];
    })
    .sort();
}

/** What a tarball may hold: the code, the templates, the runtime and the docs, by the shape of their names. */
const SHIPPED =
  /^(package\.json|README\.md|LICENSE|bin\/[\w-]+\.m?js|dist\/[\w-]+\.js(\.map)?|docs\/[\w-]+\.md|runtime\/(src|test)\/[\w/.-]+\.(ts|json)|runtime\/scripts\/[\w-]+\.js|templates\/[\w/.-]+\.hbs)$/;

let packed: Packed = { filename: '', size: 0, unpackedSize: 0, entryCount: 0, files: [] };

beforeAll(async () => {
  // packed from a copy of what the package is made from: `prepack` builds dist/ there, not under the other tests
  // that run this repository's dist/ meanwhile
  const source = join(scratch, 'source');
  for (const path of [
    'package.json',
    'README.md',
    'tsconfig.json',
    'tsconfig.build.json',
    'scripts/build.mjs',
    'src',
  ]) {
    cpSync(join(ROOT, path), join(source, path), { recursive: true });
  }
  for (const path of manifest.files.filter((entry) => entry !== 'dist')) {
    cpSync(join(ROOT, path), join(source, path), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  const pack = await timed(
    'npm pack (prepack builds)',
    'npm',
    ['pack', '--json', '--pack-destination', scratch],
    source,
  );
  [packed] = JSON.parse(pack.stdout) as [Packed];

  mkdirSync(prefix);
  const install = await timed(
    'npm install -g',
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(scratch, packed.filename),
    ],
    scratch,
  );
  // no script of restsmith's runs at install, nor is one reported as waiting for approval
  expect(install.stderr).not.toMatch(/install.scripts/i);
  mkdirSync(work);
}, 600_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(reference, { recursive: true, force: true });
  const spent = Object.entries(seconds).map(([label, s]) => `${label} ${s.toFixed(1)} s`);
  console.log(`the package (${packed.size} bytes packed, ${packed.entryCount} files): ${spent.join(', ')}`);
});

describe('the package', () => {
  it('holds dist/, the templates, the runtime and the docs, and nothing else', () => {
    const paths = packed.files.map((file) => file.path);
    expect(paths).toEqual(expect.arrayContaining(['bin/restsmith.js', 'dist/cli.js', 'dist/precompiled-templates.js']));
    expect(paths.filter((path) => !SHIPPED.test(path))).toEqual([]);
  });

  it("holds no leftover of this repository's own folders (tests, scratch projects, the benchmark)", async () => {
    const dry = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT);
    expect(dry.code).toBe(0);
    const [listed] = JSON.parse(dry.stdout) as [Packed];
    expect(listed.files.map((file) => file.path).filter((path) => !SHIPPED.test(path))).toEqual([]);
  });

  it('is installed as a copy of its own, with the dependencies of the CLI only', () => {
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(lstatSync(restsmith).isSymbolicLink()).toBe(true);
    for (const name of Object.keys(manifest.dependencies)) {
      expect(existsSync(join(installed, 'node_modules', name, 'package.json')), name).toBe(true);
    }
  });

  it('is what the README says to install', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`npm install -g ./${packed.filename}`);
  });
});

describe('the installed CLI, outside this repository', () => {
  it('runs from a folder outside it', async () => {
    expect(relative(ROOT, work).startsWith('..')).toBe(true);
    expect((await timed('--version', restsmith, ['--version'], work)).stdout.trim()).toBe(manifest.version);
  });

  it('writes a starter definition that validates', async () => {
    const init = await timed('init', restsmith, ['init', 'api.yaml'], work);
    expect(init.stdout).toContain('wrote api.yaml');
    const validate = await timed('validate', restsmith, ['validate', 'api.yaml'], work);
    expect(validate.stdout).toMatch(/^api\.yaml: valid \(2 resources\)$/m);
  });

  it('reports a broken definition at its file, line and column, and exits 1', async () => {
    const lines = ['name: broken', 'version: 1.0.0', 'resources:', '  posts:', '    fields:', '      title:'];
    lines.push('        type: strng', '        required: true');
    writeFileSync(join(work, 'broken.yaml'), `${lines.join('\n')}\n`);
    const line = lines.findIndex((text) => text.includes('strng')) + 1;
    const column = (lines[line - 1] ?? '').indexOf('strng') + 1;
    const validate = await run(restsmith, ['validate', 'broken.yaml'], work);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain(`broken.yaml:${line}:${column}`);
    expect(validate.stderr).toContain('unknown type "strng"');
  });

  it("generates the project this repository's restsmith generates, naming neither the repository nor the install", async () => {
    await timed('generate', restsmith, ['generate', 'api.yaml', '--out', 'my-api'], work);
    const project = join(work, 'my-api');
    mkdirSync(reference, { recursive: true });
    cpSync(join(work, 'api.yaml'), join(reference, 'api.yaml'));
    const fromRepo = await cli('generate', join(reference, 'api.yaml'), '--out', join(reference, 'my-api'));
    expect(fromRepo.code).toBe(0);
    const files = filesUnder(project);
    expect(files).toEqual(filesUnder(join(reference, 'my-api')));
    expect(files).toEqual(expect.arrayContaining(['package.json', 'src/main.ts', 'src/resources/tasks/store.ts']));
    for (const file of files) {
      const text = readFileSync(join(project, file), 'utf8');
      expect(text.includes(ROOT) || text.includes(prefix), file).toBe(false);
    }
    // a generated project's dependencies are its own: none of them comes with the CLI
    const { dependencies } = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as Manifest;
    const own = Object.keys(dependencies).filter((name) => !(name in manifest.dependencies));
    expect(own).toContain('fastify');
    expect(own.filter((name) => existsSync(join(installed, 'node_modules', name)))).toEqual([]);
  });

  it("regenerates: a handler stub grown into the user's handlers file (ts-morph), then nothing left to do", async () => {
    const action = (name: string): string => `      ${name}:\n        on: item\n        access: [member]\n`;
    appendFileSync(join(work, 'api.yaml'), action('archive'));
    await timed('generate', restsmith, ['generate', 'api.yaml', '--out', 'my-api'], work);
    const handlers = join(work, 'my-api/src/handlers/tasks.ts');
    expect(readFileSync(handlers, 'utf8')).toContain('archive');
    appendFileSync(join(work, 'api.yaml'), action('reopen'));
    await timed('generate', restsmith, ['generate', 'api.yaml', '--out', 'my-api'], work);
    expect(readFileSync(handlers, 'utf8')).toMatch(/archive[\s\S]*reopen/);
    const check = await timed(
      'generate --check',
      restsmith,
      ['generate', 'api.yaml', '--out', 'my-api', '--check'],
      work,
    );
    expect(check.stdout).toContain('is up to date');
  });
});
