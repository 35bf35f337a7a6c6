/**
 * Reads a definition file and parses it, keeping the YAML document so that later steps can point at
 * the line and column of any value. JSON files are parsed by the same YAML parser (JSON is YAML), and
 * are also held to strict JSON syntax.
 */
import { extname } from 'node:path';
import { isMap, parseDocument, visit, type Document, type YAMLError } from 'yaml';
import { DefinitionError, type Problem } from '../errors.js';
import { LineIndex } from '../definition/positions.js';
import { readDefinitionText } from './definition-text.js';

export interface Loaded {
  /** the path as the user gave it; problems are reported with it */
  file: string;
  text: string;
  doc: Document;
  /** the plain data of the document: objects, arrays and scalars */
  data: unknown;
  /**
   * the syntax problems of a file read all the same: only a `{` or a `[` left open, which the parser closes where
   * the lines of the map or list end; validate reports them with every other problem of the file
   */
  syntax: Problem[];
}

const SYNTAX_PATH = '(syntax)';

export async function load(file: string): Promise<Loaded> {
  return parseDefinition(file, await readDefinitionText(file));
}

/**
 * Parses the text of a definition; `file` names it in problems and, by its extension, says whether it
 * is JSON. Throws a DefinitionError with every syntax error.
 */
export function parseDefinition(file: string, text: string): Loaded {
  const doc = parseDocument(text, { keepSourceTokens: true, prettyErrors: true, uniqueKeys: true });
  const errors = withoutEchoes(doc.errors);
  const unclosed = errors.filter(isUnclosed);
  const problems = [
    ...errors.filter((error) => !isUnclosed(error)).map((error) => yamlProblem(file, error, text)),
    ...(unclosed.length === 0 ? [] : unclosedProblems(file, doc, text, unclosed)),
  ].sort((a, b) => a.line - b.line || a.column - b.column);
  // a bracket left open and nothing else: the rest of the file reads as written, and its problems are found too
  if (problems.length > 0 && unclosed.length === errors.length)
    return { file, text, doc, data: toData(file, doc), syntax: problems };
  if (problems.length === 0 && extname(file).toLowerCase() === '.json') {
    problems.push(...strictJsonProblems(file, text));
  }
  if (problems.length > 0) throw new DefinitionError(problems);
  return { file, text, doc, data: toData(file, doc), syntax: [] };
}

/** The parser's error for a flow map or list without its `}` or `]`: it says so where the map's lines end. */
const isUnclosed = (error: YAMLError): boolean =>
  (error.code === 'BAD_INDENT' || error.code === 'MISSING_CHAR') &&
  /^Flow (map|sequence) (in block collection must be sufficiently indented and )?(must )?end with a [}\]]/.test(
    error.message,
  );

/**
 * Each `{` or `[` left open, at its own line and column (the parser points at the line after the map or list, where
 * it noticed); the parser's errors where no such bracket is found.
 */
function unclosedProblems(file: string, doc: Document, text: string, errors: readonly YAMLError[]): Problem[] {
  const lines = new LineIndex(text);
  const problems: Problem[] = [];
  visit(doc, {
    Collection(_, node) {
      const token = node.srcToken;
      if (!node.flow || token?.type !== 'flow-collection') return;
      const [open, close, kind] = isMap(node) ? ['{', '}', 'map'] : ['[', ']', 'list'];
      if (token.end[0]?.source === close) return;
      const { line, column } = lines.position(token.start.offset);
      const message = `this ${open} is never closed: end the ${kind} with ${close}`;
      problems.push({ file, line, column, path: SYNTAX_PATH, message });
    },
  });
  return problems.length > 0 ? problems : errors.map((error) => yamlProblem(file, error, text));
}

/**
 * What the parser says after a slip on a line, of the rest of that line, in its own terms: a tab or an unclosed `{`
 * makes it read what follows as a key that nests a mapping, or spans lines. Those go away with the slip; every other
 * error is its own, kept however many a line has.
 */
const ECHOES = new Set(['BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

function withoutEchoes(errors: readonly YAMLError[]): YAMLError[] {
  const lineOf = (error: YAMLError): number => error.linePos?.[0]?.line ?? 0;
  const slipped = new Set(errors.filter((error) => !ECHOES.has(error.code)).map(lineOf));
  return errors.filter((error) => !ECHOES.has(error.code) || !slipped.has(lineOf(error)));
}

function yamlProblem(file: string, error: YAMLError, text: string): Problem {
  const { line, col } = error.linePos?.[0] ?? { line: 1, col: 1 };
  return { file, line, column: col, path: SYNTAX_PATH, message: yamlMessage(error, text) };
}

/** The first line of the parser's message, without the position it repeats ("… at line 3, column 5:"). */
function yamlMessage(error: YAMLError, text: string): string {
  const first = error.message.split('\n')[0] ?? error.message;
  const message = first.replace(/ at line \d+, column \d+:?$/, '').trim();
  if (error.code === 'DUPLICATE_KEY') {
    // the key as written where the parser points (its second occurrence)
    const key = keyAt(text.slice(error.pos[0]));
    return `duplicate key${key === undefined ? '' : ` ${key}`}: map keys must be unique`;
  }
  // the parser's recursion ran out of stack
  if (/Maximum call stack size exceeded/.test(message)) return TOO_DEEP;
  return message;
}

/** The key `at` starts with, in the quotes it is written in, or in double quotes; undefined when none can be read. */
function keyAt(at: string): string | undefined {
  const key = /^("[^"\n]*"|'[^'\n]*'|[^\s:#{}[\],"'][^:#{}[\],\n]*?)[ \t\r]*:/.exec(at)?.[1];
  if (key === undefined) return undefined;
  return key.startsWith('"') || key.startsWith("'") ? key : `"${key}"`;
}

const TOO_DEEP =
  'nested too deeply to read: lists and maps inside each other hundreds of levels deep (a definition needs a few)';

/**
 * YAML accepts what JSON does not (trailing commas, comments, unquoted strings), so a `.json` file is
 * also given to JSON.parse. JSON parsers stop at the first error: this reports only that one.
 */
function strictJsonProblems(file: string, text: string): Problem[] {
  try {
    JSON.parse(text);
    return [];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = errorOffset(text, message);
    const lines = new LineIndex(text);
    // a comma before a closing bracket (YAML and JavaScript allow one, JSON does not): said, and shown at the comma
    const comma = text[offset] === '}' || text[offset] === ']' ? commaBefore(text, offset) : undefined;
    if (comma !== undefined) {
      const { line, column } = lines.position(comma);
      const reason = `a comma before ${text[offset]} (JSON allows none after the last item): remove it`;
      return [{ file, line, column, path: SYNTAX_PATH, message: `invalid JSON: ${reason}` }];
    }
    const { line, column } = lines.position(offset);
    // V8 quotes the text around some errors: the position says where
    const reason = message.replace(/( in JSON)? at position \d+.*$/s, '').replace(/, ".*is not valid JSON$/s, '');
    return [{ file, line, column, path: SYNTAX_PATH, message: `invalid JSON: ${reason}` }];
  }
}

/**
 * Where JSON.parse stopped. Some of its errors name no position ("Unexpected token"): then it is where the shortest
 * prefix of the text that fails otherwise than by ending early ends (a binary search: a prefix fails so only from
 * that point on).
 */
function errorOffset(text: string, message: string): number {
  const at = /at position (\d+)/.exec(message)?.[1];
  if (at !== undefined) return Number(at);
  if (parsesUpTo(text)) return text.length;
  let low = 0;
  let high = text.length;
  while (high - low > 1) {
    const middle = (low + high) >>> 1;
    if (parsesUpTo(text.slice(0, middle))) low = middle;
    else high = middle;
  }
  return high - 1;
}

/** Whether `prefix` holds no JSON error but its end. */
function parsesUpTo(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    const at = /at position (\d+)/.exec(message)?.[1];
    return message.startsWith('Unexpected end of JSON input') || (at !== undefined && Number(at) >= prefix.length);
  }
}

/** The offset of the comma just before `offset`, whitespace between; undefined when there is none. */
function commaBefore(text: string, offset: number): number | undefined {
  let i = offset - 1;
  while (i >= 0 && ' \t\n\r'.includes(text[i] ?? '')) i--;
  return text[i] === ',' ? i : undefined;
}

function toData(file: string, doc: Document): unknown {
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // e.g. an alias expanding into too many nodes ("billion laughs")
    const message = error instanceof Error ? error.message : String(error);
    throw new DefinitionError([{ file, line: 1, column: 1, path: SYNTAX_PATH, message }]);
  }
}
