import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './lib.js';

/**
 * A definition of `count` resources, each with a ref to the previous one and a field of every common type; `added`
 * more fields on the middle resource: the edits of the edit-regenerate loop.
 */
function definition(count: number, added = 0): string {
  const resources = Array.from({ length: count }, (_, i) => {
    const ref = i === 0 ? '' : `\n      parentId: { type: ref, to: r${i - 1}, nullable: true, onDelete: setNull }`;
    return `  r${i}:
    fields:
      title: { type: string, required: true, maxLength: 200 }
      body: text
      count: { type: integer, default: 0 }
      score: { type: number, nullable: true }
      done: { type: boolean, default: false }
      kind: { type: enum, values: [a, b, c], default: a }
      dueOn: date
      meta: json${ref}${i === Math.floor(count / 2) ? notes(added) : ''}`;
  });
  return `name: speed\nversion: 1.0.0\nauth: { default: public }\nresources:\n${resources.join('\n')}\n`;
}

const notes = (count: number): string =>
  Array.from({ length: count }, (_, n) => `\n      note${n + 1}: { type: string, maxLength: 500 }`).join('');

export interface Speed {
  resources: number;
  coldMs: number;
  noopMs?: number;
  /** one field added to one resource, then regenerate */
  editMs?: number;
  /** the same edit saved while `generate --watch` runs: from the save to the line saying the files were written */
  watchEditMs?: number;
}

/**
 * Wall time of `restsmith generate` in a new process: cold, for 1, 10 and 100 resources; at 100, a no-op regenerate
 * and the loop users live in: a field added to one resource, regenerated.
 */
export async function generatorSpeed(root: string, work: string, smoke: boolean): Promise<Speed[]> {
  const dir = join(work, 'speed');
  mkdirSync(dir, { recursive: true });
  const timed = (file: string, out: string): number => {
    const started = process.hrtime.bigint();
    execFileSync(process.execPath, [join(root, 'bin/restsmith.js'), 'generate', file, '--out', out], {
      stdio: 'ignore',
    });
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const repeats = smoke ? 1 : 3;
  const speeds = [1, 10, 100].map((count) => {
    const file = join(dir, `speed-${count}.yaml`);
    writeFileSync(file, definition(count));
    const out = join(dir, `out-${count}`);
    const cold = Array.from({ length: repeats }, () => {
      rmSync(out, { recursive: true, force: true });
      return timed(file, out);
    });
    if (count !== 100) return { resources: count, coldMs: median(cold) };
    const noop = Array.from({ length: repeats }, () => timed(file, out));
    // each edit adds one more field (and a migration), as a user's edits do
    const edit = Array.from({ length: repeats }, (_, n) => {
      writeFileSync(file, definition(count, n + 1));
      return timed(file, out);
    });
    return { resources: count, coldMs: median(cold), noopMs: median(noop), editMs: median(edit) };
  });
  const last = speeds.at(-1);
  const file = join(dir, 'speed-100.yaml');
  const edits = smoke ? 1 : Number(process.env.EDITS ?? 5);
  const watched = await watchEdits(root, file, join(dir, 'out-100'), repeats, edits);
  return last === undefined ? speeds : [...speeds.slice(0, -1), { ...last, watchEditMs: median(watched) }];
}

/**
 * `generate --watch` on the project the edits above left; then `edits` more fields added one save at a time, each
 * timed from the save to the line that says the files were written (the 50 ms the watch lets a save settle
 * included). The first save after the start counts too: it is the slowest (the code is not optimised yet), as it is
 * for a user.
 */
async function watchEdits(root: string, file: string, out: string, done: number, edits: number): Promise<number[]> {
  const child = spawn(process.execPath, [join(root, 'bin/restsmith.js'), 'generate', file, '--out', out, '--watch'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let waiting: ((line: string) => void) | undefined;
  let failed: ((error: Error) => void) | undefined;
  const output: string[] = [];
  // a run ends with a line saying what it did and `; watching`: on stdout when it wrote, on stderr when it failed
  for (const stream of [child.stdout, child.stderr]) {
    let text = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const lines = text.split('\n');
      text = lines.pop() ?? '';
      output.push(...lines);
      for (const line of lines) if (line.includes('; watching ')) waiting?.(line);
    });
  }
  const exited = new Promise<void>((resolve) =>
    child.on('exit', (code) => {
      failed?.(new Error(`generate --watch exited (${code}):\n${output.slice(-20).join('\n')}`));
      resolve();
    }),
  );
  const next = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('generate --watch ended no run for 120 s')), 120_000);
      waiting = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
      failed = (error) => {
        clearTimeout(timer);
        reject(error);
      };
    });
  try {
    await next();
    const times: number[] = [];
    for (let n = 1; n <= edits; n++) {
      const written = next();
      const started = process.hrtime.bigint();
      writeFileSync(file, definition(100, done + n));
      const line = await written;
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (!line.startsWith('wrote '))
        throw new Error(`generate --watch did not write:\n${output.slice(-20).join('\n')}`);
    }
    return times;
  } finally {
    failed = undefined;
    child.kill('SIGINT');
    await exited;
  }
}
