import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, ROOT } from '../helpers/project.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'restsmith-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the built binary as a user would, and returns its exit code and output. */
async function bin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'bin/restsmith.js'), ...args], { cwd: scratch });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('exit codes and messages', () => {
  it.each([
    [['validate', join(ROOT, 'examples/blog.yaml')], 0],
    [['validate', join(ROOT, 'examples/invalid/many-problems.yaml')], 1],
    [['validate', join(ROOT, 'examples/nope.yaml')], 1],
    [['validate'], 2],
    [['frobnicate'], 2],
    [['generate', join(ROOT, 'examples/blog.yaml'), '--no-such-option'], 2],
    [['generate', join(ROOT, 'examples/blog.yaml'), '--check', '--dry-run'], 2],
    [['--help'], 0],
    [['--version'], 0],
  ])('restsmith %j exits %i', async (args, code) => {
    expect((await bin(...args)).code).toBe(code);
  });

  it('prints the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect((await bin('--version')).stdout.trim()).toBe(version);
  });

  it('prints every problem of a broken definition as file:line:col  path  message, without a stack', async () => {
    const { stderr } = await bin('validate', join(ROOT, 'examples/invalid/many-problems.yaml'));
    const lines = stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    for (const line of lines) expect(line).toMatch(/^\S+many-problems\.yaml:\d+:\d+ {2}\S+ {2}.+$/);
    expect(stderr).not.toMatch(/\bat .+\.js:\d+/);
  });
});

it('reports an internal error as a bug, with its stack and a request to report it', async () => {
  const { main } = await import('../../src/cli.js');
  const err: string[] = [];
  const failingOut = (): void => {
    throw new TypeError('boom');
  };
  const code = await main(['node', 'restsmith', 'validate', join(ROOT, 'examples/blog.yaml')], failingOut, (l) =>
    err.push(l),
  );
  expect(code).toBe(1);
  // after the definition's notes (see scan-notes.test.ts)
  const reported = err.filter((line) => !/(^| {2})note: /.test(line));
  expect(reported[0]).toMatch(/bug.*report/i);
  expect(reported[1]).toMatch(/TypeError: boom\n\s+at /);
});

describe('warnings', () => {
  // include paths that no request can be served: 100 tickets under one customer, 100 customers, 100 tickets each…
  const helpdesk = [
    'name: helpdesk',
    'version: "1"',
    'limits: { pageSize: { default: 100, max: 100 }, includeDepth: 5 }',
    'resources:',
    '  customers: { fields: { name: string } }',
    '  tickets: { fields: { customerId: { type: ref, to: customers, required: true } } }',
    '',
  ].join('\n');
  /** customers.name has no index (see test/unit/definition/scan-notes.test.ts) */
  const note =
    /^\S*helpdesk\.yaml:5:26 {2}resources\.customers\.fields\.name {2}note: listings read the whole table for /;
  const warning =
    /^\S*helpdesk\.yaml:3:63 {2}limits\.includeDepth {2}warning: .*could embed up to 1,020,200 records.*limits\.include\.maxRecords \(1,000\)/;

  it('validate prints them on stderr as file:line:col  path  warning: message, and exits 0', async () => {
    writeFileSync(join(scratch, 'helpdesk.yaml'), helpdesk);
    const { code, stdout, stderr } = await bin('validate', 'helpdesk.yaml');
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('helpdesk.yaml: valid (2 resources)');
    expect(stderr.trim().split('\n')).toEqual([
      expect.stringMatching(warning),
      expect.stringMatching(note),
      // once, after the notes of scans: what becomes of such a listing
      expect.stringMatching(
        /^note: the server runs a listing that reads the whole table apart .* 429 or 503 with Retry-After/,
      ),
    ]);
  });

  it('generate prints them too, and writes the project', async () => {
    writeFileSync(join(scratch, 'helpdesk.yaml'), helpdesk);
    const result = await cli(
      'generate',
      join(scratch, 'helpdesk.yaml'),
      '--out',
      join(scratch, 'helpdesk'),
      '--dry-run',
    );
    expect(result.code).toBe(0);
    // and how many fields have notes, which validate names
    expect(result.err.split('\n')).toEqual([
      expect.stringMatching(warning),
      'helpdesk.yaml  note: 1 field has notes (listings that would read the whole table, or trigram indexes of unbounded values): `restsmith validate helpdesk.yaml` names them',
    ]);
    expect(result.out).toMatch(/^create\s+src\/relations\/budget\.ts$/m);
  });

  it('are none for a definition within the budget (its notes are not warnings)', async () => {
    const { code, stderr } = await bin('validate', join(ROOT, 'examples/library.yaml'));
    expect(code).toBe(0);
    expect(stderr).not.toBe('');
    expect(
      stderr
        .trim()
        .split('\n')
        .filter((line) => !/(^| {2})note: /.test(line)),
    ).toEqual([]);
  });
});

describe('init', () => {
  it('writes a starter that validates and generates, and never overwrites a file', async () => {
    expect((await bin('init', 'starter.yaml')).code).toBe(0);
    expect(readFileSync(join(scratch, 'starter.yaml'), 'utf8')).toMatch(/^#/);
    expect((await bin('validate', 'starter.yaml')).code).toBe(0);
    const again = await bin('init', 'starter.yaml');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });
});

describe('generate', () => {
  it('--dry-run prints the plan and writes nothing', async () => {
    const out = join(scratch, 'dry');
    const result = await cli('generate', join(ROOT, 'examples/blog.yaml'), '--out', out, '--dry-run');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^create\s+src\/app\.ts$/m);
    expect(result.out).toMatch(/^create\s+src\/resources\/posts\/routes\.ts$/m);
    expect(existsSync(out)).toBe(false);
  });

  it('writes the project, then reports it unchanged, keeping user-owned files', async () => {
    const out = join(scratch, 'twice');
    expect((await cli('generate', join(ROOT, 'examples/blog.yaml'), '--out', out)).code).toBe(0);
    expect(existsSync(join(out, '.restsmith/manifest.json'))).toBe(true);
    const second = await cli('generate', join(ROOT, 'examples/blog.yaml'), '--out', out, '--dry-run');
    // what did not change is counted, not listed
    expect(second.out).toMatch(/^unchanged \d+ generated files$/m);
    expect(second.out).not.toMatch(/^unchanged\s+src\//m);
    expect(second.out).toMatch(/^keep\s+src\/main\.ts/m);
    expect(second.out).not.toMatch(/^(create|update)\s/m);
  });

  it('refuses a target that is a file, or a folder of other files, without writing anything', async () => {
    writeFileSync(join(scratch, 'a-file'), 'mine');
    const file = await cli('generate', join(ROOT, 'examples/blog.yaml'), '--out', join(scratch, 'a-file'));
    expect(file.code).toBe(1);
    expect(file.err).toMatch(/is a file/);
    mkdirSync(join(scratch, 'theirs'));
    writeFileSync(join(scratch, 'theirs/package.json'), '{}');
    const foreign = await cli('generate', join(ROOT, 'examples/blog.yaml'), '--out', join(scratch, 'theirs'));
    expect(foreign.code).toBe(1);
    expect(foreign.err).toMatch(/not empty and restsmith did not generate it/);
    expect(readFileSync(join(scratch, 'theirs/package.json'), 'utf8')).toBe('{}');
  });

  it('defaults the target directory to ./<name>', async () => {
    expect((await bin('generate', join(ROOT, 'examples/tasks.yaml'))).code).toBe(0);
    expect(existsSync(join(scratch, 'tasks/package.json'))).toBe(true);
  });
});

describe('schema', () => {
  it('prints a JSON Schema of the definition format', async () => {
    const { stdout, code } = await bin('schema');
    expect(code).toBe(0);
    const schema = JSON.parse(stdout) as Record<string, unknown>;
    expect(schema.$schema).toMatch(/json-schema\.org/);
    expect(JSON.stringify(schema)).toContain('resources');
  });
});

it('a conflict speaks of package.json only when package.json is among the files edited by hand', async () => {
  const { ConflictError } = await import('../../src/commands/generate.js');
  expect(new ConflictError(['src/resources/vets/store.ts']).message).not.toContain('package.json');
  expect(new ConflictError(["package.json: restsmith's entries edited: scripts.start"]).message).toContain(
    'In package.json only the entries restsmith writes count',
  );
});
