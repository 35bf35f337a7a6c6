import { existsSync, realpathSync, watch as watchFolder, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { UserError } from '../errors.js';
import { expectAnotherRun } from '../memo.js';
import type { GenerateOptions, GenerateResult } from './generate.js';

type Print = (line: string) => void;

export interface WatchOptions {
  out?: string;
  /** ends the watch: the run under way finishes first */
  signal: AbortSignal;
  print: Print;
  printError: Print;
  /** how long the definition must stay unchanged before a run: an editor's save is often several writes */
  settleMs?: number;
  /** what a run does: generate (commands/generate.ts); the tests give one they hold until they let it finish */
  generate?: (file: string, options: GenerateOptions) => Promise<GenerateResult>;
}

/** What `--watch` cannot be combined with: each would apply to every save, unseen. */
const ONE_SHOT: Record<string, string> = {
  dryRun: '--dry-run',
  check: '--check',
  force: '--force',
  allowDataLoss: '--allow-data-loss',
};

/** A usage error when `options` asks for something a watch does not do. */
export function checkWatchOptions(options: GenerateOptions): void {
  const given = Object.entries(ONE_SHOT)
    .filter(([key]) => options[key as keyof GenerateOptions] === true)
    .map(([, flag]) => flag);
  if (given.length > 0) {
    throw new UserError(
      `--watch cannot be combined with ${given.join(', ')}: a watch regenerates on every save, so run generate once ` +
        `with ${given.length === 1 ? 'it' : 'them'} instead`,
      2,
    );
  }
}

/**
 * `generate --watch`: generates once, then again each time the definition is saved, until `signal` aborts. The
 * process stays up, so the generator's modules are loaded once and its code is optimised after the first saves: the
 * loop of a user editing a definition. A run that fails (a problem in the definition, a refused migration, a
 * conflict) prints why, writes nothing, and the watch goes on; an internal error, a usage error or an output folder
 * that is no project ends it. The folder of the definition is watched rather than the file: editors save by writing
 * a new file and renaming it over the old.
 */
export async function watchDefinition(file: string, options: WatchOptions): Promise<void> {
  // the steps too, which a first run that has nothing to do does not load: the first save does not wait for them
  const [{ describeChanges, generate, wroteLine, TargetError }] = await Promise.all([
    import('./generate.js'),
    import('../pipeline/steps.js'),
  ]);
  // what a run makes is kept for the next (memo.ts): each save remakes only what it changed
  expectAnotherRun();
  // a name mistyped is not a file about to be saved: said at once (later, a save may remove it for a moment)
  if (!existsSync(file)) throw new UserError(`cannot read ${file}: no such file`);
  // a definition reached by a symbolic link is saved where the link leads: that folder is watched
  const path = realpathSync(resolve(file));
  const name = basename(path);
  let last: string | undefined;
  let runs = 0;
  const once = async (): Promise<void> => {
    const started = process.hrtime.bigint();
    runs += 1;
    // a save that empties the file first (`… > api.yaml`) is not over yet: its next write runs generate
    if (runs > 1 && (await readFile(path, 'utf8').catch(() => 'unread')).trim() === '') return;
    try {
      const result = await (options.generate ?? generate)(file, { out: options.out });
      const text = result.written ? wroteLine(result) : `${result.outDir} is up to date`;
      if (text === last && !result.written) return;
      for (const warning of result.warnings ?? []) options.printError(warning);
      if (result.written) for (const line of describeChanges(result)) options.print(line);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      options.print(`${text} (${seconds.toFixed(2)} s); watching ${file}`);
      last = text;
    } catch (error) {
      // a usage error (a file that is no definition) or a folder that is no project is not fixed by saving again
      if (!(error instanceof UserError) || error.exitCode === 2 || error instanceof TargetError) throw error;
      options.printError(error.message);
      // a refused data loss is accepted by a run of its own: a watch never takes --allow-data-loss
      if (error.name === 'DataLossError') {
        options.printError(
          `to accept it, run \`restsmith generate ${file} --allow-data-loss\` once: this watch goes on`,
        );
      }
      options.printError(`nothing written; watching ${file}`);
      last = undefined;
    }
  };

  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let failure: unknown;
  let stop: () => void = () => undefined;
  const schedule = (): void => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(run, options.settleMs ?? 50);
  };
  const run = (): void => {
    if (running !== undefined) {
      again = true;
      return;
    }
    running = once()
      .catch((error: unknown) => {
        failure = error;
        stop();
      })
      .finally(() => {
        running = undefined;
        // saved during the run: run again once the file has settled
        if (again) schedule();
        again = false;
      });
  };
  // watched before the first run, so that a save during it is not missed
  const watcher = watchOrExplain(dirname(path), (changed) => {
    if (changed === null || changed === name) schedule();
  });
  await new Promise<void>((done) => {
    stop = () => {
      stopped = true;
      clearTimeout(timer);
      watcher.close();
      options.signal.removeEventListener('abort', stop);
      done();
    };
    watcher.on('error', (error) => {
      failure = error;
      stop();
    });
    if (options.signal.aborted) return stop();
    options.signal.addEventListener('abort', stop, { once: true });
    run();
  });
  await running;
  if (failure !== undefined) throw failure;
}

function watchOrExplain(folder: string, changed: (name: string | null) => void): FSWatcher {
  try {
    return watchFolder(folder, (_event, name) => changed(name === null ? null : name.toString()));
  } catch (error) {
    const reason =
      error instanceof Error && 'code' in error && error.code === 'ENOENT' ? 'no such folder' : String(error);
    throw new UserError(`cannot watch ${folder}: ${reason}`);
  }
}
