import type { FastifyInstance } from 'fastify';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { RE2JS } from 're2js';

// ajv-formats is CommonJS: under NodeNext its function is the default export's `default`.
const addFormats = addFormatsModule.default;

/** JSON values (`json` fields) may nest this deep: deeper ones are refused before anything recurses into them. */
export const MAX_JSON_DEPTH = 32;

/**
 * Every `pattern` runs on RE2's linear-time engine: a pattern written in the definition cannot make one request
 * hold the event loop for seconds (no catastrophic backtracking, whatever the input).
 */
function linearRegExp(pattern: string): { test: (text: string) => boolean; toString: () => string } {
  const compiled = RE2JS.compile(pattern);
  // Ajv keys its compiled patterns by toString(): each must name its own pattern
  return { test: (text: string) => compiled.test(text), toString: () => `re2:${pattern}` };
}
linearRegExp.code = 'linearRegExp';

// strictNumbers refuses NaN and Infinity (`1e400` parses to Infinity), which no column can store
const common: Options = {
  allErrors: true,
  removeAdditional: false,
  strict: false,
  strictNumbers: true,
  code: { regExp: linearRegExp },
};

const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:[Zz]|[+-](\d\d):(\d\d))$/;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * An RFC 3339 date-time that names a real instant (no 2026-02-29, no 24:00, no leap second, which JavaScript dates
 * cannot hold) whose UTC year is 1 to 9999, so that it is stored, sorted and read back in the same form.
 */
export function isDateTime(value: string): boolean {
  const m = RFC3339.exec(value);
  if (m === null) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month < 1 || month > 12 || day < 1 || day > (month === 2 && !leap ? 28 : DAYS_IN_MONTH[month - 1]!))
    return false;
  if (hour > 23 || minute > 59 || second > 59) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  const utcYear = new Date(value).getUTCFullYear();
  return utcYear >= 1 && utcYear <= 9999;
}

/** `format: url` of the definition (`uri` in the schemas): an absolute http or https URL, nothing else. */
export function isWebUrl(value: string): boolean {
  return /^https?:\/\/\S+$/i.test(value) && URL.canParse(value);
}

function withFormats(ajv: Ajv): Ajv {
  addFormats(ajv);
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addFormat('uri', { type: 'string', validate: isWebUrl });
  ajv.addKeyword({
    keyword: 'maxDepth',
    schemaType: 'number',
    errors: false,
    validate: (max: number, data: unknown) => depth(data, max) <= max,
  });
  return ajv;
}

/** How deep a JSON value nests, counted without recursion and no further than `limit + 1`. */
function depth(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, level] = pending.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, level + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(current)) pending.push([child, level + 1]);
  }
  return deepest;
}

/** Bodies are taken as sent: no type coercion, no defaults filled in (PATCH must see what was absent). */
const bodies = withFormats(new Ajv({ ...common, coerceTypes: false, useDefaults: false }));

/** Query strings and path parameters arrive as text: coerce them to the schema's types. */
const parameters = withFormats(new Ajv({ ...common, coerceTypes: 'array', useDefaults: true }));

/**
 * Numbers in a URL have one spelling each: `474`, never `0474`, `474.0`, `474e0`, `0x1da` or ` 474` (a `number` is
 * written as in JSON). Used here for parameters and by the listing for the values of `in` lists.
 */
export const CANONICAL = {
  integer: /^-?(?:0|[1-9]\d*)$/,
  number: /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/,
} as const;

/** What CANONICAL takes, in the words of an error message. */
export const SPELLING = {
  integer: 'must be a whole number written plainly (like 42 or -7)',
  number: 'must be a number written as JSON writes one (like 42, -0.5 or 1e-7)',
} as const;

type Parameters = Record<string, unknown>;

/**
 * Path and query values arrive as text and Ajv coerces them loosely (`Number(' 0x1da ')` is 474): before it does,
 * a number must be written in its one plain form, and a query parameter may be given once only.
 */
function strictParameters(schema: object, validate: ValidateFunction): ValidateFunction {
  type Property = { type?: unknown; items?: Property };
  const properties = (schema as { properties?: Record<string, Property> }).properties ?? {};
  const numeric = Object.entries(properties).flatMap(([key, property]) => {
    // a number, or a list of numbers (an `in` filter)
    const type = property.type === 'array' ? property.items?.type : property.type;
    return type === 'integer' || type === 'number' ? [[key, type] as const] : [];
  });
  const strict = ((data: Parameters, context?: Parameters) => {
    const errors: ErrorObject[] = [];
    for (const key in data) {
      const value = data[key];
      // an `in` list (or `include`) comes comma-separated or the parameter repeated (how most clients send an array)
      if (key.endsWith('[in]') || key === 'include') {
        data[key] = (Array.isArray(value) ? value : [value]).flatMap((part) => String(part).split(','));
      } else if (Array.isArray(value))
        errors.push(parameterError(key, 'is given more than once: give it once'));
    }
    for (const [key, type] of numeric) {
      const pattern = CANONICAL[type];
      const value = data?.[key];
      // a plain parameter given twice is refused above, once
      if (value === undefined || (Array.isArray(value) && !key.endsWith('[in]'))) continue;
      const texts: unknown[] = Array.isArray(value) ? value : [value];
      const at = texts.findIndex((t) => typeof t === 'string' && !pattern.test(t));
      if (at >= 0) {
        // an item of a list is named by its place (as Ajv names the others: /status[in]/1) and its text (`1,,2`: "")
        if (Array.isArray(value))
          errors.push(parameterError(`${key}/${at}`, `${SPELLING[type]}, not ${JSON.stringify(texts[at])}`));
        else errors.push(parameterError(key, SPELLING[type]));
      }
      // beyond what a double holds exactly (or at all): never coerced to a rounded number or to Infinity
      else if (
        texts.some(
          (t) =>
            typeof t === 'string' &&
            !(type === 'integer' ? Number.isSafeInteger(Number(t)) : Number.isFinite(Number(t))),
        )
      ) {
        errors.push(parameterError(key, 'is out of range'));
      }
    }
    if (errors.length > 0) {
      strict.errors = errors;
      return false;
    }
    const valid = validate(data, context as never);
    strict.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return Object.assign(strict, { schemaEnv: validate.schemaEnv, schema: validate.schema });
}

const parameterError = (key: string, message: string): ErrorObject => ({
  instancePath: `/${key}`,
  schemaPath: '#/properties',
  keyword: 'format',
  params: {},
  message,
});

/** Compiles every route schema once, at start-up: validation is a compiled function per route. */
export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodies.compile(schema) : strictParameters(schema, parameters.compile(schema)),
  );
}
