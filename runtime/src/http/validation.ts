import type { FastifySchemaValidationError } from 'fastify';
import type { FieldError } from './problem.js';

/** The pattern the OpenAPI document gives `format: url` fields (the `uri` format checks the same). */
const WEB_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$';

/** What a value of each format looks like, in the words of an error message. */
const FORMATS: Record<string, string> = {
  'date-time':
    'must be an RFC 3339 date-time of a real instant, like 2026-01-31T09:30:00Z (UTC years 1 to 9999)',
  date: 'must be a real calendar date, like 2026-01-31',
  uri: 'must be an absolute http or https URL',
  email: 'must be an email address',
  uuid: 'must be a UUID',
};

/** The types of a json field that is not nullable: any JSON value but null (json-schemas.ts, NOT_NULL_JSON). */
const ANY_BUT_NULL = 'object,array,string,number,boolean';

/** JSON types in the words of an error message (Ajv says `must be string,null`). */
const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function typeInWords(types: string): string {
  const words = types.split(',').map((type) => TYPE_WORDS[type] ?? type);
  return `must be ${words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : words[0]}`;
}

/** The body of an action without input: none, or an empty object; anything else is a 400 that says so. */
export const NO_BODY = { type: ['object', 'null'], maxProperties: 0 } as const;

/** The query of a `method: get` action without input: any parameter is unknown, a 400 that names it. */
export const NO_QUERY = { type: 'object', additionalProperties: false } as const;

/** One entry per broken member, with a JSON Pointer path and a message a client developer can act on. */
export function validationErrors(
  errors: readonly FastifySchemaValidationError[],
  context: string | undefined,
  readOnly: readonly string[],
  /** computed fields: never sent nor filtered by, their values come from the server's functions */
  computed: readonly string[] = [],
  /** what was validated (the body): a null where a type wants a value is said so */
  data?: unknown,
): FieldError[] {
  // a value an enum does not have is one error, said by the enum (it names the values): not also its type's
  const enums = new Set(
    errors.filter((error) => error.keyword === 'enum').map((error) => error.instancePath),
  );
  const one = errors.filter((error) => error.keyword !== 'type' || !enums.has(error.instancePath));
  const all = one.map((error): FieldError => {
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required') {
      return { path: `${error.instancePath}/${String(params.missingProperty)}`, message: 'is required' };
    }
    if (error.keyword === 'additionalProperties') {
      const name = String(params.additionalProperty);
      const what = context === 'querystring' ? 'parameter' : 'field';
      const message =
        context === 'body' && computed.includes(name)
          ? 'is computed by the server: it cannot be sent'
          : context === 'querystring' && computed.includes(name.replace(/\[[^\]]*\]$/, ''))
            ? 'is computed by the server: a listing cannot filter by it'
            : context === 'body' && readOnly.includes(name)
              ? 'is read-only'
              : context === 'querystring' && name.includes('.')
                ? 'is not a known parameter: a filter through a relation names a relation of this collection and a ' +
                  'field of it that its own listing filters by (timestamps are not filters through relations)'
                : context === 'querystring' && /^[^[\]]+\[[^[\]]*\]$/.test(name)
                  ? 'is not a known parameter: this listing filters no such field, or the field takes no such ' +
                    'operator (contains is for text; gt, gte, lt and lte for ordered values: numbers, dates, text, ids; ' +
                    "the OpenAPI document lists each listing's filters)"
                  : `is not a known ${what}`;
      return { path: `${error.instancePath}/${name}`, message };
    }
    if (error.keyword === 'pattern' && error.instancePath === '/sort') {
      // the pattern is ^-?(a|b)(,-?(a|b))*$: the fields a listing sorts by
      const fields = /^\^-\?\(([^)]*)\)/.exec(String(params.pattern))?.[1]?.split('|') ?? [];
      return {
        path: '/sort',
        message:
          'must be fields of this collection, comma-separated, each with an optional "-"' +
          (fields.length > 0 ? ` (${fields.join(', ')})` : ''),
      };
    }
    const path = error.instancePath === '' ? '/' : error.instancePath;
    if (error.keyword === 'enum' && Array.isArray(params.allowedValues) && path.startsWith('/include/')) {
      // the allowed paths are every relation to limits.includeDepth levels: the deepest says how deep
      const depth = Math.max(...params.allowedValues.map((value) => String(value).split('.').length));
      const allowed = params.allowedValues.map((value) => JSON.stringify(value)).join(', ');
      return {
        path,
        message: `must be a relation of this collection, or a dotted path of them at most ${depth} deep: ${allowed}`,
      };
    }
    if (error.keyword === 'uniqueItems' && typeof params.i === 'number' && typeof params.j === 'number') {
      const [first, second] = [Math.min(params.i, params.j), Math.max(params.i, params.j)];
      return { path, message: `must not repeat a value (items ${first} and ${second} are the same)` };
    }
    if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      // null is said apart: `must be one of: "a", "b"; or null` (nullable), `…, not null` (sent where not allowed)
      const values = params.allowedValues.filter((value) => value !== null);
      const isNull = data !== undefined && valueAt(data, error.instancePath) === null;
      const orNull = values.length < params.allowedValues.length ? '; or null' : isNull ? ', not null' : '';
      return {
        path,
        message: `must be one of: ${values.map((value) => JSON.stringify(value)).join(', ')}${orNull}`,
      };
    }
    if (error.keyword === 'format' && typeof params.format === 'string' && params.format in FORMATS) {
      return { path, message: FORMATS[params.format]! };
    }
    if (error.keyword === 'pattern' && params.pattern === WEB_URL_PATTERN)
      return { path, message: FORMATS.uri! };
    if (error.keyword === 'pattern' && context === 'headers' && path === '/last-event-id')
      return { path, message: 'must be the id of an event the stream sent: a whole number, up to 16 digits' };
    if (error.keyword === 'pattern' && typeof params.pattern === 'string') {
      // the definition's pattern, as written there (the schema anchors it as ^(?:…)$)
      const written = /^\^\(\?:([\s\S]*)\)\$$/.exec(params.pattern)?.[1] ?? params.pattern;
      return { path, message: `must match the pattern ${JSON.stringify(written)}, as a whole` };
    }
    if (error.keyword === 'maxProperties' && params.limit === 0 && error.instancePath === '') {
      return { path, message: 'this action takes no body: send none, or {}' };
    }
    if (error.keyword === 'type' && String(params.type) === ANY_BUT_NULL)
      return { path, message: 'must not be null' };
    // a list of types comes as an array
    if (error.keyword === 'type' && (typeof params.type === 'string' || Array.isArray(params.type))) {
      const words = typeInWords(String(params.type));
      const isNull = data !== undefined && valueAt(data, error.instancePath) === null;
      return { path, message: isNull ? `${words}, not null` : words };
    }
    if (error.keyword === 'maxDepth')
      return { path, message: 'nests arrays and objects deeper than 32 levels' };
    return { path, message: error.message ?? 'is not valid' };
  });
  // a URL breaks its pattern and its format alike: one entry says it
  const unique = new Map(all.map((e) => [`${e.path}\n${e.message}`, e]));
  return [...unique.values()];
}

/** The member of `data` a JSON Pointer names (own members only), or undefined. */
export function valueAt(data: unknown, pointer: string): unknown {
  let value = data;
  for (const token of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
