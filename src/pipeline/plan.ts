import type { Api } from '../model.js';
import type { PlannedMigration } from '../migrate/plan-migration.js';
import { splitDocument, type SplitDocument } from '../openapi/document.js';
import { postgres, sqlite, type SqlDialect } from '../schema/dialect.js';
import { packageJson, PRETTIER_OPTIONS, tsconfig, tsconfigBuild } from '../generate/project-files.js';
import { projectView } from '../generate/project-view.js';
import { viewKey } from '../generate/view-memo.js';

/**
 * Who owns a file decides what a later run may do to it:
 * - generator: rewritten on every run; a header says so
 * - user: created once, never overwritten (the server entry, handlers, the user's tests)
 * - migration: created once and never edited; later runs add new ones
 */
export type Owner = 'generator' | 'user' | 'migration';

export type PlannedFile = {
  path: string;
  owner: Owner;
  /** a key of all its template's context is made from, where one is known (a resource's view: view-memo.ts, viewKey) */
  key?: string;
} & ({ template: string; context: object } | { json: object } | { runtime: string } | { document: SplitDocument });

/** The SQL dialects whose statements every generated project carries. */
export const DIALECTS: readonly SqlDialect[] = [sqlite, postgres];

/**
 * The runtime: the same in every project, copied as it is from runtime/ (real TypeScript, type-checked and tested in
 * this repo). What varies with the definition, it reads from src/settings.ts.
 */
export const RUNTIME = [
  'src/config.ts',
  'src/serve.ts',
  'src/lifecycle.ts',
  'src/shutdown.ts',
  'src/healthcheck.ts',
  'scripts/ensure-built.js',
  'src/types.ts',
  'src/app.ts',
  'src/tick-shape.ts',
  'src/bounded.ts',
  'src/db/database.ts',
  'src/db/open.ts',
  'src/db/connect.ts',
  'src/db/drivers.ts',
  'src/db/timestamps.ts',
  'src/db/sqlite.ts',
  'src/db/postgres.ts',
  'src/db/pg-session.ts',
  'src/db/pg-cost.ts',
  'src/db/pg-migrations.ts',
  'src/db/rows.ts',
  'src/db/codec.ts',
  'src/db/named.ts',
  'src/db/store.ts',
  'src/db/cascade.ts',
  'src/db/migrate.ts',
  'src/db/migration-book.ts',
  'src/db/list-sql.ts',
  'src/db/trigram-sql.ts',
  'src/db/cost.ts',
  'src/db/scan-gate.ts',
  'src/db/scan-workers.ts',
  'src/db/scan-worker.ts',
  'src/http/problem.ts',
  'src/http/problem-kinds.ts',
  'src/http/problem-pages.ts',
  'src/http/request-id.ts',
  'src/http/errors.ts',
  'src/http/validation.ts',
  'src/http/validator.ts',
  'src/http/cursors.ts',
  'src/http/listing.ts',
  'src/http/scan-clients.ts',
  'src/http/pressure.ts',
  'src/http/pending-migrations.ts',
  'src/http/health.ts',
  'src/http/related.ts',
  'src/http/etag.ts',
  'src/http/methods.ts',
  'src/http/preconditions.ts',
  'src/http/states.ts',
  'src/http/custom-routes.ts',
  'src/extend.ts',
  'src/http/rate-limit.ts',
  'src/http/request-log.ts',
  'src/http/redact.ts',
  'src/telemetry/trace-context.ts',
  'src/telemetry/tracing.ts',
  'src/telemetry/preload.ts',
  'src/telemetry/otel.ts',
  'src/telemetry/request-spans.ts',
  'src/http/docs.ts',
  'src/http/idempotency.ts',
  'src/auth/verify.ts',
  'src/auth/authorize.ts',
  'src/auth/owner.ts',
  'src/relations/budget.ts',
  'src/relations/embed.ts',
  'src/relations/parent.ts',
  'src/relations/links.ts',
  'src/relations/sql.ts',
  'src/relations/references.ts',
  'src/http/content-types.ts',
  'src/http/cors.ts',
  'src/http/deprecation.ts',
  'src/events/log.ts',
  'src/events/logged.ts',
  'src/events/feed.ts',
  'src/events/stream.ts',
  'src/events/retention.ts',
  'src/events/settled.ts',
  'src/events/routes.ts',
  'src/webhooks/address.ts',
  'src/webhooks/secrets.ts',
  'src/webhooks/send.ts',
  'src/webhooks/sql.ts',
  'src/webhooks/dispatcher.ts',
  'src/webhooks/routes.ts',
  'src/http/refusals.ts',
  'src/metrics/metrics.ts',
  'src/metrics/requests.ts',
  'src/metrics/series.ts',
  'src/token.ts',
  'src/migrate.ts',
  'src/auth/sign.ts',
  'test/generated/harness.ts',
  'test/generated/access.ts',
  'test/generated/actions.ts',
  'test/generated/listing.ts',
  'test/generated/events.ts',
  'test/generated/relations.ts',
  'test/generated/relation-reads.ts',
  'test/generated/run.ts',
];

/** Project files written from templates: what the definition says, filled in. */
const TEMPLATED = [
  'src/settings.ts',
  'src/resources/index.ts',
  'README.md',
  'test/generated/api.test.ts',
  'test/generated/fixtures.ts',
  'test/generated/access.test.ts',
  'test/generated/actions.test.ts',
  'test/generated/listing.test.ts',
  'test/generated/events.test.ts',
  'test/generated/relations.test.ts',
];

const RESOURCE_FILES = ['model.ts', 'schemas.ts', 'store.ts', 'access.ts', 'routes.ts'];

/** What plan needs to know of the target besides the definition. */
export interface PlanContext {
  /** the definition's file name, for headers */
  source: string;
  /** every migration, already written or new, in order */
  migrations: readonly string[];
  /** the migration this run adds, if the data model changed */
  newMigration?: PlannedMigration;
  /** user-owned files whose resource or actions are gone: kept, but left out of compilation */
  orphanFiles: readonly string[];
  /** per collection, handlers in its user-owned file whose actions are gone */
  orphanHandlers: ReadonlyMap<string, readonly string[]>;
}

/** Every file of the generated project, with its owner and how to make it. */
export function plan(api: Api, context: PlanContext): PlannedFile[] {
  const project = projectView(api, context, DIALECTS);
  const generated = (path: string, view: object = project): PlannedFile => ({
    path,
    owner: 'generator',
    template: `project/${path}.hbs`,
    context: view,
  });
  const migration = context.newMigration;
  return [
    { path: 'package.json', owner: 'generator', json: packageJson(api) },
    { path: 'tsconfig.json', owner: 'generator', json: tsconfig(context.orphanFiles) },
    { path: 'tsconfig.build.json', owner: 'generator', json: tsconfigBuild(context.orphanFiles) },
    { path: '.prettierrc.json', owner: 'generator', json: PRETTIER_OPTIONS },
    { path: 'src/openapi.json', owner: 'generator', document: splitDocument(api) },
    // the generated tests' tables, derived from the definition (see test/generated/harness.ts, `table`)
    { path: 'test/generated/api.json', owner: 'generator', json: project.fixtures },
    { path: 'test/generated/fixtures.json', owner: 'generator', json: project.access.fixtures },
    { path: 'test/generated/access.json', owner: 'generator', json: project.access.matrix },
    { path: 'test/generated/listing.json', owner: 'generator', json: project.access.listings },
    { path: 'test/generated/events.json', owner: 'generator', json: project.access.feeds },
    { path: 'test/generated/reaches.json', owner: 'generator', json: project.access.reaches },
    { path: 'test/generated/relations.json', owner: 'generator', json: project.access.relations },
    { path: '.gitignore', owner: 'user', template: 'project/gitignore.hbs', context: project },
    { path: 'Dockerfile', owner: 'user', template: 'project/Dockerfile.hbs', context: project },
    { path: '.dockerignore', owner: 'user', template: 'project/dockerignore.hbs', context: project },
    ...runtimeFiles(),
    ...TEMPLATED.map((path) => generated(path)),
    generated('src/db/migrations/index.ts'),
    ...(migration === undefined
      ? []
      : [
          {
            path: `src/db/migrations/${migration.name}.ts`,
            owner: 'migration' as const,
            template: 'project/src/db/migrations/migration.ts.hbs',
            context: migration,
          },
        ]),
    ...project.resources.flatMap((view) => {
      const resource = api.resources.find((r) => r.name === view.name) ?? fail(view.name);
      const key = viewKey(api, resource, context.orphanHandlers);
      const files = [
        ...RESOURCE_FILES,
        ...(view.hasActions ? ['actions.ts'] : []),
        ...(view.nested !== undefined ? ['nested.ts'] : []),
      ];
      return files.map((file): PlannedFile => ({
        path: `src/resources/${view.kebab}/${file}`,
        owner: 'generator',
        template: `resource/${file}.hbs`,
        context: view,
        key,
      }));
    }),
    ...project.resources
      .filter((view) => view.hasHandlerActions)
      .map((view): PlannedFile => ({
        path: handlersPath(view.kebab),
        owner: 'user',
        template: 'project/src/handlers.ts.hbs',
        context: view,
      })),
    ...project.resources
      .filter((view) => view.computedProperties.length > 0)
      .map((view): PlannedFile => ({
        path: computedPath(view.kebab),
        owner: 'user',
        template: 'project/src/computed.ts.hbs',
        context: view,
      })),
  ];
}

/** The files copied from runtime/: the same in every project (the user-owned starters included). */
export function runtimeFiles(): PlannedFile[] {
  return [
    { path: 'src/main.ts', owner: 'user', runtime: 'src/main.ts' },
    { path: 'src/hooks.ts', owner: 'user', runtime: 'src/hooks.ts' },
    { path: 'src/routes.ts', owner: 'user', runtime: 'src/routes.ts' },
    ...RUNTIME.map((path): PlannedFile => ({ path, owner: 'generator', runtime: path })),
  ];
}

export const handlersPath = (kebab: string): string => `src/handlers/${kebab}.ts`;
export const computedPath = (kebab: string): string => `src/computed/${kebab}.ts`;

function fail(name: string): never {
  throw new Error(`no resource for the view of ${name}`);
}
