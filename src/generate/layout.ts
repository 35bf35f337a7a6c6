import { PRETTIER_OPTIONS } from './project-files.js';

/**
 * Prettier's layout of the few TypeScript constructs whose lines templates in prettier's shape cannot know in advance
 * (pipeline/shape.ts): a signature, a call's arguments, a union as a type argument, an import. Each is written on one
 * line and laid out here as prettier lays it out, by its width: on one line when it fits, else broken as prettier
 * breaks it. Where prettier's rule is not one of these, the line is left as it is, too long, and the file goes to
 * prettier. layout.test.ts and shape.test.ts hold them to prettier.
 */
const WIDTH = PRETTIER_OPTIONS.printWidth;

const fits = (line: string): boolean => line.length <= WIDTH;

/** `import { a, b } from 'm';` on one line when it fits or names one thing, else one name a line. */
export function importLayout(head: string, names: readonly string[], tail: string): string {
  const flat = `${head}{ ${names.join(', ')} }${tail}`;
  return fits(flat) || names.length < 2 ? flat : `${head}{\n${names.map((n) => `  ${n},\n`).join('')}}${tail}`;
}

/**
 * A function's or method's first line, `head(parameters): type {` at `indent`: on one line when it fits, else one
 * parameter a line. A return type `Record<union, type>` too long for the line after them is broken as prettier breaks
 * it, one member a line.
 */
export function signatureLayout(line: string, indent: number): string {
  const call = splitCall(line.trimStart());
  if (call === undefined || fits(line) || call.args.length === 0) return line;
  const pad = ' '.repeat(indent);
  const params = call.args.map((p) => `${pad}  ${p},\n`).join('');
  const last = `${pad})${call.tail}`;
  return `${pad}${call.head}(\n${params}${fits(last) ? last : recordReturn(call.tail, pad)}`;
}

/** `): Record<a | b, T> {` broken: each member of the union on a line, then T (prettier, when the union cannot fit) */
function recordReturn(tail: string, pad: string): string {
  const record = /^: Record<(.+), (\w+)> \{$/.exec(tail);
  const members = record?.[1]?.split(' | ') ?? [];
  if (record === null || members.length < 2) return `${pad})${tail}`;
  if (fits(`${pad}  ${record[1]},`)) return `${pad}): Record<\n${pad}  ${record[1]},\n${pad}  ${record[2]}\n${pad}> {`;
  return `${pad}): Record<\n${members
    .map((m) => `${pad}  | ${m}\n`)
    .join('')
    .slice(0, -1)},\n${pad}  ${record[2]}\n${pad}> {`;
}

/**
 * `before<a | b>after` at `indent`, a union as the one type argument of a call (a statement's parameters): on one line
 * when it fits, else the union alone on the next line when it fits there, else one member a line.
 */
export function unionArgumentLayout(line: string, indent: number): string {
  const open = line.indexOf('<');
  const close = line.lastIndexOf('>');
  if (fits(line) || open < 0 || close < open) return line;
  const pad = ' '.repeat(indent);
  const union = line.slice(open + 1, close);
  const members = union.split(' | ');
  const [before, after] = [line.slice(0, open + 1), line.slice(close)];
  if (members.length < 2) return line;
  if (fits(`${pad}  ${union}`)) return `${before}\n${pad}  ${union}\n${pad}${after}`;
  return `${before}\n${members.map((m) => `${pad}  | ${m}\n`).join('')}${pad}${after}`;
}

/**
 * A statement that is a call, `head(a, { b: c }, d)tail` at `indent`: on one line when it fits, else one argument a
 * line, each object on one line when it fits there, else one property a line. Calls whose last argument is an object,
 * or with a function among their arguments, which prettier may hug, are left as they are.
 */
export function callLayout(line: string, indent: number): string {
  const call = splitCall(line.trimStart());
  if (call === undefined || fits(line) || call.args.length === 0) return line;
  const last = call.args.at(-1) ?? '';
  if (last.startsWith('{') || call.args.some((a) => a.includes('=>'))) return line;
  const pad = ' '.repeat(indent);
  return `${pad}${call.head}(\n${call.args.map((a) => `${valueLayout(a, indent + 2)},\n`).join('')}${pad})${call.tail}`;
}

/** A statement that ends with an object, `head{ a: b, c }tail` (`return {…};`): on one line, else one property a line. */
export function objectLayout(line: string, indent: number): string {
  const open = line.indexOf('{');
  const close = open < 0 ? -1 : matching(line, open);
  if (fits(line) || close < 0) return line;
  const tail = line.slice(close + 1);
  return `${valueLayout(line.slice(open, close + 1), indent, line.slice(indent, open))}${tail}`;
}

/**
 * An argument, or a property's value after `prefix` (`key: `), at `indent`, before its comma: an object broken, one
 * property a line, when it does not fit.
 */
function valueLayout(value: string, indent: number, prefix = ''): string {
  const pad = ' '.repeat(indent);
  if (fits(`${pad}${prefix}${value},`) || !value.startsWith('{') || !value.endsWith('}'))
    return `${pad}${prefix}${value}`;
  const properties = splitTopLevel(value.slice(1, -1).trim()).map((p) => {
    const colon = topLevelColon(p);
    return colon < 0
      ? `${' '.repeat(indent + 2)}${p},\n`
      : `${valueLayout(p.slice(colon + 1).trim(), indent + 2, `${p.slice(0, colon + 1)} `)},\n`;
  });
  return `${pad}${prefix}{\n${properties.join('')}${pad}}`;
}

/** `head(args)tail`, the first parenthesis at the top level opening the arguments; undefined when unbalanced. */
function splitCall(text: string): { head: string; args: string[]; tail: string } | undefined {
  const open = text.indexOf('(');
  const close = open < 0 ? -1 : matching(text, open);
  if (close < 0) return undefined;
  const inside = text.slice(open + 1, close).trim();
  return { head: text.slice(0, open), args: inside === '' ? [] : splitTopLevel(inside), tail: text.slice(close + 1) };
}

const OPENING: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** The index of the bracket that closes the one at `at`, skipping strings; -1 when there is none. */
function matching(text: string, at: number): number {
  const stack: string[] = [];
  for (let i = at; i < text.length; i++) {
    const c = text[i] ?? '';
    if (c === "'" || c === '"' || c === '`') i = endOfString(text, i);
    else if (OPENING[c] !== undefined) stack.push(OPENING[c]);
    else if (c === ')' || c === ']' || c === '}') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

/** Where the string opened at `at` closes (its quote), escapes skipped. */
function endOfString(text: string, at: number): number {
  const quote = text[at];
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === quote) return i;
  }
  return text.length;
}

/** `text` split at its commas outside brackets and strings, each part trimmed. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (c === "'" || c === '"' || c === '`') i = endOfString(text, i);
    else if (OPENING[c] !== undefined) depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const rest = text.slice(start).trim();
  return rest === '' ? parts : [...parts, rest];
}

/** The index of a property's colon, `key: value` (not one inside its value); -1 for a shorthand or a spread. */
function topLevelColon(property: string): number {
  const key = /^(?:[A-Za-z_$][\w$]*|'[^']*'|\d+):/.exec(property);
  return key === null ? -1 : key[0].length - 1;
}
