import { readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError } from './config.js';
import { reasonOf } from './db/database.js';
import { migrate, MigrationError } from './db/migrate.js';
import { compare, isAdditive, readStanding, refusalOf, type Standing } from './db/migration-book.js';
import { migrations } from './db/migrations/index.js';
import { DatabaseUrlError, openDatabase } from './db/open.js';
import { DEFAULT_DATABASE_URL } from './settings.js';

/**
 * Applies the pending migrations to the database DATABASE_URL names, and exits: `npm run migrate` (a release step
 * of its own, with MIGRATE_ON_START=false on the servers). `npm run migrate -- --status` lists every migration,
 * applied or pending, additive or not, and applies nothing. It runs the built dist/ (no dev dependency): after a
 * change of the definition, `npm run build` first.
 */
const usage = 'usage: npm run migrate [-- --status]';

function options(): { status: boolean; help: boolean } {
  try {
    return parseArgs({
      options: {
        status: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    process.exit(2);
  }
}

/** Each migration on a line: its name, applied or pending, additive or not; then what it comes to. */
function statusLines(standing: Standing): string[] {
  const applied = new Set(standing.applied.map((m) => m.name));
  const width = Math.max(0, ...[...Object.keys(migrations), ...applied].map((name) => name.length));
  const line = (name: string, state: string, additive: boolean | null, note = ''): string =>
    `${name.padEnd(width)}  ${state.padEnd(7)}  ${additive === null ? 'not marked' : additive ? 'additive' : 'not additive'}${note}`;
  const rows = [
    ...Object.keys(migrations).map((name) => ({
      name,
      text: line(name, applied.has(name) ? 'applied' : 'pending', isAdditive(name)),
    })),
    ...standing.unknown.map((m) => ({
      name: m.name,
      text: line(m.name, 'applied', m.additive, '  (not in this build: a newer one applied it)'),
    })),
  ].sort((a, b) => compare(a.name, b.name));
  const refused = refusalOf(standing);
  const pending = standing.pending.length;
  return [
    ...rows.map((row) => row.text),
    refused !== undefined
      ? `this build cannot run on this database: ${refused}`
      : pending > 0
        ? `${pending} pending: \`npm run migrate\` applies ${pending === 1 ? 'it' : 'them'}`
        : 'up to date',
  ];
}

/**
 * The migrations of src/ that this build lacks: a development tree whose dist/ was built before the definition
 * changed (a built image has no src/: none).
 */
function unbuilt(): string[] {
  try {
    const files = readdirSync(new URL('../src/db/migrations/', import.meta.url));
    const names = files.filter((f) => /^\d{4}-.*\.ts$/.test(f)).map((f) => f.replace(/\.ts$/, ''));
    return names.filter((name) => migrations[name] === undefined);
  } catch {
    return [];
  }
}

async function main(): Promise<void> {
  const values = options();
  if (values.help) {
    console.log(usage);
    return;
  }
  const missing = unbuilt();
  if (missing.length > 0) {
    throw new ConfigError(
      `dist/ is older than src/: it lacks ${missing.join(', ')}; run \`npm run build\` first`,
    );
  }
  const db = openDatabase(process.env.DATABASE_URL || DEFAULT_DATABASE_URL, 1);
  try {
    if (values.status) {
      const standing = await readStanding(db).catch((error: unknown) => {
        throw new MigrationError(`cannot read the migrations applied: ${reasonOf(error)}`);
      });
      for (const line of statusLines(standing)) console.log(line);
      return;
    }
    const applied = await migrate(db, 'apply');
    console.log(
      applied.length === 0
        ? 'nothing to apply: the database is up to date'
        : `applied ${applied.length} migration${applied.length === 1 ? '' : 's'}: ${applied.join(', ')}`,
    );
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  // a configuration or migration problem is a one-line message; anything else is a bug and shows its stack
  const known =
    error instanceof ConfigError || error instanceof DatabaseUrlError || error instanceof MigrationError;
  console.error(known ? `${error.name}: ${error.message}` : error);
  process.exit(1);
});
