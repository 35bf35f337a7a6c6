import type { Action, Api, Field, Resource } from '../model.js';
import { isPublic } from '../contract/access.js';
import { actionInputSchema, type JsonSchema } from '../contract/json-schemas.js';
import { fieldNamed } from './sql/statements.js';
import { encodeLiteral, inputType } from './typescript.js';

/** What the templates print for one action. */
export interface ActionView {
  name: string;
  camel: string;
  pascal: string;
  item: boolean;
  path: string;
  /** the path as documentation writes it: `/posts/{id}/publish` */
  displayPath: string;
  doc: string;
  /** a `set` action runs one generated UPDATE; the others call a handler in a user-owned file */
  generated: boolean;
  /** whether the route runs the access guard: a public `set` action needs no caller */
  guarded: boolean;
  inputProperties: { key: string; type: string; optional: boolean }[];
  hasInput: boolean;
  inputSchema: JsonSchema;
  /** expressions of the UPDATE's parameters before the id, and after it (when values) */
  setParams: string[];
  whenParams: string[];
  /** the conditions of `when` in words (from the definition: escape wherever it is printed) */
  whenText: string;
  /** the start of the 409 detail when `when` fails */
  refusal: string;
  whenFields: string[];
}

export function actionView(api: Api, resource: Resource, action: Action): ActionView {
  const path = action.on === 'item' ? `/${resource.name}/:id/${action.name}` : `/${resource.name}/${action.name}`;
  const field = (name: string): Field => fieldNamed(resource, name);
  return {
    name: action.name,
    camel: action.names.camel,
    pascal: action.names.pascal,
    item: action.on === 'item',
    path,
    displayPath: path.replace(':id', '{id}'),
    doc: action.description ?? `POST ${path.replace(':id', '{id}')}`,
    generated: action.set.length > 0,
    guarded: action.set.length === 0 || !isPublic(action.access),
    inputProperties: action.input.map((f) => ({ key: f.name, type: inputType(api, f), optional: !f.required })),
    hasInput: action.input.length > 0,
    inputSchema: actionInputSchema(api, action),
    setParams: action.set.map((s) => (s.value.kind === 'now' ? 'at' : encodeLiteral(field(s.field), s.value.value))),
    whenParams: action.when.flatMap((w) =>
      w.values.filter((v) => v !== null).map((v) => encodeLiteral(field(w.field), v)),
    ),
    whenText: whenText(action),
    whenFields: action.when.map((w) => w.field),
    refusal: `${action.name} needs ${whenText(action)}`,
  };
}

function whenText(action: Action): string {
  return action.when
    .map(
      (w) =>
        `${w.field} ${w.values.length === 1 ? 'to be' : 'to be one of'} ${w.values.map((v) => JSON.stringify(v)).join(', ')}`,
    )
    .join(' and ');
}
