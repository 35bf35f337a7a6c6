import type { Action, Api, Field, JsonValue, Resource } from '../model.js';
import { capitalise } from '../naming.js';
import type { JsonSchema } from '../contract/json-schemas.js';
import { createdUnder } from '../contract/relations.js';
import { preconditionFields, sampleBody, sampleChange } from '../contract/samples.js';
import { openApiSchema, ref } from './parts.js';
import { EVENT_SCHEMAS, WEBHOOK_SCHEMAS } from './events.js';
import { filterClaims } from './filters.js';

/** The operationId of an action: `publishPost` on an item, `importPosts` on the collection. */
export const actionOperation = (r: Resource, action: Action): string =>
  `${action.names.camel}${action.on === 'item' ? r.typeName : r.names.pascal}`;

/**
 * The name of every schema in `components.schemas`, by what it is (`record:posts`, `enum:posts.status`…), so that
 * generators name their types after them (`Post`, `PostPage`, `PostStatus`, `ImportPostsInput`) instead of after the
 * place they were first met (`ListPosts200`). The problem's names come first, then the resources'; a later clash
 * (a resource named `problems`, an enum `input` beside `PostInput`) gets a number.
 */
export class SchemaNames {
  readonly #byKey = new Map<string, string>();
  readonly #taken = new Set<string>();

  constructor(api: Api) {
    // the problem's name is fixed: every response component refers to it
    this.#claim('problem', 'Problem');
    this.#claim('problemError', 'ProblemError');
    this.#claim('problemType', 'ProblemType');
    this.#claim('health', 'Health');
    for (const r of api.resources) this.#claim(`record:${r.name}`, r.typeName);
    for (const r of api.resources) {
      const type = this.of(`record:${r.name}`);
      for (const kind of ['Input', 'Patch', 'Page']) this.#claim(`${kind.toLowerCase()}:${r.name}`, `${type}${kind}`);
      if (r.relations.length > 0) this.#claim(`include:${r.name}`, `${type}Include`);
      for (const relation of createdUnder(api, r)) {
        this.#claim(`inputUnder:${r.name}.${relation.name}`, `${type}InputUnder${relation.names.pascal}`);
      }
      for (const f of r.fields) {
        if (f.type === 'enum') this.#claim(`enum:${r.name}.${f.name}`, `${type}${f.names.pascal}`);
      }
      for (const a of r.actions.filter((action) => action.method === 'post')) {
        const operation = capitalise(actionOperation(r, a));
        if (a.input.length > 0) this.#claim(`action:${r.name}.${a.name}`, `${operation}Input`);
        for (const f of a.input) {
          if (f.type === 'enum') this.#claim(`enum:${r.name}.${a.name}.${f.name}`, `${operation}${f.names.pascal}`);
        }
      }
    }
    const eventNames =
      api.events === undefined ? [] : [...EVENT_SCHEMAS, ...(api.events.webhooks ? WEBHOOK_SCHEMAS : [])];
    for (const name of eventNames) this.#claim(`events:${name}`, name);
    // the event of each resource's records (`PostEvent`, of a `PostEventType`): the feed's events are one of these,
    // told apart by `resource`
    for (const r of api.events === undefined ? [] : api.resources) {
      const type = this.of(`record:${r.name}`);
      this.#claim(`event:${r.name}`, `${type}Event`);
      this.#claim(`eventType:${r.name}`, `${type}EventType`);
    }
    // last, so that no name of before moves: a clash gives the filter a number
    for (const [key, wanted] of filterClaims(api, (enumKey) => this.of(enumKey))) this.#claim(key, wanted);
  }

  /** The component name of `key`. */
  of(key: string): string {
    const name = this.#byKey.get(key);
    if (name === undefined) throw new Error(`no schema is named for ${key}`);
    return name;
  }

  /** Every name given, by key, in the order given: what a resource's part of the document may refer to. */
  all(): [key: string, name: string][] {
    return [...this.#byKey];
  }

  /** A `$ref` to the schema of `key`. */
  ref(key: string): JsonSchema {
    return ref('schemas', this.of(key));
  }

  /** The enum schemas of `fields` by field name (`key` is `posts` for a resource, `posts.import` for an action). */
  enums(key: string, fields: readonly Field[]): Record<string, string> {
    return Object.fromEntries(
      fields.filter((f) => f.type === 'enum').map((f) => [f.name, this.of(`enum:${key}.${f.name}`)]),
    );
  }

  #claim(key: string, wanted: string): void {
    let name = wanted;
    for (let n = 2; this.#taken.has(name); n += 1) name = `${wanted}${n}`;
    this.#taken.add(name);
    this.#byKey.set(key, name);
  }
}

/** An enum property as a reference to its named schema; a nullable one as that reference or null. */
export function enumRef(property: JsonSchema, name: string): JsonSchema {
  const { type: _type, enum: values, ...rest } = property;
  const target = ref('schemas', name);
  return Array.isArray(values) && values.includes(null)
    ? { anyOf: [target, { type: 'null' }], ...rest }
    : { ...target, ...rest };
}

/** `schema` with each enum property (by name, in `enums`) referring to its named schema. */
export function withEnumRefs(schema: JsonSchema, enums: Record<string, string>): JsonSchema {
  return mapProperties(schema, (field, property) => {
    const name = enums[field];
    return name === undefined || !Array.isArray(property.enum) ? property : enumRef(property, name);
  });
}

/** `schema` with each of its properties passed through `change`. */
function mapProperties(schema: JsonSchema, change: (name: string, property: JsonSchema) => JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties === undefined) return schema;
  const changed = Object.entries(properties).map(([name, property]) => [name, change(name, property)] as const);
  return { ...schema, properties: Object.fromEntries(changed) };
}

/** `property` with `said` added to its description. */
const saying = (property: JsonSchema, said: string): JsonSchema => ({
  ...property,
  description: property.description === undefined ? said : `${String(property.description)} ${said}`,
});

/** The enum schema of a field: its values, named once and referred to by the field and its filters. */
export const enumSchema = (field: Field): JsonSchema => ({
  type: 'string',
  enum: field.values ?? [],
  ...(field.description !== undefined && { description: field.description }),
});

/**
 * A request body the server accepts as it is, from the definition's own constraints: pre-filled by the docs page's
 * "Try it out". A required reference names an example id of its target (which must exist: the field's description
 * says so); an optional one and the owner field (the caller, by default) are left out.
 */
export function exampleBody(api: Api, fields: readonly Field[], owner?: string): Record<string, JsonValue> {
  const samples = sampleBody(fields, 1).body;
  const entries = fields.flatMap((field): [string, JsonValue][] => {
    const sample = samples[field.name];
    if (field.ref === undefined) return sample === undefined ? [] : [[field.name, sample]];
    if (field.readOnly || !field.required || field.name === owner) return [];
    const target = api.resources.find((r) => r.name === field.ref?.to);
    return [[field.name, target?.id === 'integer' ? 1 : '01900000-0000-7000-8000-000000000001']];
  });
  return Object.fromEntries(entries);
}

/** A PATCH body that changes one field (see sampleChange); empty when none fits. */
export function examplePatch(resource: Resource): Record<string, JsonValue> {
  const change = sampleChange(resource.fields, preconditionFields(resource));
  return change === undefined ? {} : { [change.field]: change.value };
}

/**
 * A request body's schema as client generators should read it: a field the server gives a default stays optional
 * for them (openapi-typescript, with its default options, makes a field with `default` required), so the default is
 * said in the field's description and in the extension `x-default` instead; a reference says whose id it holds.
 */
export function requestSchema(schema: unknown, fields: readonly Field[]): JsonSchema {
  return mapProperties(openApiSchema(schema), (name, property) => {
    const field = fields.find((f) => f.name === name);
    const to = field?.ref?.to;
    const described = to === undefined ? property : saying(property, `The id of a record of ${to} (it must exist).`);
    const { default: value, ...rest } = described;
    if (value === undefined) return described;
    // a required field's default is what the records there were took when it was added: clients send it
    if (field?.required === true)
      return saying(rest, `The records that existed when it was added took ${JSON.stringify(value)}.`);
    return { ...saying(rest, `Default: ${JSON.stringify(value)} (when left out).`), 'x-default': value };
  });
}
