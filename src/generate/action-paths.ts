import { allows } from '../contract/access.js';
import { asReturned } from '../contract/returned.js';
import type { Action, JsonValue, Resource, When } from '../model.js';

/** At most this many actions in a row, and this many states of a record looked at: a test's way, not a search. */
const LONGEST = 4;
const STATES = 100;

/** The values of the fields `when` conditions read, as a record's state. */
type State = Record<string, JsonValue | undefined>;

/**
 * The actions a generated test calls, one after the other, to take a new record (its fields at their defaults) to
 * one that `done` accepts, `done` included last: the fewest, each allowed by its own `when` in the state the ones
 * before leave. Only item actions without input, which the administrator calls with an empty body. Undefined when
 * none takes a new record there.
 */
export function actionPath(resource: Resource, done: (action: Action) => boolean): string[] | undefined {
  return search(resource, {}, [], done);
}

/**
 * The actions that take a record made with `body` (its other fields at their defaults) into a state `when` allows:
 * none when it is made there, undefined when no actions take it there. The fields of `body` named `unknown` are not
 * known until the record is made (a value varied per record, a reference, an owner): no condition on them holds
 * until an action sets them.
 */
export function statePath(
  resource: Resource,
  when: When,
  body: Record<string, JsonValue> = {},
  unknown: readonly string[] = [],
): string[] | undefined {
  const holds = (state: State): boolean => when.every((w) => allows(w, state[w.field]));
  const known = Object.fromEntries(Object.entries(body).filter(([name]) => !unknown.includes(name)));
  const fields = when.map((w) => w.field);
  if (holds(startOf(resource, known, fields, unknown))) return [];
  return search(resource, known, fields, (_, after) => holds(after), unknown);
}

function search(
  resource: Resource,
  body: Record<string, JsonValue>,
  watched: readonly string[],
  done: (action: Action, after: State) => boolean,
  unknown: readonly string[] = [],
): string[] | undefined {
  const actions = takeable(resource);
  const start = startOf(resource, body, [...watched, ...actions.flatMap((a) => a.when.map((w) => w.field))], unknown);
  const seen = new Set([JSON.stringify(start)]);
  let frontier: { state: State; path: string[] }[] = [{ state: start, path: [] }];
  for (let depth = 0; depth < LONGEST && frontier.length > 0; depth++) {
    const next: typeof frontier = [];
    for (const { state, path } of frontier) {
      for (const action of actions) {
        if (!action.when.every((w) => allows(w, state[w.field]))) continue;
        const after = { ...state };
        for (const { field, value } of action.set) if (field in after) after[field] = literal(value);
        if (done(action, after)) return [...path, action.name];
        const key = JSON.stringify(after);
        if (seen.has(key) || seen.size >= STATES) continue;
        seen.add(key);
        next.push({ state: after, path: [...path, action.name] });
      }
    }
    frontier = next;
  }
  return undefined;
}

/** The actions a test takes a record through: item actions without input, which it calls with an empty body. */
const takeable = (resource: Resource): Action[] =>
  resource.actions.filter((a) => a.on === 'item' && a.method === 'post' && a.input.length === 0);

/**
 * The state of a record made with `body`: each of `fields` as the body gives it, else at its default (null for a
 * nullable field without one); undefined, which no condition allows, for the `unknown` ones.
 */
function startOf(
  resource: Resource,
  body: Record<string, JsonValue>,
  fields: readonly string[],
  unknown: readonly string[] = [],
): State {
  const valueOf = (name: string): JsonValue | undefined => {
    if (unknown.includes(name)) return undefined;
    const field = resource.fields.find((f) => f.name === name);
    // as the record made holds it (a datetime in UTC), to compare with `when` values (see asReturned)
    const given = name in body ? body[name] : field?.default;
    if (given !== undefined) return asReturned(field, given);
    return field?.nullable === true ? null : undefined;
  };
  return Object.fromEntries([...new Set(fields)].map((name) => [name, valueOf(name)]));
}

/** A value `set` gives, as a `when` reads it: `now` is no value a condition names. */
const literal = (value: Action['set'][number]['value']): JsonValue | undefined =>
  value.kind === 'literal' ? value.value : undefined;
