import type { Api } from '../model.js';
import { needsTokens } from './access-view.js';
import type { SqlDialect } from './sql/dialect.js';
import { resourceView, type ResourceView } from './resource-view.js';
import { fixtures, type Fixture } from './samples.js';

/** What the project-wide templates print. */
export interface ProjectView {
  name: string;
  version: string;
  title: string;
  source: string;
  prefix: string;
  defaultDatabaseUrl: string;
  bodyLimit: number;
  pageSize: { default: number; max: number };
  resources: ResourceView[];
  migrations: { name: string; ident: string }[];
  fixtures: Fixture[];
  needsTokens: boolean;
  adminRole: string;
}

export function projectView(api: Api, source: string, dialects: readonly SqlDialect[]): ProjectView {
  return {
    name: api.name,
    version: api.version,
    title: api.title ?? api.name,
    source,
    prefix: api.prefix,
    defaultDatabaseUrl: `sqlite:./data/${api.name}.db`,
    bodyLimit: api.limits.bodySize,
    pageSize: api.limits.pageSize,
    resources: api.resources.map((r) => resourceView(api, r, dialects)),
    migrations: [{ name: '0001-initial', ident: 'm0001' }],
    fixtures: fixtures(api),
    needsTokens: needsTokens(api),
    adminRole: api.auth.adminRole,
  };
}
