/**
 * Turns a validated definition into the model every later step reads: shorthands expanded, every
 * default applied, names computed. Resources, fields and actions keep the order of the file.
 */
import {
  OPERATIONS,
  type AccessRule,
  type AccessTerm,
  type Action,
  type Api,
  type Field,
  type JsonValue,
  type Operation,
  type Relation,
  type Resource,
  type SetValue,
  type When,
} from '../model.js';
import { names, relationNameOf, typeNameOf } from '../naming.js';
import { expandField, type FieldDef } from '../definition/field-schema.js';
import {
  splitAccess,
  type AccessRuleDef,
  type ActionDef,
  type Definition,
  type ResourceDef,
  type WhenDef,
} from '../definition/schema.js';
import { parseDuration } from '../definition/units.js';
import { asReturned } from '../contract/returned.js';
import { DEFAULTS, limitsOf } from './defaults.js';

export function normalise(def: Definition): Api {
  const defaultRule = accessRule(def.auth?.default ?? DEFAULTS.access);
  const adminRole = def.auth?.adminRole ?? DEFAULTS.adminRole;
  return {
    name: def.name,
    version: def.version,
    ...optional('title', def.title),
    ...optional('description', def.description),
    prefix: def.prefix ?? '',
    auth: { default: defaultRule, adminRole, roles: def.auth?.roles ?? [adminRole] },
    limits: limitsOf(def.limits),
    ...(def.cors !== undefined && {
      cors: {
        origins: def.cors.origins,
        credentials: def.cors.credentials ?? false,
        maxAgeSeconds: Math.round((parseDuration(def.cors.maxAge ?? '10m') ?? 600_000) / 1000),
      },
    }),
    ...(def.events !== undefined && {
      events: {
        retention: def.events.retention ?? DEFAULTS.events.retention,
        retentionMs: parseDuration(def.events.retention ?? DEFAULTS.events.retention) ?? 0,
        webhooks: def.events.webhooks ?? false,
        retry: {
          attempts: def.events.retry?.attempts ?? DEFAULTS.events.attempts,
          firstDelayMs: parseDuration(def.events.retry?.firstDelay ?? DEFAULTS.events.firstDelay) ?? 0,
        },
      },
    }),
    problemsBase: def.problems?.base ?? `${def.prefix ?? ''}/problems`,
    resources: withRelations(
      Object.entries(def.resources).map(([name, resource]) => normaliseResource(name, resource, defaultRule)),
      def,
    ),
  };
}

/**
 * Each resource with its relations: to-one from its own ref fields, to-many from the ref fields referring to it,
 * many-to-many from its `relations` and from those of others that lead to it (the inverses).
 */
function withRelations(resources: Resource[], def: Definition): Resource[] {
  const relation = (kind: Relation['kind'], name: string, target: string, field: Field): Relation => ({
    kind,
    name,
    names: names(name),
    target,
    field: field.name,
    column: field.column,
  });
  const byName = new Map(resources.map((r) => [r.name, r]));
  const throughs = resources.flatMap((resource) =>
    Object.entries(def.resources[resource.name]?.relations ?? {}).map(([name, t]) => {
      const join = byName.get(t.through);
      if (join === undefined) throw new Error(`unknown join resource ${t.through}`);
      const refs = join.fields.filter((f) => f.ref !== undefined && !f.writeOnly);
      const [nearName, farName] = t.via ?? [
        refs.find((f) => f.ref?.to === resource.name)?.name,
        refs.find((f) => f.ref?.to !== resource.name)?.name,
      ];
      const near = refs.find((f) => f.name === nearName);
      const far = refs.find((f) => f.name === farName);
      if (near?.ref === undefined || far?.ref === undefined) throw new Error(`${t.through} cannot join ${name}`);
      const side = (f: Field) => ({ field: f.name, column: f.column });
      const through = (a: Field, b: Field) => ({ resource: join.name, table: join.table, near: side(a), far: side(b) });
      const inverse = t.inverse ?? names(resource.name).camel;
      return {
        on: resource.name,
        relation: { ...relation('many', name, far.ref.to, near), through: through(near, far) },
        other: far.ref.to,
        inverse: { ...relation('many', inverse, resource.name, far), through: through(far, near) },
      };
    }),
  );
  // the to-many relations of each resource, from the ref fields referring to it, in the order of the resources
  const incoming = new Map<string, Relation[]>();
  for (const other of resources) {
    for (const f of other.fields) {
      if (f.ref === undefined || f.writeOnly) continue;
      const to = incoming.get(f.ref.to) ?? [];
      to.push(relation('many', f.ref.inverse, other.name, f));
      incoming.set(f.ref.to, to);
    }
  }
  return resources.map((resource) => ({
    ...resource,
    relations: [
      // a write-only ref field makes no relation: embedding or listing by it would reveal what it holds
      ...resource.fields.flatMap((f) =>
        f.ref === undefined || f.writeOnly ? [] : [relation('one', f.ref.as, f.ref.to, f)],
      ),
      ...(incoming.get(resource.name) ?? []),
      ...throughs.filter((t) => t.on === resource.name).map((t) => t.relation),
      ...throughs.filter((t) => t.other === resource.name).map((t) => t.inverse),
    ],
  }));
}

/** `{ key: value }` when value is defined, else `{}`: keeps absent options absent in the model. */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

export function accessRule(rule: AccessRuleDef): AccessRule {
  const terms = typeof rule === 'string' ? [rule] : [...new Set(rule)];
  return terms.map(accessTerm);
}

function accessTerm(term: string): AccessTerm {
  if (term === 'public' || term === 'authenticated' || term === 'owner') return { kind: term };
  return { kind: 'role', role: term };
}

function normaliseResource(name: string, def: ResourceDef, defaultRule: AccessRule): Resource {
  const ruleOf = (rule: AccessRuleDef | undefined): AccessRule => (rule === undefined ? defaultRule : accessRule(rule));
  const switchedOn = new Set<Operation>(def.operations ?? OPERATIONS);
  const fields = Object.entries(def.fields)
    .filter(([, field]) => !isComputed(field))
    .map(([fieldName, field]) => normaliseField(fieldName, field, name));
  // `when` and `set` values as a record holds them, to compare with it (a datetime in UTC)
  const returned = (field: string, value: JsonValue): JsonValue =>
    asReturned(
      fields.find((f) => f.name === field),
      value,
    );
  return {
    name,
    names: names(name),
    typeName: typeNameOf(name),
    table: names(name).snake,
    id: def.id ?? 'uuid',
    owners: def.owner === undefined ? [] : typeof def.owner === 'string' ? [def.owner] : def.owner,
    fields,
    computed: Object.entries(def.fields)
      .filter(([, field]) => isComputed(field))
      .map(([fieldName, field]) => ({ ...normaliseField(fieldName, field, name), nullable: true, readOnly: true })),
    access: {
      list: ruleOf(def.access?.list),
      read: ruleOf(def.access?.read),
      create: ruleOf(def.access?.create),
      update: ruleOf(splitAccess(def.access?.update).rule),
      delete: ruleOf(splitAccess(def.access?.delete).rule),
    },
    writableWhen: {
      update: whenOf(splitAccess(def.access?.update).when, returned),
      delete: whenOf(splitAccess(def.access?.delete).when, returned),
    },
    operations: OPERATIONS.filter((op) => switchedOn.has(op)),
    actions: Object.entries(def.actions ?? {}).map(([actionName, action]) =>
      normaliseAction(actionName, action, ruleOf(action.access), returned),
    ),
    relations: [],
    unique: def.unique ?? [],
    ...optional('description', def.description),
    ...optional('deprecated', def.deprecated),
    ...optional('renamedFrom', def.renamedFrom),
  };
}

export function normaliseField(name: string, def: FieldDef, collection = ''): Field {
  const field = expandField(def);
  const fieldNames = names(name);
  const base: Field = {
    name,
    names: fieldNames,
    column: fieldNames.snake,
    type: field.type,
    required: field.required ?? false,
    nullable: field.nullable ?? false,
    ...optional<'default', JsonValue>('default', field.default),
    unique: field.unique ?? false,
    index: field.index === true,
    ...(field.index === 'trigram' && { trigram: true as const }),
    readOnly: field.readOnly ?? false,
    writeOnly: field.writeOnly ?? false,
    ...optional('description', field.description),
    ...(field.deprecated === true && { deprecated: true as const }),
    ...optional('renamedFrom', field.renamedFrom),
  };
  switch (field.type) {
    case 'string':
      return {
        ...base,
        ...optional('minLength', field.minLength),
        ...optional('maxLength', field.maxLength),
        ...optional('pattern', field.pattern),
        ...optional('format', field.format),
      };
    case 'text':
      return { ...base, ...optional('minLength', field.minLength), ...optional('maxLength', field.maxLength) };
    case 'integer':
    case 'number':
      return { ...base, ...optional('min', field.min), ...optional('max', field.max) };
    case 'enum':
      return { ...base, values: [...field.values] };
    case 'ref':
      return {
        ...base,
        ref: {
          to: field.to,
          onDelete: field.onDelete ?? 'restrict',
          as: field.as ?? relationNameOf(name),
          inverse: field.inverse ?? names(collection).camel,
        },
      };
    default:
      return base;
  }
}

const isComputed = (field: FieldDef): boolean => typeof field === 'object' && field.computed === true;

type Returned = (field: string, value: JsonValue) => JsonValue;

const whenOf = (when: WhenDef | undefined, returned: Returned): When =>
  Object.entries(when ?? {}).map(([field, value]) => ({
    field,
    values: (Array.isArray(value) ? value : [value]).map((v) => returned(field, v)),
  }));

function normaliseAction(name: string, def: ActionDef, access: AccessRule, returned: Returned): Action {
  return {
    name,
    names: names(name),
    on: def.on,
    method: def.method ?? 'post',
    access,
    when: whenOf(def.when, returned),
    set: Object.entries(def.set ?? {}).map(([field, value]) => ({ field, value: setValue(returned(field, value)) })),
    input: Object.entries(def.input?.fields ?? {}).map(([fieldName, field]) => normaliseField(fieldName, field)),
    ...optional('description', def.description),
    ...optional('deprecated', def.deprecated),
  };
}

function setValue(value: JsonValue): SetValue {
  return value === 'now' ? { kind: 'now' } : { kind: 'literal', value };
}
