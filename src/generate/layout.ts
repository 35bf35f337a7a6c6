import { PRETTIER_OPTIONS } from './project-files.js';
import { SHORT_KEY } from './literal.js';
import { matching, splitCall, splitTopLevel, topLevel, topLevelArrow, topLevelColon } from './code-text.js';

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
 * line, each object or array on one line when it fits there, else one entry a line. A last argument that is an
 * object or an array (not of numbers) is hugged when the line up to its `{` or `[` fits (`f(a, {`, its properties,
 * `})`), as prettier does unless the argument before it is one too (found by a reviewer: `refuseOtherMethods(app,
 * url, [` and one method a line). A call whose first or last argument is a function, or with two functions among its
 * arguments, which prettier may hug, is left as it is, as is a call whose callee is not a name (`(a)(b)`, `if (…)`).
 */
export function callLayout(line: string, indent: number): string {
  const call = splitCall(line.trimStart());
  if (call === undefined || fits(line) || call.args.length === 0 || !/[\w$]$/.test(call.head)) return line;
  const functions = call.args.filter((a) => topLevelArrow(a) >= 0);
  const [first = '', last = '', before = ''] = [call.args[0], call.args.at(-1), call.args.at(-2)];
  if (functions.length > 1 || functions.includes(first) || functions.includes(last)) return line;
  const pad = ' '.repeat(indent);
  const open = last.charAt(0);
  if (expandable(last) && !before.startsWith(open)) {
    const hugged = `${pad}${call.head}(${[...call.args.slice(0, -1), open].join(', ')}`;
    if (fits(hugged)) return `${hugged.slice(0, -1)}${valueLayout(last, indent, '', true).trimStart()})${call.tail}`;
  }
  return `${pad}${call.head}(\n${call.args.map((a) => `${valueLayout(a, indent + 2)},\n`).join('')}${pad})${call.tail}`;
}

/**
 * An expression statement or argument at `indent`: a call whose last argument is an arrow function with an
 * expression body as lastArrowLayout lays it out, any other call as callLayout does.
 */
export function expressionLayout(line: string, indent: number): string {
  const last = splitCall(line.trimStart())?.args.at(-1);
  return last !== undefined && topLevelArrow(last) >= 0 ? lastArrowLayout(line, indent) : callLayout(line, indent);
}

/**
 * A statement `head => body;` at `indent`, an arrow function whose body is not a block: on one line when it fits, else
 * the body on the next line, two columns further in, laid out there (expressionLayout); a body `(a ? b : c)` whose
 * branches are names, as prettier prints a conditional there. Also an argument on a line of its own, its comma after
 * it.
 */
export function arrowLayout(line: string, indent: number): string {
  const arrow = topLevelArrow(line);
  if (fits(line) || arrow < 0) return line;
  const pad = ' '.repeat(indent + 2);
  const body = line.slice(arrow + 4);
  const conditional = /^\((.+) \? (\w+) : (\w+)\)([,;])$/.exec(body);
  if (conditional === null) return `${line.slice(0, arrow)} =>\n${expressionLayout(pad + body, indent + 2)}`;
  // `(a ? b : c)` loses its parentheses on a line of its own
  const [, test = '', yes = '', no = '', end = ''] = conditional;
  return `${line.slice(0, arrow)} =>\n${conditionalLines(pad, test, yes, no + end)}`;
}

/**
 * `const name = test ? a : b;` at `indent`, its test a comparison: on one line when it fits, else the conditional on
 * the next line, two columns further in, and broken before `?` and `:` where it does not fit there.
 */
export function conditionalLayout(line: string, indent: number): string {
  const parts = /^(\s*const [\w$]+ =) (.+)$/.exec(line);
  const [question, colon] = [topLevel(line, ' ? '), topLevel(line, ' : ')];
  if (fits(line) || parts === null || question < 0 || colon < question || !/ [!=]== /.test(line.slice(0, question)))
    return line;
  const head = parts[1] ?? '';
  const [test, yes, no] = [
    line.slice(head.length + 1, question),
    line.slice(question + 3, colon),
    line.slice(colon + 3),
  ];
  return `${head}\n${conditionalLines(' '.repeat(indent + 2), test, yes, no)}`;
}

/** `test ? yes : no` on a line of its own at `pad` when it fits, else broken before `?` and `:` */
function conditionalLines(pad: string, test: string, yes: string, no: string): string {
  const flat = `${pad}${test} ? ${yes} : ${no}`;
  return fits(flat) ? flat : `${pad}${test}\n${pad}  ? ${yes}\n${pad}  : ${no}`;
}

/**
 * A call whose last argument is a function with a block body, at `indent`: its first line up to the function's `{`
 * (`app.get(url, options, async (request) => {`), the body, and `});`. Prettier hugs the function when that first line
 * fits: the text as it is. Else each argument goes on a line of its own, objects laid out as in callLayout, and the
 * function's body two columns further in: `text` is then the body laid out for that indent, which this indents. `hugs`
 * says which of the two the body must be laid out for.
 */
export function lastFunctionLayout(text: string, indent: number): string {
  const lines = text.split('\n');
  if (lines.length === 1) return lastArrowLayout(text, indent);
  const [head = '', end = ''] = [lines[0], lines.at(-1)];
  const pad = ' '.repeat(indent);
  if (hugs(head) || !head.endsWith(' => {') || !end.startsWith(`${pad}})`)) return text;
  // the function's `{` closed, to split the line as a call
  const call = splitCall(`${head.trimStart()}})`);
  const fn = call?.args.at(-1);
  if (call === undefined || fn === undefined || !/^[\w$.]+(?:<[^()]*>)?$/.test(call.head)) return text;
  const args = call.args.slice(0, -1).map((a) => `${valueLayout(a, indent + 2)},\n`);
  const body = lines.slice(1, -1).map((l) => (l === '' ? '\n' : `  ${l}\n`));
  const tail = end.slice(pad.length + 2);
  return `${pad}${call.head}(\n${args.join('')}${pad}  ${fn.slice(0, -1)}\n${body.join('')}${pad}  },\n${pad})${tail}`;
}

/**
 * A call on one line whose last argument is an arrow function with an expression body (`f(a, (x) => g(x));`): on one
 * line when it fits; else, when the line up to the `=>` fits, the body on the next line two columns in, then `,`
 * and `)`; else one argument a line.
 */
export function lastArrowLayout(line: string, indent: number): string {
  const call = splitCall(line.trimStart());
  const fn = call?.args.at(-1) ?? '';
  const arrow = topLevelArrow(fn);
  if (fits(line) || call === undefined || arrow < 0 || fn.endsWith('}') || !CALLEE.test(call.head)) return line;
  const pad = ' '.repeat(indent);
  const before = call.args.slice(0, -1);
  const hugged = `${pad}${call.head}(${[...before, fn.slice(0, arrow)].join(', ')} =>`;
  if (fits(hugged))
    return `${hugged}\n${expressionLayout(`${pad}  ${fn.slice(arrow + 4)},`, indent + 2)}\n${pad})${call.tail}`;
  return `${pad}${call.head}(\n${[...before.map((a) => valueLayout(a, indent + 2)), `${pad}  ${fn}`].join(',\n')},\n${pad})${call.tail}`;
}

/** a callee, after what a statement may begin with: `const x = await `, `const { a, b } = `, `return ` */
const CALLEE = /^(?:(?:const [\w$]+ = |const \{ [\w$, ]+ \} = |return )(?:await )?)?[\w$.#]+(?:<[^()]*>)?$/;

/** Whether prettier hugs the function a call ends with: the call's first line, up to the function's `{`, fits. */
export const hugs = (head: string): boolean => fits(head);

/** A statement that ends with an object, `head{ a: b, c }tail` (`return {…};`): on one line, else one property a line. */
export function objectLayout(line: string, indent: number): string {
  const open = line.indexOf('{');
  const close = open < 0 ? -1 : matching(line, open);
  if (fits(line) || close < 0) return line;
  const tail = line.slice(close + 1);
  return `${valueLayout(line.slice(open, close + 1), indent, line.slice(indent, open))}${tail}`;
}

/**
 * A statement that ends with an array, `head[a, b];` at `indent`: on one line when it fits, else one element a line
 * (elements that are not numbers: prettier fills a line with those).
 */
export function arrayLayout(line: string, indent: number): string {
  if (fits(line) || !line.endsWith('];')) return line;
  // the `[` that the last `]` closes
  let open = line.indexOf('[');
  while (open >= 0 && matching(line, open) !== line.length - 2) open = line.indexOf('[', open + 1);
  const items = open < 0 ? [] : splitTopLevel(line.slice(open + 1, -2));
  if (items.length === 0 || items.some((item) => /^-?[\d.]/.test(item))) return line;
  const pad = ' '.repeat(indent);
  return `${line.slice(0, open + 1)}\n${items.map((item) => `${pad}  ${item},\n`).join('')}${pad}];`;
}

/**
 * An argument, or a property's value after `prefix` (`key: `), at `indent`, before its comma: an object broken, one
 * property a line, or an array, one element a line, when it does not fit, or when `broken` says so (a hugged last
 * argument).
 */
function valueLayout(value: string, indent: number, prefix = '', broken = false): string {
  const pad = ' '.repeat(indent);
  if (!broken && fits(`${pad}${prefix}${value},`)) return `${pad}${prefix}${value}`;
  // a string too long for its key's line goes on the next one, but after a short key (as literal.ts's `property`)
  if (/^(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")$/.test(value) && prefix.length - 2 >= SHORT_KEY)
    return `${pad}${prefix.trimEnd()}\n${pad}  ${value}`;
  if (!expandable(value)) return `${pad}${prefix}${value}`;
  const entries = splitTopLevel(value.slice(1, -1).trim()).map((p) => {
    const colon = value.startsWith('[') ? -1 : topLevelColon(p);
    return colon < 0
      ? `${valueLayout(p, indent + 2)},\n`
      : `${valueLayout(p.slice(colon + 1).trim(), indent + 2, `${p.slice(0, colon + 1)} `)},\n`;
  });
  return `${pad}${prefix}${value.charAt(0)}\n${entries.join('')}${pad}${value.at(-1) ?? ''}`;
}

/**
 * Whether prettier breaks `value` one entry a line where it does not fit: an object, or an array of names and strings
 * (an array of numbers is filled, one of objects or arrays may always be broken: neither is laid out here).
 */
const expandable = (value: string): boolean =>
  (value.startsWith('{') && value.endsWith('}') && value.length > 2) ||
  (/^\[[^[\]{}]+\]$/.test(value) && !/^\[\s*-?[\d.]/.test(value));
