import type { Api, Field, Resource, SetValue, When } from '../model.js';
import { defaultedOwners, patchedUnlessNull, serverFields, writableFields, writtenFields } from '../schema/columns.js';
import { code, importsOf, join, plain, usesOf, type Code } from './code.js';
import { local, rt } from './symbols.js';
import {
  fieldNamed,
  ownerColumns,
  ownersSetBy,
  resourceStatements,
  selectListOf,
  type StatementText,
} from './sql/statements.js';
import type { OwnerView } from './owner-view.js';
import { decodeExpression, encodeExpression, encodeLiteral, insertDefault, patchExpressions } from './typescript.js';
import { sqlBlock } from './sql/block.js';
import { eventTypes } from '../contract/events.js';
import { followedReferrersOf } from '../contract/referrers.js';

/** The shape of a record in its event, as events/logged.ts reads it (runtime types are not imported here). */
interface EventShape {
  fields: { key: string; column: string; datetime?: true }[];
  owners: string[];
}

/** What store.ts prints: its statements, each with the object that binds it, and the imports of what it uses. */
export interface StoreView {
  imports: string;
  decoders: { key: string; expr: string }[];
  /** the same from a row read as values (see relations/embed.ts), write-only fields left out */
  valueDecoders: { key: string; expr: string }[];
  /** the writable fields' parameters: their names, and the object of their values from `input` */
  writableNames: string;
  writable: string;
  /** the owner column's value of `owner`, when there is an owner */
  ownerValue?: string;
  /** `, owner: string | null` where methods take the owner, else nothing */
  ownerParam: string;
  /** `, owner` where methods pass it on */
  ownerArg: string;
  /** create takes the owner where the server sets the owner field (to the caller) */
  createOwnerParam: string;
  /**
   * `, giver: string | null` where replace and patch take the caller who may not give records away, who keeps every
   * owner field as it is (see auth/owner.ts; null: one who may), else nothing
   */
  giverParam: string;
  giverArg: string;
  /**
   * `, options: WriteOptions = {}` where replace and patch (update) or delete keep a rule's `when` (your code's
   * writes may skip it), else nothing; and the argument that passes it on
   */
  updateOptionsParam: string;
  updateOptionsArg: string;
  deleteOptionsParam: string;
  /** `patch`, or `#patchRow` where `patch` merges json objects first */
  patchMethod: string;
  /** the condition under which a PATCH merges nothing: no json field was sent an object */
  mergeNone: string;
  statements: Record<string, { doc: string; names: string; sql: string; bind: string }>;
  /** per `set` action: its name, what it is for (the definition's description), its UPDATE and binding */
  setActions: {
    name: string;
    camel: string;
    summary: string;
    doc: string;
    names: string;
    sql: string;
    bind: string;
    /** `, giver: string | null` where the action sets owner fields (see giverParam), else nothing */
    giverParam: string;
  }[];
  /** what `patch` takes: `<Type>Changes` where there are read-only fields (your code may change them), else `<Type>Patch` */
  changesType: string;
  /** json fields: a patch that gives an object for one merges it with the stored value first */
  jsonFields: string[];
  /**
   * with `events`: what the store tells the feed (see events/feed.ts), the owners of a record, as code, and (without
   * computed fields) the record as PostgreSQL makes it of a row, for the event of a write (see events/logged.ts)
   */
  events: { types: string[]; owners: string; anyOwner: string; shape: EventShape | false; columns: string } | false;
  /** what the store tells relations of other resources (see relations/embed.ts) */
  relationTarget: {
    idKind: 'text' | 'integer';
    /** the columns embedding reads, in order (see valueDecoders) */
    columns: string[];
    owner?: { columns: string[]; kind: 'text' | 'integer' };
  };
}

/** The param of a binding object: `name` alone when the value is a variable of that name. */
const entry = (name: string, value: Code): Code => (value.text === name ? plain(name) : code`${name}: ${value}`);

/** An object literal of these entries. */
const objectOf = (entries: readonly Code[]): Code =>
  entries.length === 0 ? plain('{}') : code`{ ${join(entries, ', ')} }`;

export function storeView(api: Api, resource: Resource, owner: OwnerView | undefined, typeName: string): StoreView {
  const events = api.events !== undefined;
  const statements = resourceStatements(resource, {
    events,
    deleteReaches: events && followedReferrersOf(api, resource.name).length > 0,
  });
  const defaulted = defaultedOwners(resource);
  const optionalOwner = (f: Field): Field => (defaulted.includes(f) ? { ...f, required: false } : f);
  const writable = writableFields(resource).map((f) => entry(f.name, encodeExpression(optionalOwner(f), 'input')));
  // each field's decoder, from the row object (`row.title`) or, for embedding, from the row's values (`values[1]`) in
  // the order of the columns embedding reads: id, the fields but write-only ones, created_at, updated_at
  const decodersOf = (fields: readonly Field[], at: (column: string, i: number) => string) => [
    { key: 'id', expr: code`${rt.codec(resource.id === 'integer' ? 'numeric' : 'text')}(${at('id', 0)})` },
    ...fields.map((f, i) => ({ key: f.name, expr: decodeExpression(api, f, at(f.column, i + 1)) })),
    { key: 'createdAt', expr: code`${rt.codec('text')}(${at('created_at', fields.length + 1)})` },
    { key: 'updatedAt', expr: code`${rt.codec('text')}(${at('updated_at', fields.length + 2)})` },
  ];
  const decoders = decodersOf(resource.fields, (column) => `row.${column}`);
  const embedded = resource.fields.filter((f) => !f.writeOnly);
  const valueDecoders = decodersOf(embedded, (_, i) => `values[${i}]`);
  const ownerValue: Code | undefined =
    owner === undefined
      ? undefined
      : owner.integer
        ? code`(owner === null ? null : ${rt.codec('subjectAsId')}(owner))`
        : plain('owner');
  const byId = owner === undefined ? [plain('id')] : [plain('id'), plain('owner_scope: ownerValue(owner)')];
  const versioned = [...byId, plain('if_version: expected')];
  // a caller who may not give records away keeps the owner fields as they are (see resourceStatements)
  const giver = owner?.givable === true ? [plain('keep_owners: giver === null ? 0 : 1')] : [];
  /** the values of a `when` (an action's, or an update or delete rule's), as the store binds them */
  const whenBinds = (when: When): Code[] =>
    when.flatMap((w) =>
      w.values
        .filter((v) => v !== null)
        .map((v, i) => entry(`when_${w.field}_${i + 1}`, plain(encodeLiteral(fieldNamed(resource, w.field), v)))),
    );
  /** an update or delete rule's `when`, which a write of your code's skips (`options.anyState`) */
  const ruleBinds = (when: When): Code[] =>
    when.length === 0 ? [] : [plain('any_state: options.anyState === true ? 1 : 0'), ...whenBinds(when)];
  const updateWhen = ruleBinds(resource.writableWhen.update);
  const deleteWhen = ruleBinds(resource.writableWhen.delete);
  const at = code`${rt.codec('now')}()`;

  const binds: Record<string, Code[]> = {
    get: byId,
    insert: [
      ...(resource.id === 'uuid' ? [code`id: ${rt.uuidv7}()`] : []),
      plain('...writable(input)'),
      ...serverFields(resource).map((f) =>
        entry(
          f.name,
          plain(owner?.readOnly === true && f.name === owner.keys[0] ? 'ownerValue(owner)' : insertDefault(f)),
        ),
      ),
      plain('created_at: at'),
      plain('updated_at: at'),
    ],
    update: [plain('...writable(input)'), code`updated_at: ${at}`, ...versioned, ...updateWhen, ...giver],
    patch: [
      ...writtenFields(resource).flatMap((f) => {
        const { given, value } = patchExpressions(f, 'patch');
        return patchedUnlessNull(f) ? [entry(f.name, value)] : [entry(`given_${f.name}`, given), entry(f.name, value)];
      }),
      code`updated_at: ${at}`,
      ...versioned,
      ...updateWhen,
      ...giver,
    ],
    delete: [...versioned, ...deleteWhen],
    deletable: [...versioned, ...deleteWhen],
  };
  const printed = (s: StatementText, bind: readonly Code[]) => ({
    doc: s.doc,
    names: s.names.map((n) => `'${n}'`).join(' | '),
    sql: sqlBlock(s.sql, '    '),
    bind: objectOf(bind),
  });
  const crud = statements.flatMap((s) => {
    const bind = s.action === undefined ? binds[s.key] : undefined;
    return bind === undefined ? [] : [[s.key, printed(s, bind)] as const];
  });
  const setActions = resource.actions
    .filter((a) => a.set.length > 0)
    .map((action) => {
      const statement = statements.find((s) => s.action === action.names.camel);
      if (statement === undefined) throw new Error(`no statement for the ${action.name} action`);
      const field = (name: string): Field => fieldNamed(resource, name);
      const bind = [
        ...action.set.map((s) => entry(s.field, plain(setValue(field(s.field), s.value)))),
        plain('updated_at: at'),
        ...versioned,
        ...whenBinds(action.when),
        ...(ownersSetBy(resource, action).length > 0 ? [plain('keep_owners: giver === null ? 0 : 1')] : []),
      ];
      const path = `/${resource.name}/{id}/${action.name}`;
      return {
        name: action.name,
        camel: action.names.camel,
        summary: action.description ?? `POST ${path}`,
        ...printed(statement, bind),
        giverParam: ownersSetBy(resource, action).length > 0 ? ', giver: string | null' : '',
      };
    });

  const allCode = [
    ...decoders.map((d) => d.expr),
    ...writable,
    ...(ownerValue === undefined ? [] : [ownerValue]),
    ...crud.map(([, s]) => s.bind),
    ...setActions.map((s) => s.bind),
  ];
  const changes = serverFields(resource).length > 0 ? 'Changes' : 'Patch';
  const jsonFields = writtenFields(resource)
    .filter((f) => f.type === 'json')
    .map((f) => f.name);
  const imports = importsOf([
    ...usesOf(allCode),
    rt.codec('now'),
    rt.codec('numeric'),
    rt.Row,
    rt.SqlValue,
    rt.Store,
    rt.Listing,
    local.schema('listSpec'),
    rt.Page,
    rt.Versioned,
    ...(setActions.length > 0 ? [rt.ActionOutcome] : []),
    ...(updateWhen.length + deleteWhen.length > 0 ? [rt.WriteOptions] : []),
    ...(jsonFields.length > 0 ? [rt.codec('merges'), rt.codec('mergePatch'), rt.DatabaseUnavailableError] : []),
    // the type of a write-only json field, in `Stored`
    ...(resource.fields.some((f) => f.writeOnly && f.type === 'json') ? [rt.JsonValue] : []),
    ...['', 'Input', 'ListQuery', changes].map((suffix) => local.model(typeName + suffix)),
    ...(resource.computed.length > 0
      ? [local.model(`${typeName}Stored`), local.computed(resource.names.kebab, `${resource.names.camel}Computed`)]
      : []),
    ...(resource.relations.length > 0 ? [rt.RelationTarget, rt.Parent, rt.RelatedScopes, rt.access] : []),
    ...(api.events === undefined
      ? []
      : [rt.Change, rt.EventSource, rt.access, ...(resource.computed.length === 0 ? [rt.EventShape] : [])]),
  ]);
  return {
    imports,
    decoders: decoders.map((d) => ({ key: d.key, expr: d.expr.text })),
    valueDecoders: valueDecoders.map((d) => ({ key: d.key, expr: d.expr.text })),
    writableNames:
      writableFields(resource)
        .map((f) => `'${f.name}'`)
        .join(' | ') || 'never',
    writable: objectOf(writable).text,
    ...(ownerValue !== undefined && { ownerValue: ownerValue.text }),
    ownerParam: owner === undefined ? '' : ', owner: string | null',
    ownerArg: owner === undefined ? '' : ', owner',
    createOwnerParam: owner?.readOnly === true ? ', owner: string | null' : '',
    giverParam: owner?.givable === true ? ', giver: string | null' : '',
    giverArg: owner?.givable === true ? ', giver' : '',
    updateOptionsParam: updateWhen.length === 0 ? '' : ', options: WriteOptions = {}',
    updateOptionsArg: updateWhen.length === 0 ? '' : ', options',
    deleteOptionsParam: deleteWhen.length === 0 ? '' : ', options: WriteOptions = {}',
    changesType: typeName + changes,
    patchMethod: jsonFields.length > 0 ? '#patchRow' : 'patch',
    mergeNone: jsonFields.map((f) => `!merges(patch.${f})`).join(' && '),
    statements: Object.fromEntries(crud.map(([key, s]) => [key, { ...s, bind: s.bind.text }])),
    setActions: setActions.map((s) => ({ ...s, bind: s.bind.text })),
    jsonFields,
    events: api.events !== undefined && {
      types: eventTypes(resource),
      owners: `[${resource.owners.map((name) => `stored.${name}`).join(', ')}]`,
      anyOwner: owner === undefined ? '' : ', null',
      columns: selectListOf(resource),
      shape: resource.computed.length === 0 && {
        fields: [
          { key: 'id', column: 'id' },
          ...embedded.map((f) => ({
            key: f.name,
            column: f.column,
            ...(f.type === 'datetime' && { datetime: true as const }),
          })),
          { key: 'createdAt', column: 'created_at', datetime: true as const },
          { key: 'updatedAt', column: 'updated_at', datetime: true as const },
        ],
        owners: ownerColumns(resource),
      },
    },
    relationTarget: {
      idKind: resource.id === 'integer' ? 'integer' : 'text',
      columns: ['id', ...embedded.map((f) => f.column), 'created_at', 'updated_at'],
      ...(owner !== undefined && {
        owner: { columns: ownerColumns(resource), kind: owner.integer ? 'integer' : 'text' },
      }),
    },
  };
}

/** The value an action's `set` writes: `now` is the clock's instant, or its UTC day for a date field. */
function setValue(field: Field, value: SetValue): string {
  if (value.kind === 'literal') return encodeLiteral(field, value.value);
  return field.type === 'date' ? 'at.slice(0, 10)' : 'at';
}
