/**
 * Translates zod issues into messages a user can act on, each tied to the path of the node it concerns.
 * Zod knows which rule failed; the raw data tells what was written, so messages quote it.
 */
import type * as z from 'zod';
import { FIELD_TYPES } from '../model.js';
import { didYouMean, closest } from './did-you-mean.js';
import { ALL_FIELD_OPTIONS, isFieldType, optionsOf } from './field-schema.js';
import type { Located, PathSeg } from './positions.js';
import { describeValue, isRecord, oneOf, valueAt } from './raw.js';
import { KNOWN_KEYS } from './schema.js';

type Issue = z.core.$ZodIssue;
type UnionIssue = Extract<Issue, { code: 'invalid_union' }>;

/** A located message, plus what it implies, so that redundant messages can be dropped. */
interface Translated extends Located {
  /** the key an unknown key was probably meant to be */
  suggests?: string;
  /** the required key found missing */
  missing?: string;
}

export function translateIssues(issues: readonly Issue[], data: unknown): Located[] {
  const translated = issues.flatMap((issue) => translate(issue, [], data));
  return dropImpliedMissingKeys(translated).map(({ path, anchor, message }) => ({ path, anchor, message }));
}

/** `fileds: …` gives "unknown key (did you mean "fields"?)"; "missing required key fields" adds nothing. */
function dropImpliedMissingKeys(all: Translated[]): Translated[] {
  const parentOf = (path: PathSeg[]): string => JSON.stringify(path.slice(0, -1));
  const suggested = new Set(all.filter((t) => t.suggests).map((t) => `${parentOf(t.path)}|${t.suggests}`));
  return all.filter((t) => t.missing === undefined || !suggested.has(`${parentOf(t.path)}|${t.missing}`));
}

/** Codes zod gives for a required key that is absent, depending on the key's schema. */
const MISSING_CODES: ReadonlySet<string> = new Set(['invalid_type', 'invalid_value', 'invalid_union']);

function translate(issue: Issue, base: PathSeg[], data: unknown): Translated[] {
  const path = [...base, ...issue.path.map((seg) => (typeof seg === 'number' ? seg : String(seg)))];
  const raw = valueAt(data, path);
  if (raw === undefined && path.length > 0 && MISSING_CODES.has(issue.code) && issue.path.length > 0) {
    const key = String(path[path.length - 1]);
    return [{ path, message: `missing required key "${key}"`, missing: key }];
  }
  switch (issue.code) {
    case 'invalid_union':
      return unionIssue(issue, path, raw, data);
    case 'unrecognized_keys':
      return issue.keys.map((key) => unknownKey(path, key, raw));
    case 'invalid_type':
      return [typeIssue(wantsInteger(issue.expected, path, data) ? 'int' : issue.expected, path, raw)];
    case 'invalid_value':
      return [valueIssue(issue.values.map(String), path, raw)];
    case 'invalid_key':
      return [{ path, anchor: 'key', message: keyMessage(path, issue.issues[0]?.message) }];
    case 'custom':
      // a bad name of a named map (see namedMap in schema.ts): at its key
      if ((issue.params as { key?: boolean } | undefined)?.key === true) {
        return [{ path, anchor: 'key', message: keyMessage(path, issue.message) }];
      }
      return [{ path, message: issue.message }];
    case 'invalid_format':
      return [{ path, message: `${describeValue(raw)} is not a valid ${nounOf(path)}: ${issue.message}` }];
    case 'too_small':
      return [{ path, message: sizeMessage('small', issue.origin, Number(issue.minimum), issue.inclusive, raw) }];
    case 'too_big':
      return [{ path, message: sizeMessage('big', issue.origin, Number(issue.maximum), issue.inclusive, raw) }];
    default:
      return [{ path, message: issue.message }];
  }
}

/**
 * zod's integer schema reports a value that is not a number at all as "expected number"; this tells
 * where an integer is wanted: lengths, limits, and the options of an integer field.
 */
function wantsInteger(expected: string, path: readonly PathSeg[], data: unknown): boolean {
  if (expected !== 'number') return false;
  const key = lastKey(path);
  if (key === 'minLength' || key === 'maxLength' || path[0] === 'limits') return true;
  const parent = valueAt(data, path.slice(0, -1));
  return isRecord(parent) && parent.type === 'integer';
}

// ── context ──────────────────────────────────────────────────────────────────────────────────────────

const lastKey = (path: readonly PathSeg[]): string => {
  for (let i = path.length - 1; i >= 0; i--) {
    const seg = path[i];
    if (typeof seg === 'string') return seg;
  }
  return '';
};

/** A field: `resources.<r>.fields.<f>` or `resources.<r>.actions.<a>.input.fields.<f>`. */
const isFieldPath = (path: readonly PathSeg[]): boolean => path[path.length - 2] === 'fields';

type MapKind = keyof typeof KNOWN_KEYS | 'field';

/** What kind of map sits at `path`, to know which keys it accepts. */
function mapKind(path: readonly PathSeg[]): MapKind | undefined {
  const [first, , third] = path;
  const last = path[path.length - 1];
  if (path.length === 0) return 'definition';
  if (isFieldPath(path)) return 'field';
  if (
    path.length === 1 &&
    (first === 'auth' || first === 'limits' || first === 'cors' || first === 'events' || first === 'problems')
  )
    return first;
  if (path.length === 2 && first === 'events' && last === 'retry') return 'retry';
  if (path.length === 2 && first === 'limits' && (last === 'pageSize' || last === 'rateLimit')) return last;
  if (first !== 'resources') return undefined;
  if (path.length === 2) return 'resource';
  if (path.length === 3 && last === 'access') return 'access';
  if (path.length === 4 && third === 'access' && (last === 'update' || last === 'delete')) return 'guardedAccess';
  if (path.length === 4 && third === 'actions') return 'action';
  if (path.length === 5 && third === 'actions' && last === 'input') return 'input';
  if (path.length === 4 && third === 'relations') return 'relation';
  if (last === 'deprecated' && (path.length === 3 || (path.length === 5 && third === 'actions'))) return 'deprecated';
  return undefined;
}

const NAME_NOUNS: Record<string, string> = {
  resources: 'resource name',
  fields: 'field name',
  actions: 'action name',
  relations: 'relation name',
  when: 'field name',
  set: 'field name',
};

const VALUE_NOUNS: Record<string, string> = {
  type: 'type',
  operations: 'operation',
  id: 'id kind',
  onDelete: 'onDelete rule',
  format: 'format',
  bodySize: 'size',
  window: 'duration',
  maxAge: 'duration',
  retention: 'duration',
  firstDelay: 'duration',
  since: 'date',
  sunset: 'date',
  link: 'URL',
  origins: 'origin',
  roles: 'role name',
  adminRole: 'role name',
};

const ACCESS_KEYS = new Set(['list', 'read', 'create', 'update', 'delete', 'access', 'default']);

function nounOf(path: readonly PathSeg[]): string {
  const key = lastKey(path);
  if (ACCESS_KEYS.has(key) && !isFieldPath(path.slice(0, -1))) return 'access rule';
  return VALUE_NOUNS[key] ?? key;
}

// ── messages per issue kind ──────────────────────────────────────────────────────────────────────────

function unionIssue(issue: UnionIssue, path: PathSeg[], raw: unknown, data: unknown): Translated[] {
  if (issue.discriminator !== undefined) return [fieldTypeIssue(path, raw)];
  const fitting = issue.errors.filter((branch) => !mismatchesKind(branch, raw));
  const best = fitting.sort((a, b) => a.length - b.length)[0];
  if (best) return best.flatMap((branchIssue) => translate(branchIssue, path, data));
  if (isFieldPath(path)) {
    return [{ path, message: `expected a type name or a map with "type", got ${describeValue(raw)}` }];
  }
  const expected = expectations(issue);
  return [{ path, message: `expected ${oneOf([...new Set(expected)], false)}, got ${describeValue(raw)}` }];
}

/** A branch of a union that failed because the value is of another kind (a string for a map…). */
function mismatchesKind(branch: readonly Issue[], raw: unknown): boolean {
  return branch.some((i) => {
    if (i.path.length > 0) return false;
    if (i.code === 'invalid_type') return true;
    if (i.code === 'invalid_value') return !i.values.some((v) => typeof v === typeof raw);
    // a nested union (without discriminator) mismatches when all its branches do
    return i.code === 'invalid_union' && i.discriminator === undefined && i.errors.every((b) => mismatchesKind(b, raw));
  });
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'a map',
  record: 'a map',
  array: 'a list',
  null: 'null',
};

function expectations(issue: Issue): string[] {
  if (issue.code === 'invalid_type') return [EXPECTED[issue.expected] ?? issue.expected];
  if (issue.code === 'invalid_value') return issue.values.map((v) => JSON.stringify(v));
  if (issue.code === 'invalid_union') return issue.errors.flatMap((b) => b.filter(atRoot).flatMap(expectations));
  return [];
}

const atRoot = (issue: Issue): boolean => issue.path.length === 0;

/** `type` of a field map is missing or names no type. `path` ends with `type`. */
function fieldTypeIssue(path: PathSeg[], raw: unknown): Translated {
  if (typeof raw !== 'string') return { path, message: `expected a type name, got ${describeValue(raw)}` };
  return { path, message: unknownTypeMessage(raw, FIELD_TYPES) };
}

function unknownTypeMessage(written: string, types: readonly string[]): string {
  const hint = didYouMean(written, types) || ` (expected ${oneOf(types)})`;
  return `unknown type "${written}"${hint}`;
}

function valueIssue(values: string[], path: PathSeg[], raw: unknown): Translated {
  if (isFieldPath(path) && typeof raw === 'string') return { path, message: shorthandMessage(raw) };
  if (typeof raw !== 'string') return { path, message: `expected ${oneOf(values)}, got ${describeValue(raw)}` };
  const key = lastKey(path);
  const noun = VALUE_NOUNS[key];
  const head = noun ? `unknown ${noun} "${raw}"` : `unknown value "${raw}" for ${key}`;
  return { path, message: head + (didYouMean(raw, values) || ` (expected ${oneOf(values)})`) };
}

/** A field written as a bare type name that is not one, or that needs options. */
function shorthandMessage(written: string): string {
  if (written === 'enum') return 'type enum needs its values: write { type: enum, values: [a, b] }';
  if (written === 'ref') return 'type ref needs its target: write { type: ref, to: <resource> }';
  return unknownTypeMessage(written, FIELD_TYPES);
}

function typeIssue(expected: string, path: PathSeg[], raw: unknown): Translated {
  if (path.length === 0) {
    const what = raw === null || raw === undefined ? 'the file is empty' : `got ${describeValue(raw)}`;
    return { path, message: `${what}; a definition is a map with name, version and resources` };
  }
  const wanted = EXPECTED[expected] ?? expected;
  if (expected === 'string' && (typeof raw === 'number' || typeof raw === 'boolean')) {
    // YAML reads `version: 1.0` as the number 1: showing "1" would only confuse.
    return { path, message: `expected ${wanted}, got a ${typeof raw} (put it in quotes)` };
  }
  return { path, message: `expected ${wanted}, got ${describeValue(raw)}` };
}

function unknownKey(mapPath: PathSeg[], key: string, map: unknown): Translated {
  const path = [...mapPath, key];
  const kind = mapKind(mapPath);
  if (kind === 'field') return { path, anchor: 'key', ...unknownFieldOption(key, map) };
  const known: readonly string[] = kind ? KNOWN_KEYS[kind] : [];
  const suggests = closest(key, known);
  const hint = suggests === undefined ? fragmentHint(key) : ` (did you mean "${suggests}"?)`;
  return { path, anchor: 'key', message: `unknown key "${key}"${hint}`, suggests };
}

function unknownFieldOption(key: string, field: unknown): { message: string; suggests?: string } {
  const type = isRecord(field) ? field.type : undefined;
  const known = isFieldType(type) ? type : undefined;
  if (known && ALL_FIELD_OPTIONS.has(key)) return { message: `option ${key} does not apply to type ${known}` };
  const suggests = closest(key, known ? optionsOf(known) : ALL_FIELD_OPTIONS);
  const hint = suggests === undefined ? fragmentHint(key) : ` (did you mean "${suggests}"?)`;
  return { message: `unknown option "${key}"${hint}`, suggests };
}

/**
 * A key no option could be (a space, punctuation) is most often a piece of a text: in `{ description: a, b }` YAML
 * reads `b` as a key of its own. Said so, for such a key.
 */
const fragmentHint = (key: string): string =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? '' : ' (a comma in { … } ends a value: put a text with commas in quotes)';

function keyMessage(path: PathSeg[], reason: string | undefined): string {
  const key = String(path[path.length - 1]);
  const parent = path[path.length - 2];
  const noun = NAME_NOUNS[String(parent)] ?? 'name';
  return `"${key}" is not a valid ${noun}: ${reason ?? 'invalid name'}`;
}

function sizeMessage(
  kind: 'small' | 'big',
  origin: string,
  limit: number,
  inclusive: boolean | undefined,
  raw: unknown,
): string {
  if (origin === 'array' || origin === 'string') {
    if (kind === 'small' && limit === 1) return 'must not be empty';
    const unit = origin === 'array' ? 'items' : 'characters';
    return `must have ${kind === 'small' ? 'at least' : 'at most'} ${limit} ${unit}`;
  }
  const bound =
    kind === 'small' ? (inclusive === false ? 'more than' : 'at least') : inclusive === false ? 'less than' : 'at most';
  return `must be ${bound} ${limit} (got ${describeValue(raw)})`;
}
