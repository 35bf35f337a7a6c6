/**
 * Literals for emitted TypeScript, laid out as prettier lays them out with the generated project's options
 * (PRETTIER_OPTIONS: printWidth 110, two spaces, single quotes, trailing commas): a value on one line (`js`), a
 * string (`tsString`), a key (`tsKey`), a JSON value as a constant or a property: a file made only of such literals
 * and text already in prettier's shape needs no formatting (pipeline/render.ts). At 100 resources the schemas were
 * 40% of the TypeScript prettier was given, for layout rules this file states in a few lines:
 *
 * - an object or array goes on one line when it fits there (with the `,` or `;` after it), else one entry a line;
 *   an array of two or more objects (or arrays) of two or more entries each is always broken, and so is
 *   whatever holds it;
 * - a key is unquoted when it is an identifier name; a string is single-quoted unless it holds more single quotes
 *   than double ones; escapes prettier finds unnecessary are dropped;
 * - a string that does not fit after its key goes on the next line, indented, unless the key is shorter than five
 *   characters (then it stays and overflows).
 *
 * What these rules may not cover (text outside printable ASCII, whose width prettier measures its own way; numbers
 * in exponent notation; keys that look like numbers; a line that cannot fit even broken; arrays of numbers,
 * which prettier fills) is not printed here: `printConst` answers undefined, and prettier formats the file.
 * `literal.test.ts` holds this against prettier itself, on the examples and on generated values.
 */
import { PRETTIER_OPTIONS } from './project-files.js';

const WIDTH = PRETTIER_OPTIONS.printWidth;

/**
 * A literal, escaped, for emitted TypeScript, on one line as prettier prints it there: a string, number, boolean or
 * null, an array or object of them; compact JSON where this printer does not know prettier's layout (see above:
 * pipeline/shape.ts sends a file with such a value to prettier).
 */
export function js(value: unknown): string {
  if (typeof value === 'string') return tsString(value);
  if (typeof value === 'number') return String(value).replace('e+', 'e');
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object'))
    return `[${value.map(js).join(', ')}]`;
  return flatLiteral(value) ?? JSON.stringify(value) ?? 'undefined';
}

/**
 * A string literal as prettier prints it (the projects' options): its preferred quote (single) unless it holds more
 * of those than of the other, escaped as prettier escapes it. Prettier prints it so whatever it is given: templates
 * in prettier's shape need it (pipeline/shape.ts).
 */
export function tsString(value: string): string {
  if (/^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/.test(value)) return `'${value}'`; // nothing to escape, no quote
  const raw = JSON.stringify(value).slice(1, -1);
  const singles = raw.split("'").length - 1;
  const doubles = raw.split('"').length - 1;
  const enclosing = singles > doubles ? '"' : "'";
  const other = enclosing === '"' ? "'" : '"';
  // prettier's makeString: the other quote unescaped, the enclosing one escaped, needless escapes dropped
  const body = raw.replace(/\\(.)|(["'])/gs, (match, escaped?: string, bare?: string) => {
    if (escaped === other) return escaped;
    if (bare === enclosing) return `\\${bare}`;
    if (bare !== undefined) return bare;
    return /^[^\n\r"'0-7\\bfnrt-vx\u2028\u2029]$/.test(escaped ?? '') ? (escaped ?? '') : match;
  });
  return enclosing + body + enclosing;
}

/** keys shorter than this keep a string that does not fit on their line (prettier's `isObjectPropertyWithShortKey`) */
export const SHORT_KEY = 5;

class Unprintable extends Error {}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A constant of a file rendered compact (`export const name = json;`), to be printed in prettier's layout. */
export interface Constant {
  name: string;
  /** its value, JSON.stringify'd */
  json: string;
  /** `as const` after it: its strings keep their literal types (an enum's members, say) */
  asConst?: boolean;
}

const suffixOf = (constant: Constant): string => (constant.asConst === true ? ' as const' : '');

/** The text a constant is rendered as: compact, as prettier is given it when the printer does not know its layout. */
export const compactText = (constant: Constant): string =>
  `export const ${constant.name} = ${constant.json}${suffixOf(constant)};`;

/**
 * `content` with each of its `constants` (rendered compact, in this order) printed in prettier's layout: the text
 * prettier would make of it when the rest of it is in prettier's shape already. Undefined when one of them is not
 * printed here (see above): prettier formats the file.
 */
export function printConstants(content: string, constants: readonly Constant[]): string | undefined {
  let printed = '';
  let at = 0;
  for (const constant of constants) {
    const compact = compactText(constant);
    const start = content.indexOf(compact, at);
    const text =
      start < 0
        ? undefined
        : printParsed(`export const ${constant.name} = `, JSON.parse(constant.json) as Json, suffixOf(constant));
    if (text === undefined) return undefined;
    printed += content.slice(at, start) + text;
    at = start + compact.length;
  }
  return printed + content.slice(at);
}

/** `export const name = value;` in prettier's layout; undefined where this printer does not know it (see above). */
export function printConst(name: string, value: unknown, suffix = ''): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return printParsed(`export const ${name} = `, throughJson(value) ?? null, suffix);
}

/**
 * `key: value` as prettier prints it on a line of its own at `indent`, before its `,` (an entry of an object written
 * expanded); undefined where this printer does not know the layout (see above): prettier formats the file then.
 */
export function printProperty(key: string, value: unknown, indent: number): string | undefined {
  return printable(() => property(key, throughJson(value) ?? null, indent));
}

/**
 * A JSON value on one line as prettier prints it (an expression in a template in prettier's shape); undefined where
 * prettier breaks it whatever the width (see above) or this printer does not know it.
 */
export function flatLiteral(value: unknown): string | undefined {
  const json = throughJson(value);
  return json === undefined ? undefined : printable(() => flat(json, Infinity));
}

/**
 * `head` and an object or array value, then `;`, as prettier prints the statement at `indent` (the indent not
 * written: the template has it); undefined where this printer does not know the layout.
 */
export function printAssigned(head: string, value: unknown, indent: number): string | undefined {
  const json = throughJson(value);
  return json === undefined ? undefined : printParsed(head, json, '', indent);
}

/** printConst of a value that is JSON already (parsed from JSON.stringify's text), `suffix` after it (` as const`) */
function printParsed(head: string, json: Json, suffix = '', indent = 0): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  return printable(() =>
    indent + head.length + beside(json) > WIDTH
      ? undefined
      : `${head}${print(json, indent + head.length, indent, suffix.length + 1)}${suffix};`,
  );
}

/** A value through JSON, as it is rendered: undefined entries and toJSON as JSON.stringify has them. */
function throughJson(value: unknown): Json | undefined {
  const json = JSON.stringify(value);
  return json === undefined ? undefined : (JSON.parse(json) as Json);
}

/**
 * What `make` prints, when it is all printable ASCII (prettier measures other text its own way); undefined where the
 * printer does not know prettier's layout (it throws Unprintable, or gives up).
 */
function printable(make: () => string | undefined): string | undefined {
  try {
    const text = make();
    return text !== undefined && /^[\x20-\x7e\n]*$/.test(text) ? text : undefined;
  } catch (error) {
    if (error instanceof Unprintable) return undefined;
    throw error;
  }
}

const isContainer = (value: Json): value is Json[] | { [key: string]: Json } =>
  typeof value === 'object' && value !== null;

const size = (value: Json[] | { [key: string]: Json }): number =>
  Array.isArray(value) ? value.length : Object.keys(value).length;

/** prettier breaks an array of two or more objects (or arrays) of two or more entries each, whatever the width */
const alwaysBroken = (value: Json[]): boolean =>
  value.length > 1 &&
  value.every(
    (item, i) =>
      isContainer(item) && size(item) > 1 && (i === 0 || Array.isArray(item) === Array.isArray(value[i - 1])),
  );

/**
 * The one-line text of `value` when it is at most `budget` characters long; undefined when it is longer, or holds an
 * array that is always broken. Children are given what is left of the budget, so that a large value is not written
 * out on one line at each level of its nesting.
 */
function flat(value: Json, budget: number): string | undefined {
  if (!isContainer(value)) {
    const text = scalar(value);
    return text.length <= budget ? text : undefined;
  }
  if (size(value) === 0) return Array.isArray(value) ? '[]' : '{}';
  if (Array.isArray(value) && alwaysBroken(value)) return undefined;
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{ ', ' }'];
  let text = open;
  for (const [key, item] of Object.entries(value)) {
    const head = (text === open ? '' : ', ') + (Array.isArray(value) ? '' : `${printKey(key)}: `);
    const itemText = flat(item, budget - text.length - head.length - close.length);
    if (itemText === undefined) return undefined;
    text += head + itemText;
  }
  text += close;
  return text.length <= budget ? text : undefined;
}

/**
 * `value` starting at `column`, its entries indented from `indent`, followed by `trail` characters that stay on its
 * last line (`,` or `;`).
 */
function print(value: Json, column: number, indent: number, trail: number): string {
  if (!isContainer(value)) return scalar(value);
  const one = flat(value, WIDTH - column - trail);
  if (one !== undefined) return one;
  if (Array.isArray(value) && value.length > 1 && value.every((item) => typeof item === 'number'))
    throw new Unprintable('prettier fills an array of numbers');
  const inner = ' '.repeat(indent + 2);
  const lines = Array.isArray(value)
    ? value.map((item) => inner + print(item, indent + 2, indent + 2, 1))
    : Object.entries(value).map(([key, item]) => inner + property(key, item, indent + 2));
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${lines.map((line) => `${line},\n`).join('')}${' '.repeat(indent)}${close}`;
}

/** `key: value` at `indent`, on a line of its own, followed by `,` */
function property(key: string, value: Json, indent: number): string {
  const head = `${printKey(key)}: `;
  const column = indent + head.length;
  if (typeof value === 'string') {
    const text = scalar(value);
    if (column + text.length + 1 <= WIDTH || head.length - 2 < SHORT_KEY) return head + text;
    return `${head.trimEnd()}\n${' '.repeat(indent + 2)}${text}`;
  }
  if (column + beside(value) > WIDTH) throw new Unprintable('a key too long for its line');
  return head + print(value, column, indent, 1);
}

/**
 * What must stay on the line after a key or a constant's name, with the `,` or `;` that follows: the `{` or `[` of a
 * non-empty value, else the whole value. Prettier moves the value to the next line when that does not fit: not
 * followed here (the caller gives the file to prettier).
 */
const beside = (value: Json): number => (isContainer(value) ? (size(value) > 0 ? 1 : 3) : scalar(value).length + 1);

function scalar(value: Exclude<Json, Json[] | { [key: string]: Json }>): string {
  if (typeof value === 'string') return tsString(value);
  const text = String(value);
  if (typeof value === 'number' && /e/.test(text)) throw new Unprintable('a number in exponent notation');
  return text;
}

/** A key as prettier prints it (quoteProps "as-needed"): unquoted when it is an identifier name. */
function printKey(key: string): string {
  if (/^\d/.test(key)) throw new Unprintable('a key that looks like a number');
  return tsKey(key);
}

/** A key of an object literal as prettier prints it: unquoted when it is an identifier name (numbers aside) */
export const tsKey = (key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : tsString(key));
