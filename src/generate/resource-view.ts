import { OPERATIONS, type Api, type Field, type Operation, type Resource } from '../model.js';
import { accessRules, accessSummary, isPublic } from '../contract/access.js';
import { actionView, type ActionView } from './action-view.js';
import { inputSchema, paramsSchema, patchSchema, recordSchema, type JsonSchema } from '../contract/json-schemas.js';
import { serverFields, writableFields } from '../schema/columns.js';
import { sqlite as sqliteDialect, type SqlDialect } from '../schema/dialect.js';
import { ownerColumn, resourceStatements, selectListOf } from './sql/statements.js';
import { listQuerySchema } from '../contract/listing.js';
import { listSpec } from './list-spec.js';
import {
  codecNames,
  decodeExpression,
  encodeExpression,
  patchExpression,
  idType,
  inputType,
  patchType,
  insertDefault,
  outputType,
  valueType,
} from './typescript.js';

/** Everything the templates of one resource print; computed here so that templates hold no logic. */
export interface ResourceView {
  name: string;
  camel: string;
  pascal: string;
  kebab: string;
  typeName: string;
  description: string;
  path: string;
  itemPath: string;
  idType: string;
  uuidIds: boolean;
  cursorKind: 'string' | 'integer';
  usesJson: boolean;
  hasWriteOnly: boolean;
  /** writable json fields: a PATCH that sends an object for one merges it with the stored value (in the store) */
  jsonFields: string[];
  operations: Record<Operation, boolean>;
  recordProperties: { key: string; type: string; doc?: string }[];
  inputProperties: { key: string; type: string; optional: boolean }[];
  patchProperties: { key: string; type: string }[];
  writeOnlyProperties: { key: string; type: string }[];
  decoders: { key: string; expr: string }[];
  writableParams: string[];
  patchParams: string[];
  insertOnlyParams: string[];
  codecImports: string;
  statements: { key: string; doc: string; sql: Record<string, string> }[];
  readOnlyNames: string[];
  uniqueMessage: string;
  missingReferenceMessage: string;
  /** ref field → the collection it refers to, for the 409 that names a missing reference */
  references: Record<string, string>;
  stillReferencedMessage: string;
  notFoundMessage: string;
  record: JsonSchema;
  input: JsonSchema;
  patch: JsonSchema;
  params: JsonSchema;
  listQuery: JsonSchema;
  /** what the store's Listing needs: table, columns, owner column */
  listSpec: JsonSchema;
  owner?: OwnerView;
  /** flat copies of `owner`'s flags, for templates (false without an owner) */
  ownerReadOnly: boolean;
  ownerWritable: boolean;
  ownerRequired: boolean;
  ownerInteger: boolean;
  accessRules: { key: string; rule: Record<string, unknown> }[];
  accessSummary: { what: string; who: string }[];
  actions: ActionView[];
  setActions: ActionView[];
  handlerActions: ActionView[];
  hasActions: boolean;
  hasSetActions: boolean;
  hasHandlerActions: boolean;
  /** an action whose route takes no body (an empty one at most) */
  anyActionWithoutInput: boolean;
  hasItemHandlers: boolean;
  actionTypeImports: string;
  methodGuards: { url: string; allowed: string[] }[];
  /**
   * Which routes run the access guard. A public rule admits everyone and restricts no one, so its route needs no
   * guard, unless it needs the caller: a create that sets the owner field.
   */
  guarded: Record<Operation, boolean>;
  /** whether routes.ts has PUT, PATCH or DELETE, which honour If-Match */
  hasConditionalWrites: boolean;
  /** whether any CRUD route runs the guard (routes.ts then imports the rules) */
  anyGuarded: boolean;
  /** whether any action route runs the guard (actions.ts then imports the rules) */
  anyActionGuarded: boolean;
  /** a PUT or PATCH that checks the owner field against the caller */
  ownedUpdate: boolean;
  /** what actions.ts imports from http/problem.ts and ./schemas.ts */
  actionProblemImports: string;
  actionSchemaImports: string;
  actionModelImports: string;
  /** the model types routes.ts uses, for its import */
  routeModelImports: string;
  /** handlers in the user-owned file whose actions were removed: typed so that they still compile */
  orphanHandlers: string[];
}

/** The field that `owner` rules compare with the token subject, as the routes and the store need it. */
export interface OwnerView {
  key: string;
  /** the TypeScript type of the field's value */
  type: string;
  /** a field a client writes (else the server sets it, or it is the id) */
  writable: boolean;
  readOnly: boolean;
  required: boolean;
  /** an integer id: subjects are converted with subjectAsId */
  integer: boolean;
  /** the field's value for `scope.caller.subject` */
  fromSubject: string;
  /** the column value for `owner: string | null` */
  valueExpr: string;
}

export function resourceView(
  api: Api,
  resource: Resource,
  dialects: readonly SqlDialect[],
  orphanHandlers: readonly string[] = [],
): ResourceView {
  const { names } = resource;
  const lower = resource.typeName.charAt(0).toLowerCase() + resource.typeName.slice(1);
  const path = `/${resource.name}`;
  const visible = resource.fields.filter((f) => !f.writeOnly);
  const writable = writableFields(resource);
  const decoders = [
    { key: 'id', expr: resource.id === 'integer' ? 'numeric(row.id)' : 'text(row.id)' },
    ...resource.fields.map((f) => ({ key: f.name, expr: decodeExpression(api, f) })),
    { key: 'createdAt', expr: 'text(row.created_at)' },
    { key: 'updatedAt', expr: 'text(row.updated_at)' },
  ];
  // the owner field may be left out: it defaults to the caller on create and keeps its value on PUT
  const optionalOwner = (f: Field): Field => (f.name === resource.owner ? { ...f, required: false } : f);
  const writableParams = writable.map((f) => encodeExpression(optionalOwner(f), 'input'));
  const patchParams = writable.map((f) => patchExpression(f, 'patch'));
  const perDialect = dialects.map((d) => ({ dialect: d.name, statements: resourceStatements(resource, d) }));
  const statements = (perDialect[0]?.statements ?? []).map((s, i) => ({
    key: s.key,
    doc: s.doc,
    sql: Object.fromEntries(perDialect.map((p) => [p.dialect, p.statements[i]?.sql ?? ''])),
  }));
  const owner = ownerView(api, resource);
  // a public rule needs no guard, unless the route needs the caller: a create that sets the owner field
  const guarded = Object.fromEntries(
    OPERATIONS.map((op) => [
      op,
      !isPublic(resource.access[op]) || (op === 'create' && (owner?.writable === true || owner?.readOnly === true)),
    ]),
  ) as Record<Operation, boolean>;
  const actions = resource.actions.map((a) => actionView(api, resource, a));
  const setActions = actions.filter((a) => a.generated);
  const handlerActions = actions.filter((a) => !a.generated);
  // handlers the user wrote for actions the definition dropped: kept, typed loosely (see actions.ts)
  const hasOrphans = orphanHandlers.length > 0 && handlerActions.length > 0;
  const refFields = resource.fields.filter((f) => f.ref !== undefined).map((f) => f.name);
  const uniqueFields = resource.fields.filter((f) => f.unique).map((f) => f.name);

  return {
    name: resource.name,
    camel: names.camel,
    pascal: names.pascal,
    kebab: names.kebab,
    typeName: resource.typeName,
    description: resource.description ?? `A record of \`${path}\`.`,
    path,
    itemPath: `${path}/:id`,
    idType: idType(resource.id),
    uuidIds: resource.id === 'uuid',
    cursorKind: resource.id === 'integer' ? 'integer' : 'string',
    usesJson: resource.fields.some((f) => f.type === 'json'),
    hasWriteOnly: resource.fields.some((f) => f.writeOnly),
    jsonFields: writable.filter((f) => f.type === 'json').map((f) => f.name),
    operations: Object.fromEntries(
      (['list', 'read', 'create', 'update', 'delete'] as const).map((op) => [op, resource.operations.includes(op)]),
    ) as Record<Operation, boolean>,
    recordProperties: [
      { key: 'id', type: idType(resource.id) },
      ...visible.map((f) => ({ key: f.name, type: outputType(api, f), doc: f.description })),
      { key: 'createdAt', type: 'string', doc: 'when the record was created (ISO 8601, UTC)' },
      { key: 'updatedAt', type: 'string', doc: 'when the record was last written (ISO 8601, UTC)' },
    ],
    inputProperties: writable.map((f) => ({
      key: f.name,
      type: inputType(api, f),
      optional: !optionalOwner(f).required,
    })),
    patchProperties: writable.map((f) => ({ key: f.name, type: patchType(api, f, resource.owner) })),
    writeOnlyProperties: resource.fields
      .filter((f) => f.writeOnly)
      .map((f) => ({ key: f.name, type: outputType(api, f) })),
    decoders,
    writableParams,
    patchParams,
    insertOnlyParams: serverFields(resource).map((f) =>
      f.name === resource.owner ? 'ownerValue(owner)' : insertDefault(f),
    ),
    codecImports: codecNames([
      ...decoders.map((d) => d.expr),
      ...writableParams,
      ...patchParams,
      owner?.valueExpr ?? '',
      writable.some((f) => f.type === 'json') ? 'merges(patch) mergePatch(stored, patch)' : '',
    ]).join(', '),
    statements,
    readOnlyNames: ['id', ...resource.fields.filter((f) => f.readOnly).map((f) => f.name), 'createdAt', 'updatedAt'],
    uniqueMessage:
      uniqueFields.length > 0
        ? `${/^[aeiou]/i.test(lower) ? 'an' : 'a'} ${lower} with this ${uniqueFields.join(' or ')} already exists`
        : `this ${lower} already exists`,
    missingReferenceMessage:
      refFields.length > 0
        ? `the record that ${refFields.join(' or ')} refers to does not exist`
        : 'a referenced record does not exist',
    references: Object.fromEntries(
      writable.filter((f) => f.type === 'ref' && f.ref !== undefined).map((f) => [f.name, f.ref?.to ?? '']),
    ),
    stillReferencedMessage: `other records still refer to this ${lower}`,
    notFoundMessage: `no ${lower} has this id`,
    record: recordSchema(api, resource),
    input: inputSchema(api, resource),
    patch: patchSchema(api, resource),
    params: paramsSchema(resource),
    listQuery: listQuerySchema(api, resource),
    listSpec: listSpec(resource, api, selectListOf(resource, dialects[0] ?? sqliteDialect)),
    ...(owner !== undefined && { owner }),
    ownerReadOnly: owner?.readOnly ?? false,
    ownerWritable: owner?.writable ?? false,
    ownerRequired: owner?.required ?? false,
    ownerInteger: owner?.integer ?? false,
    accessRules: accessRules(resource),
    accessSummary: accessSummary(resource),
    actions,
    setActions,
    handlerActions,
    hasActions: actions.length > 0,
    anyActionWithoutInput: actions.some((a) => !a.hasInput),
    hasSetActions: setActions.length > 0,
    hasHandlerActions: handlerActions.length > 0,
    hasItemHandlers: handlerActions.some((a) => a.item),
    actionTypeImports: [
      ...(handlerActions.length > 0 ? ['ActionResult'] : []),
      ...(resource.actions.some((a) => a.input.some((f) => f.type === 'json')) || hasOrphans ? ['JsonValue'] : []),
    ].join(', '),
    methodGuards: methodGuards(resource),
    guarded,
    ownedUpdate: owner?.writable === true && !isPublic(resource.access.update),
    anyActionGuarded: actions.some((a) => a.guarded),
    hasConditionalWrites: resource.operations.includes('update') || resource.operations.includes('delete'),
    anyGuarded: resource.operations.some((op) => guarded[op]),
    actionProblemImports: [
      ...(setActions.length > 0 ? ['conflict'] : []),
      ...(setActions.length > 0 || handlerActions.some((a) => a.item) ? ['notFound'] : []),
    ].join(', '),
    actionSchemaImports: [
      ...(actions.some((a) => a.item) ? ['params'] : []),
      ...(setActions.length > 0 ? ['record'] : []),
    ].join(', '),
    actionModelImports: [
      ...(setActions.length > 0 || handlerActions.some((a) => a.item) || hasOrphans ? [resource.typeName] : []),
      ...(actions.some((a) => a.item) ? [`${resource.typeName}Params`] : []),
    ].join(', '),
    routeModelImports: [
      ...(resource.operations.includes('create') || resource.operations.includes('update') ? ['Input'] : []),
      ...(resource.operations.includes('list') ? ['ListQuery'] : []),
      ...(['read', 'update', 'delete'].some((op) => resource.operations.includes(op as Operation)) ? ['Params'] : []),
      ...(resource.operations.includes('update') ? ['Patch'] : []),
    ]
      .map((suffix) => resource.typeName + suffix)
      .join(', '),
    orphanHandlers: [...orphanHandlers],
  };
}

function ownerView(api: Api, resource: Resource): OwnerView | undefined {
  const column = ownerColumn(resource);
  if (resource.owner === undefined || column === undefined) return undefined;
  const field = resource.fields.find((f) => f.name === resource.owner);
  const type = field === undefined ? idType(resource.id) : valueType(api, field);
  const integer = type === 'number';
  return {
    key: resource.owner,
    type,
    writable: field !== undefined && !field.readOnly,
    readOnly: field?.readOnly ?? false,
    required: field?.required ?? false,
    integer,
    fromSubject: integer ? 'subjectAsId(scope.caller.subject)' : 'scope.caller.subject',
    valueExpr: integer ? 'owner === null ? null : subjectAsId(owner)' : 'owner',
  };
}

/** The methods each known path takes; the others answer 405 with `Allow`. */
function methodGuards(resource: Resource): { url: string; allowed: string[] }[] {
  const has = (op: Operation): boolean => resource.operations.includes(op);
  const collection = [...(has('list') ? ['GET'] : []), ...(has('create') ? ['POST'] : [])];
  const item = [
    ...(has('read') ? ['GET'] : []),
    ...(has('update') ? ['PUT', 'PATCH'] : []),
    ...(has('delete') ? ['DELETE'] : []),
  ];
  return [
    ...(collection.length > 0 ? [{ url: `/${resource.name}`, allowed: collection }] : []),
    ...(item.length > 0 ? [{ url: `/${resource.name}/:id`, allowed: item }] : []),
  ];
}
