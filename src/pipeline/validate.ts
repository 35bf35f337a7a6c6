/**
 * Checks a loaded definition against the schema and the semantic rules, and reports every problem at
 * once, each at the line and column of the node it concerns, sorted by position.
 */
import { DefinitionError, type Problem } from '../errors.js';
import { translateIssues } from '../definition/messages.js';
import { PositionFinder, formatPath, type Located } from '../definition/positions.js';
import { prototypeKeys } from '../definition/prototype-keys.js';
import { definitionSchema, type Definition } from '../definition/schema.js';
import { semanticProblems } from '../definition/semantic-checks.js';
import type { Loaded } from './load.js';

export type { Definition } from '../definition/schema.js';

export function validate(loaded: Loaded): Definition {
  const result = definitionSchema.safeParse(loaded.data);
  const located: Located[] = [
    // before zod: its records drop such keys without an issue
    ...prototypeKeys(loaded.data),
    ...(result.success ? [] : translateIssues(result.error.issues, loaded.data)),
    ...semanticProblems(loaded.data),
  ];
  if (!result.success && located.length === 0) {
    // zod failed without an issue we could translate: should not happen, but never pass silently.
    located.push({ path: [], message: 'the definition is invalid' });
  }
  // with the syntax problems of a file read all the same (a bracket left open: load.ts)
  const problems = [...loaded.syntax, ...locate(loaded, located)];
  if (result.success && problems.length === 0) return result.data;
  throw new DefinitionError(problems.sort((a, b) => a.line - b.line || a.column - b.column));
}

/** Problems at the line and column of what they concern, once each, sorted by position. */
export function locate(loaded: Loaded, located: readonly Located[]): Problem[] {
  const finder = new PositionFinder(loaded.doc, loaded.text);
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const { path, anchor, message } of located) {
    const { line, column } = finder.find(path, anchor);
    const problem: Problem = { file: loaded.file, line, column, path: formatPath(path), message };
    const key = `${line}:${column}|${problem.path}|${message}`;
    if (!seen.has(key)) problems.push(problem);
    seen.add(key);
  }
  return problems.sort((a, b) => a.line - b.line || a.column - b.column);
}
