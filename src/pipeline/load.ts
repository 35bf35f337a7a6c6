/**
 * Reads a definition file and parses it, keeping the YAML document so that later steps can point at
 * the line and column of any value. JSON files are parsed by the same YAML parser (JSON is YAML), and
 * are also held to strict JSON syntax.
 */
import { extname } from 'node:path';
import { parseDocument, type Document, type YAMLError } from 'yaml';
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
  const problems = doc.errors.map((error) => yamlProblem(file, error));
  if (problems.length === 0 && extname(file).toLowerCase() === '.json') {
    problems.push(...strictJsonProblems(file, text));
  }
  if (problems.length > 0) throw new DefinitionError(problems.sort((a, b) => a.line - b.line || a.column - b.column));
  return { file, text, doc, data: toData(file, doc) };
}

function yamlProblem(file: string, error: YAMLError): Problem {
  const position = error.linePos?.[0] ?? { line: 1, col: 1 };
  return { file, line: position.line, column: position.col, path: SYNTAX_PATH, message: yamlMessage(error) };
}

/** The first line of the parser's message, without the position it repeats ("… at line 3, column 5:"). */
function yamlMessage(error: YAMLError): string {
  const first = error.message.split('\n')[0] ?? error.message;
  const message = first.replace(/ at line \d+, column \d+:?$/, '').trim();
  if (error.code === 'DUPLICATE_KEY') return 'duplicate key: map keys must be unique';
  // the parser's recursion ran out of stack
  if (/Maximum call stack size exceeded/.test(message)) return TOO_DEEP;
  return message;
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
    const offset = Number(/at position (\d+)/.exec(message)?.[1] ?? text.length);
    const { line, column } = new LineIndex(text).position(offset);
    const reason = message.replace(/( in JSON)? at position \d+.*$/, '');
    return [{ file, line, column, path: SYNTAX_PATH, message: `invalid JSON: ${reason}` }];
  }
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
