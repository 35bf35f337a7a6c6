import { OPERATIONS, type Api, type Deprecation, type Operation, type Resource } from '../model.js';
import { anOrA, nounOf } from '../naming.js';
import { once } from '../memo.js';
import { blockersOf } from './blockers.js';
import { accessRules, accessSummary } from '../contract/access.js';
import {
  inputSchema,
  inputUnderSchema,
  paramsSchema,
  patchSchema,
  recordSchema,
  type JsonSchema,
} from '../contract/json-schemas.js';
import { serverFields, writableFields } from '../schema/columns.js';
import { listQuerySchema, readQuerySchema } from '../contract/listing.js';
import { actionImports, actionView, type ActionView } from './action-view.js';
import { listSpec } from './list-spec.js';
import { uniqueKeysOf, type UniqueKeyView } from './unique-keys.js';
import { nestedView, type NestedView } from './nested-view.js';
import { createdUnder, includePaths, targetOf } from '../contract/relations.js';
import { ownerView, type OwnerView } from './owner-view.js';
import { routesView, type RoutesView } from './routes-view.js';
import { selectListOf } from './sql/statements.js';
import { storeView, type StoreView } from './store-view.js';
import { docOf, idType, inputType, intersectionAlias, outputType, patchType } from './typescript.js';
import { js } from './literal.js';
import { embeddedTypes, filtersThrough, methodGuardsOf, type ModelTypes } from './resource-parts.js';

/**
 * Everything the templates of one resource print; computed here so that templates hold no logic. The files with code
 * that varies most have views of their own (store, routes, actions), which plan their imports from what they print.
 */
export interface ResourceView extends ModelTypes {
  name: string;
  camel: string;
  pascal: string;
  kebab: string;
  typeName: string;
  description: string;
  path: string;
  idType: string;
  /** `a post`, `an entry`: for doc comments */
  article: string;
  operations: Record<Operation, boolean>;
  recordProperties: { key: string; type: string; doc?: string }[];
  /** `computed: true` fields: their values come from src/computed/<collection>.ts (see the store's toRecord) */
  computedProperties: { key: string; type: string; doc: string }[];
  computedNames: string[];
  inputProperties: { key: string; type: string; optional: boolean; doc?: string }[];
  patchProperties: { key: string; type: string; doc?: string }[];
  /** the read-only fields, which your code may change through the store's `patch` (`<Type>Changes`), as a PATCH would */
  changesProperties: { key: string; type: string; doc?: string }[];
  writeOnlyProperties: { key: string; type: string }[];
  readOnlyNames: string[];
  /** what a 409 says when a unique key or a reference refuses a write */
  constraintMessages: { unique: string; foreignKey: string };
  /** the unique keys, for the 409 that names the fields whose values are taken */
  uniqueKeys: UniqueKeyView[];
  /** ref field → the collection it refers to, for the 409 that names a missing reference */
  references: Record<string, { to: string; article: 'a' | 'an'; noun: string }>;
  notFoundMessage: string;
  record: JsonSchema;
  input: JsonSchema;
  patch: JsonSchema;
  params: JsonSchema;
  listQuery: JsonSchema;
  /** the query string of a read, where the resource has relations (`include`) */
  readQuery?: JsonSchema;
  relationNames: string[];
  /** the paths `include` takes, for the README */
  includePaths: string[];
  /** the README's words for a deprecated resource: since when, until when, where to read */
  deprecated?: Deprecation;
  /** the README's line of the filters through relations: each relation with the fields it filters by */
  filtersThrough: string;
  /** the bodies of nested creates (`POST /authors/{id}/books`), one per to-one relation: the ref field optional */
  createdUnder: {
    schemaName: string;
    typeName: string;
    field: string;
    /** model.ts: its type (intersectionAlias) */
    declaration: string;
    url: string;
    schema: JsonSchema;
  }[];
  /** nested.ts: the nested listings under this resource's records */
  nested?: NestedView;
  /** what the store's Listing needs: table, columns, owner column */
  listSpec: JsonSchema;
  owner?: OwnerView;
  accessRules: { key: string; rule: Record<string, unknown> }[];
  accessSummary: { what: string; who: string }[];
  actions: ActionView[];
  setActions: ActionView[];
  handlerActions: ActionView[];
  hasActions: boolean;
  hasHandlerActions: boolean;
  hasItemHandlers: boolean;
  methodGuards: { url: string; allowed: string[] }[];
  /** handlers in the user-owned file whose actions were removed: typed so that they still compile */
  orphanHandlers: string[];
  store: StoreView;
  routes: RoutesView;
  /** `reads`: the owner fields the read rule looks at, where an action shows a record only to who may read it */
  actionsFile: { imports: string; handlersParam: string; reads?: string };
}

export function resourceView(api: Api, resource: Resource, orphanHandlers: readonly string[] = []): ResourceView {
  const { names, typeName } = resource;
  const lower = nounOf(typeName);
  const article = `${anOrA(lower)} ${lower}`;
  const path = `/${resource.name}`;
  const writable = writableFields(resource);
  const owner = ownerView(api, resource);
  const actions = resource.actions.map((a) => actionView(api, resource, a, typeName, owner !== undefined));
  const handlerActions = actions.filter((a) => !a.generated);
  // handlers the user wrote for actions the definition dropped: kept, typed loosely (see actions.ts)
  const orphans = handlerActions.length > 0 ? [...orphanHandlers] : [];
  const refFields = resource.fields.filter((f) => f.ref !== undefined).map((f) => f.name);
  // the ref fields a body may send, and the records they name in words
  const references = writable.flatMap((f) => {
    const to = f.ref?.to;
    const target = api.resources.find((r) => r.name === to);
    return to === undefined || target === undefined ? [] : [{ field: f.name, to, noun: nounOf(target.typeName) }];
  });
  const uniqueFields = [
    ...resource.fields.filter((f) => f.unique).map((f) => f.name),
    ...resource.unique.map((key) => key.join(' and ')),
  ];
  const blockers = blockersOf(api, resource);
  const stillReferencedMessage =
    `other records still refer to this ${lower}` +
    (blockers.length === 0 ? '' : ` (by ${blockers.join(' or ')}): change or delete them first`);
  const readQuery = readQuerySchema(api, resource);
  const nested = nestedView(api, resource, `no ${lower} has this id`);

  // the parts only the resource's own files print, made when one of them is rendered (render.ts, renderOrKnown)
  const lazy = {
    record: once(() => recordSchema(api, resource)),
    input: once(() => inputSchema(api, resource)),
    patch: once(() => patchSchema(api, resource)),
    listQuery: once(() => listQuerySchema(api, resource)),
    listSpec: once(() => listSpec(resource, api, selectListOf(resource))),
    store: once(() => storeView(api, resource, owner, typeName)),
    routes: once(() =>
      routesView(
        resource,
        owner,
        typeName,
        stillReferencedMessage,
        references.length > 0,
        api.events !== undefined,
        api.auth.adminRole,
      ),
    ),
  };
  const computed = resource.computed.map((f) => ({
    key: f.name,
    type: outputType(api, f),
    doc: `${f.description === undefined ? '' : `${f.description} `}(computed by src/computed/${resource.names.kebab}.ts)`,
  }));
  return {
    name: resource.name,
    camel: names.camel,
    pascal: names.pascal,
    kebab: names.kebab,
    typeName,
    description: resource.description ?? `A record of \`${path}\`.`,
    path,
    idType: idType(resource.id),
    article,
    operations: Object.fromEntries(OPERATIONS.map((op) => [op, resource.operations.includes(op)])) as Record<
      Operation,
      boolean
    >,
    recordProperties: [
      { key: 'id', type: idType(resource.id) },
      ...resource.fields
        .filter((f) => !f.writeOnly)
        .map((f) => ({
          key: f.name,
          type: outputType(api, f),
          doc: docOf(f),
        })),
      ...computed,
      { key: 'createdAt', type: 'string', doc: 'when the record was created (ISO 8601, UTC)' },
      { key: 'updatedAt', type: 'string', doc: 'when the record was last written (ISO 8601, UTC)' },
    ],
    // an owner field may be left out: it defaults to the caller on create and keeps its value on PUT
    inputProperties: writable.map((f) => ({
      key: f.name,
      type: inputType(api, f),
      optional: !f.required || resource.owners.includes(f.name),
      doc: docOf(f),
    })),
    patchProperties: writable.map((f) => ({ key: f.name, type: patchType(api, f, resource.owners), doc: docOf(f) })),
    changesProperties: serverFields(resource).map((f) => ({
      key: f.name,
      type: patchType(api, f, resource.owners),
      doc: docOf(f),
    })),
    writeOnlyProperties: resource.fields
      .filter((f) => f.writeOnly)
      .map((f) => ({ key: f.name, type: outputType(api, f) })),
    readOnlyNames: ['id', ...resource.fields.filter((f) => f.readOnly).map((f) => f.name), 'createdAt', 'updatedAt'],
    computedProperties: computed,
    computedNames: resource.computed.map((f) => f.name),
    constraintMessages: {
      unique:
        uniqueFields.length > 0
          ? `${article} with this ${uniqueFields.join(' or ')} already exists`
          : `this ${lower} already exists`,
      foreignKey:
        refFields.length > 0
          ? `the record that ${refFields.join(' or ')} refers to does not exist`
          : 'a referenced record does not exist',
    },
    uniqueKeys: uniqueKeysOf(api, resource, article),
    references: Object.fromEntries(
      references.map(({ field, to, noun }) => [field, { to, article: anOrA(noun), noun }]),
    ),
    notFoundMessage: `no ${lower} has this id`,
    get record() {
      return lazy.record();
    },
    get input() {
      return lazy.input();
    },
    get patch() {
      return lazy.patch();
    },
    params: paramsSchema(resource),
    get listQuery() {
      return lazy.listQuery();
    },
    ...(readQuery !== undefined && { readQuery }),
    relationNames: resource.relations.map((r) => r.name),
    includePaths: includePaths(api, resource),
    filtersThrough: filtersThrough(api, resource),
    ...(resource.deprecated !== undefined && { deprecated: resource.deprecated }),
    ...embeddedTypes(api, resource),
    createdUnder: createdUnder(api, resource).map((relation) => {
      const inverse = targetOf(api, relation).relations.find(
        (r) => r.kind === 'many' && r.target === resource.name && r.field === relation.field,
      );
      return {
        schemaName: `inputUnder${relation.names.pascal}`,
        typeName: `${typeName}InputUnder${relation.names.pascal}`,
        field: relation.field,
        declaration: intersectionAlias(
          `${typeName}InputUnder${relation.names.pascal}`,
          `Omit<${typeName}Input, '${relation.field}'>`,
          `Partial<Pick<${typeName}Input, '${relation.field}'>>`,
        ),
        url: `/${relation.target}/{id}/${inverse?.names.kebab ?? ''}`,
        schema: inputUnderSchema(api, resource, relation.field),
      };
    }),
    ...(nested !== undefined && { nested }),
    get listSpec() {
      return lazy.listSpec();
    },
    ...(owner !== undefined && { owner }),
    accessRules: accessRules(resource),
    accessSummary: accessSummary(resource),
    actions,
    setActions: actions.filter((a) => a.generated),
    handlerActions,
    hasActions: actions.length > 0,
    hasHandlerActions: handlerActions.length > 0,
    hasItemHandlers: handlerActions.some((a) => a.item),
    methodGuards: methodGuardsOf(resource),
    orphanHandlers: orphans,
    get store() {
      return lazy.store();
    },
    get routes() {
      return lazy.routes();
    },
    actionsFile: {
      imports: actionImports(resource, actions, orphans.length > 0, typeName),
      handlersParam: handlerActions.length > 0 ? `handlers: ${names.pascal}Handlers,` : '',
      ...(actions.some((a) => a.hidden) && { reads: js(resource.owners) }),
    },
  };
}
