import { Command, CommanderError, Option } from 'commander';
import { existsSync, writeFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { GenerateOptions } from './commands/generate.js';
import { formatNote, formatWarning, UserError } from './errors.js';
import { VERSION } from './version.js';

type Print = (line: string) => void;

/*
 * Each command imports what it needs when it runs: the parser, zod, handlebars and prettier take longer to load than
 * a no-op `generate` takes to run.
 */

function program(out: Print, err: Print): Command {
  const cli = new Command('restsmith')
    .description('Generate a complete TypeScript REST server from a resource definition.')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();

  cli
    .command('init')
    .description('write a commented starter definition')
    .argument('[file]', 'where to write it', 'api.yaml')
    .action(async (file: string) => {
      const { starterDefinition } = await import('./definition/starter.js');
      if (existsSync(file)) throw new UserError(`${file} already exists; restsmith init never overwrites a file`);
      const name =
        basename(file, extname(file))
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, '-')
          .replace(/^[^a-z]+/, '') || 'api';
      writeFileSync(file, starterDefinition(name === 'api' ? 'my-api' : name));
      out(`wrote ${file}: edit it, then run \`restsmith generate ${file}\``);
    });

  cli
    .command('validate')
    .description('check a definition and print every problem (exit 0 when valid, 1 when not)')
    .argument('<file>', 'a definition (.yaml, .yml or .json)')
    .action(async (file: string) => {
      const { readDefinitionWarned } = await import('./pipeline/read-definition.js');
      const { SCAN_NOTE, SCANS_RUN_APART } = await import('./contract/scans.js');
      const { api, warnings, notes } = await readDefinitionWarned(file);
      for (const warning of warnings) err(formatWarning(warning));
      for (const note of notes) err(formatNote(note));
      if (notes.some((note) => note.message.startsWith(SCAN_NOTE))) err(SCANS_RUN_APART);
      out(`${file}: valid (${api.resources.length} ${api.resources.length === 1 ? 'resource' : 'resources'})`);
    });

  cli
    .command('generate')
    .description('generate or regenerate a project from a definition')
    .argument('<file>', 'a definition (.yaml, .yml or .json)')
    .option('-o, --out <dir>', 'target directory (default: ./<name>)')
    .option(
      '--dry-run',
      'print the plan (create / update / unchanged / delete / keep / grow / orphan / conflict / overwrite / migration), write nothing; exit 1 when generate would stop',
    )
    .addOption(
      new Option('--check', 'write nothing; exit 1 if the target is not exactly what generate would write').conflicts(
        'dryRun',
      ),
    )
    .option('--force', 'overwrite generator-owned files that were edited by hand (user-owned files: never)')
    .option('--allow-data-loss', 'permit a migration that drops a table or column or narrows a type')
    .option('--watch', 'generate, then generate again each time the definition is saved (Ctrl-C stops)')
    .action(async (file: string, options: GenerateOptions & { watch?: boolean }) => {
      if (options.watch) return watchUntilStopped(file, options, out, err);
      const { describeChanges, generate, wroteLine } = await import('./commands/generate.js');
      const result = await generate(file, options);
      for (const warning of [...(result.warnings ?? []), ...(result.notes ?? [])]) err(warning);
      const pending = result.changes.filter((c) => !['unchanged', 'keep', 'orphan'].includes(c.kind));
      if (options.check) {
        for (const c of pending) out(`${c.kind.padEnd(9)} ${c.from === undefined ? '' : `${c.from} -> `}${c.path}`);
        if (pending.length > 0 || result.migration !== undefined) {
          const differ = pending.length === 1 ? '1 file differs' : `${pending.length} files differ`;
          throw new UserError(`${result.outDir} is not what generate would write (${differ})`);
        }
        out(`${result.outDir} is up to date`);
        return;
      }
      for (const line of describeChanges(result)) out(line);
      if (options.dryRun) {
        out(`dry run: nothing written to ${result.outDir}`);
        // what a real run would refuse makes a dry run fail too
        const conflicts = options.force ? 0 : result.changes.filter((c) => c.kind === 'conflict').length;
        const refused = result.migration?.losses !== undefined;
        if (conflicts > 0 || refused) {
          throw new UserError(
            [
              ...(conflicts > 0
                ? [
                    `${conflicts} generator-owned files were edited by hand: generate would stop (--force overwrites them)`,
                  ]
                : []),
              ...(refused
                ? ['the migration would lose data: generate would refuse it (--allow-data-loss accepts it)']
                : []),
            ].join('\n'),
          );
        }
        return;
      }
      out(wroteLine(result));
    });

  cli
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the API a definition describes')
    .argument('<file>', 'a definition (.yaml, .yml or .json)')
    .action(async (file: string) => {
      const [{ openApiDocument }, { readDefinition }] = await Promise.all([
        import('./openapi/document.js'),
        import('./pipeline/read-definition.js'),
      ]);
      out(JSON.stringify(openApiDocument(await readDefinition(file)), null, 2));
    });

  cli
    .command('schema')
    .description('print the JSON Schema of the definition format (for editors)')
    .action(async () => {
      const { definitionJsonSchema } = await import('./definition/json-schema.js');
      out(JSON.stringify(definitionJsonSchema(), null, 2));
    });

  return cli;
}

/** `generate --watch` until SIGINT or SIGTERM (commands/watch.ts). */
async function watchUntilStopped(file: string, options: GenerateOptions, out: Print, err: Print): Promise<void> {
  const { checkWatchOptions, watchDefinition } = await import('./commands/watch.js');
  checkWatchOptions(options);
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  process.once('SIGINT', abort).once('SIGTERM', abort);
  try {
    await watchDefinition(file, { out: options.out, signal: stop.signal, print: out, printError: err });
  } finally {
    process.off('SIGINT', abort).off('SIGTERM', abort);
  }
}

/** Runs the CLI; resolves to the exit code: 0 success, 1 invalid definition or conflict, 2 wrong usage. */
export async function main(
  argv: readonly string[],
  out: Print = console.log,
  err: Print = console.error,
): Promise<number> {
  try {
    await program(out, err).parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0; commander has printed what it had to
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof UserError) {
      err(error.message);
      return error.exitCode;
    }
    err('restsmith failed with an internal error. This is a bug: please report it with the output below.');
    err(error instanceof Error ? (error.stack ?? error.message) : String(error));
    // restsmith is bundled (scripts/build.mjs): its source maps name the files and lines of src/
    err("(Run it again with NODE_OPTIONS=--enable-source-maps for the lines in restsmith's sources.)");
    return 1;
  }
}
