import type { AccessRule, Api, Field, Resource } from '../../src/model.js';
import { names, typeNameOf } from '../../src/naming.js';

/** Builders of model values for unit tables: only what a row of a table changes is spelled out. */
export function field(name: string, type: Field['type'], extra: Partial<Field> = {}): Field {
  return {
    name,
    names: names(name),
    column: names(name).snake,
    type,
    required: false,
    nullable: false,
    unique: false,
    index: false,
    readOnly: false,
    writeOnly: false,
    ...extra,
  };
}

const authenticated: AccessRule = [{ kind: 'authenticated' }];

export function resource(name: string, fields: Field[], extra: Partial<Resource> = {}): Resource {
  return {
    name,
    names: names(name),
    typeName: typeNameOf(name),
    table: names(name).snake,
    id: 'uuid',
    owners: [],
    fields,
    computed: [],
    access: {
      list: authenticated,
      read: authenticated,
      create: authenticated,
      update: authenticated,
      delete: authenticated,
    },
    writableWhen: { update: [], delete: [] },
    operations: ['list', 'read', 'create', 'update', 'delete'],
    actions: [],
    relations: [],
    unique: [],
    ...extra,
  };
}

export function api(resources: Resource[], extra: Partial<Api> = {}): Api {
  return {
    name: 'test-api',
    version: '1.0.0',
    prefix: '',
    problemsBase: '/problems',
    auth: { default: authenticated, adminRole: 'admin', roles: ['admin'] },
    limits: {
      pageSize: { default: 20, max: 100 },
      bodySize: 1048576,
      rateLimit: { max: 300, windowMs: 60000 },
      includeDepth: 2,
      include: { maxRecords: 1000 },
    },
    resources,
    ...extra,
  };
}
