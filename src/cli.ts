import { Command, CommanderError } from 'commander';
import { existsSync, writeFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { GenerateOptions } from './commands/generate.js';
import { UserError } from './errors.js';
import { VERSION } from './version.js';

type Print = (line: string) => void;

/*
 * Each command imports what it needs when it runs: the parser, zod, handlebars and prettier take longer to load than
 * a no-op `generate` takes to run.
 */

function program(out: Print): Command {
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
      const { readDefinition } = await import('./pipeline/read-definition.js');
      const api = await readDefinition(file);
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
    .option('--check', 'write nothing; exit 1 if the target is not exactly what generate would write')
    .option('--force', 'overwrite generator-owned files that were edited by hand (user-owned files: never)')
    .option('--allow-data-loss', 'permit a migration that drops a table or column or narrows a type')
    .action(async (file: string, options: GenerateOptions) => {
      const { describeChanges, generate } = await import('./commands/generate.js');
      const result = await generate(file, options);
      const pending = result.changes.filter((c) => !['unchanged', 'keep', 'orphan'].includes(c.kind));
      if (options.check) {
        for (const c of pending) out(`${c.kind.padEnd(9)} ${c.path}`);
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
      const overwritten = result.changes.filter((c) => c.kind === 'conflict').length;
      out(
        `wrote ${result.changes.filter((c) => ['create', 'update', 'grow', 'delete'].includes(c.kind)).length + overwritten} files to ${result.outDir}` +
          (overwritten > 0 ? ` (${overwritten} edited by hand, overwritten)` : ''),
      );
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

/** Runs the CLI; resolves to the exit code: 0 success, 1 invalid definition or conflict, 2 wrong usage. */
export async function main(
  argv: readonly string[],
  out: Print = console.log,
  err: Print = console.error,
): Promise<number> {
  try {
    await program(out).parseAsync(argv);
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
    return 1;
  }
}
