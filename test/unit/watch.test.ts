import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { checkWatchOptions, watchDefinition } from '../../src/commands/watch.js';
import type { GenerateResult } from '../../src/commands/generate.js';
import { UserError } from '../../src/errors.js';
import { ROOT } from '../helpers/project.js';

const scratch = mkdtempSync(join(tmpdir(), 'restsmith-watch-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const definition = (fields: string): string =>
  `name: shelf\nversion: 1.0.0\nauth: { default: public }\nresources:\n  books:\n    fields:\n${fields}`;

/** Waits until `lines` holds one matching `pattern` after the first `after` lines; returns it. */
async function lineAfter(lines: string[], after: number, pattern: RegExp): Promise<string> {
  return vi.waitFor(
    () => {
      const found = lines.slice(after).find((line) => pattern.test(line));
      if (found === undefined) throw new Error(`no line matching ${pattern} yet: ${lines.slice(after).join('\n')}`);
      return found;
    },
    { timeout: 60_000, interval: 50 },
  );
}

/** `generate --watch` of `file` into `out`, its output and errors collected; `stop` ends it. */
function watchWith(file: string, out: string) {
  const lines: string[] = [];
  const errors: string[] = [];
  const stop = new AbortController();
  const watching = watchDefinition(file, {
    out,
    signal: stop.signal,
    print: (line) => lines.push(line),
    printError: (line) => errors.push(line),
  });
  return { lines, errors, stop, watching };
}

describe('generate --watch', () => {
  it('generates, then again on each save; a broken save is reported with its position and writes nothing', async () => {
    const dir = mkdtempSync(join(scratch, 'run-'));
    const file = join(dir, 'shelf.yaml');
    const out = join(dir, 'shelf');
    writeFileSync(file, definition('      title: { type: string, required: true }\n'));
    const { lines, errors, stop, watching } = watchWith(file, out);
    await lineAfter(lines, 0, /^wrote \d+ files to .*shelf \(\d+\.\d\d s\); watching /);
    const model = join(out, 'src/resources/books/model.ts');
    expect(readFileSync(model, 'utf8')).not.toContain('isbn');

    let seen = lines.length;
    writeFileSync(file, definition('      title: { type: string, required: true }\n      isbn: string\n'));
    await lineAfter(lines, seen, /^wrote \d+ files/);
    expect(readFileSync(model, 'utf8')).toContain('isbn');
    expect(lines.slice(seen)).toContain('create    src/db/migrations/0002-change-books.ts');

    writeFileSync(file, definition('      title: { type: strin, required: true }\n      isbn: string\n'));
    await lineAfter(errors, 0, /^nothing written; watching /);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/shelf\.yaml:7:\d+ {2}resources\.books\.fields\.title\.type {2}/);
    expect(readFileSync(model, 'utf8')).toContain('isbn');

    // a field removed: a data loss, refused, with the one command that accepts it
    const errorsSeen = errors.length;
    writeFileSync(file, definition('      title: { type: string, required: true }\n'));
    await lineAfter(errors, errorsSeen, /^nothing written; watching /);
    expect(errors.slice(errorsSeen).join('\n')).toContain('books.isbn is removed');
    expect(errors.slice(errorsSeen)).toContain(
      `to accept it, run \`restsmith generate ${file} --allow-data-loss\` once: this watch goes on`,
    );

    // back as it was: nothing to write, and said so
    seen = lines.length;
    writeFileSync(file, definition('      title: { type: string, required: true }\n      isbn: string\n'));
    await lineAfter(lines, seen, /is up to date \(\d+\.\d\d s\); watching /);

    stop.abort();
    await expect(watching).resolves.toBeUndefined();
    expect(errors.some((line) => /at .+\.ts:\d+/.test(line))).toBe(false);
  });

  it('sees saves by rename, through a symbolic link, and in two writes (emptied first)', async () => {
    const dir = mkdtempSync(join(scratch, 'saves-'));
    const real = join(dir, 'real');
    mkdirSync(real);
    const file = join(real, 'shelf.yaml');
    const link = join(dir, 'shelf.yaml');
    symlinkSync(file, link);
    const out = join(dir, 'shelf');
    const fields = (...names: string[]) =>
      definition(['      title: string', ...names.map((n) => `      ${n}: string`)].join('\n') + '\n');
    writeFileSync(file, fields());
    const { lines, errors, stop, watching } = watchWith(link, out);
    await lineAfter(lines, 0, /^wrote /);
    const model = join(out, 'src/resources/books/model.ts');
    const has = (name: string) => readFileSync(model, 'utf8').includes(name);

    // an editor's save: a new file renamed over the old one, in the folder the link leads to
    let seen = lines.length;
    writeFileSync(`${file}.tmp`, fields('isbn'));
    renameSync(`${file}.tmp`, file);
    await lineAfter(lines, seen, /^wrote /);
    expect(has('isbn')).toBe(true);

    // `… > shelf.yaml`: emptied, then written a moment later; the empty file is no save to report
    seen = lines.length;
    writeFileSync(file, '');
    await new Promise((resolve) => setTimeout(resolve, 300));
    writeFileSync(file, fields('isbn', 'pages'));
    await lineAfter(lines, seen, /^wrote /);
    expect(has('pages')).toBe(true);

    stop.abort();
    await watching;
    expect(errors).toEqual([]);
  });

  it('runs again for a save made during a run, once it ends, and never two runs at once', async () => {
    const dir = mkdtempSync(join(scratch, 'during-'));
    const file = join(dir, 'shelf.yaml');
    writeFileSync(file, definition('      title: string\n'));
    const texts: string[] = [];
    let running = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const held = (): Promise<void> => new Promise((resolve) => (release = resolve));
    let gate = Promise.resolve();
    // a run that reads the definition, then waits until the test lets it finish
    const generate = async (path: string): Promise<GenerateResult> => {
      running += 1;
      most = Math.max(most, running);
      texts.push(readFileSync(path, 'utf8'));
      await gate;
      running -= 1;
      return {
        outDir: dir,
        changes: [{ path: 'x', owner: 'generator', kind: 'update' }],
        migration: undefined,
        written: true,
      };
    };
    const lines: string[] = [];
    const stop = new AbortController();
    const watching = watchDefinition(file, {
      signal: stop.signal,
      print: (line) => lines.push(line),
      printError: () => undefined,
      generate,
    });
    await lineAfter(lines, 0, /^wrote 1 files/);
    gate = held();
    writeFileSync(file, definition('      title: string\n      isbn: string\n'));
    await vi.waitFor(() => expect(texts).toHaveLength(2), { timeout: 10_000, interval: 20 });
    // saved twice while the run is held: both are seen once it ends, in one more run with the last text
    writeFileSync(file, definition('      title: string\n      pages: string\n'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    writeFileSync(file, definition('      title: string\n      author: string\n'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(texts).toHaveLength(2);
    release();
    await vi.waitFor(() => expect(texts).toHaveLength(3), { timeout: 10_000, interval: 20 });
    expect(texts[2]).toContain('author');
    stop.abort();
    await watching;
    expect([texts.length, most]).toEqual([3, 1]);
  });

  it('stops on an output folder that is no project: no save can make it one', async () => {
    const dir = mkdtempSync(join(scratch, 'target-'));
    const file = join(dir, 'shelf.yaml');
    writeFileSync(file, definition('      title: string\n'));
    mkdirSync(join(dir, 'taken'));
    writeFileSync(join(dir, 'taken', 'notes.txt'), 'mine');
    const signal = new AbortController().signal;
    await expect(
      watchDefinition(file, { out: join(dir, 'taken'), signal, print: () => undefined, printError: () => undefined }),
    ).rejects.toThrow(/is not empty and restsmith did not generate it/);
  });

  it('stops at once on a file that is no definition (a usage error), a file or a folder that does not exist', async () => {
    const signal = new AbortController().signal;
    const quiet = { signal, print: () => undefined, printError: () => undefined };
    const text = join(scratch, 'notes.txt');
    writeFileSync(text, 'hello');
    await expect(watchDefinition(text, quiet)).rejects.toThrow(/must be a \.yaml, \.yml or \.json file/);
    await expect(watchDefinition(join(scratch, 'nowhere/api.yaml'), quiet)).rejects.toThrow(
      /cannot read .*nowhere\/api\.yaml: no such file/,
    );
    await expect(watchDefinition(join(scratch, 'typo.yaml'), quiet)).rejects.toThrow(/typo\.yaml: no such file/);
  });

  it.each([
    [{ check: true }, '--check'],
    [{ dryRun: true }, '--dry-run'],
    [{ force: true, allowDataLoss: true }, '--force, --allow-data-loss'],
  ])('refuses to watch with %j: it would apply to every save', (options, named) => {
    expect(() => checkWatchOptions(options)).toThrow(`--watch cannot be combined with ${named}:`);
    const error = (() => {
      try {
        checkWatchOptions(options);
      } catch (e) {
        return e;
      }
    })();
    // wrong usage, as an unknown option is
    expect(error instanceof UserError && error.exitCode).toBe(2);
  });

  it('exits 2 from the command line when --watch comes with --check', async () => {
    const { main } = await import('../../src/cli.js');
    const err: string[] = [];
    const code = await main(
      ['node', 'restsmith', 'generate', 'x.yaml', '--watch', '--check'],
      () => undefined,
      (l) => err.push(l),
    );
    expect([code, err.join('\n')]).toEqual([2, expect.stringContaining('--watch cannot be combined with --check')]);
  });

  it('accepts --out alone', () => {
    expect(() => checkWatchOptions({ out: 'x' })).not.toThrow();
  });

  it('the binary watches until Ctrl-C (SIGINT), then exits 0', async () => {
    const dir = mkdtempSync(join(scratch, 'bin-'));
    const file = join(dir, 'shelf.yaml');
    writeFileSync(file, definition('      title: string\n'));
    const child = spawn(process.execPath, [join(ROOT, 'bin/restsmith.js'), 'generate', file, '--watch'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await lineAfter(lines, 0, /^wrote \d+ files to .*shelf .*; watching /);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});
