/** Helpers of the definition tests: inline definitions and their problems as printed. */
import { DefinitionError, formatProblem } from '../../../src/errors.js';
import { parseDefinition } from '../../../src/pipeline/load.js';
import { definitionOf as readText } from '../../../src/pipeline/read-definition.js';
import { validate, type Definition } from '../../../src/pipeline/validate.js';

/** Removes the common indentation of a template literal, so that inline YAML can be indented in tables. */
export function dedent(text: string): string {
  const lines = text
    .replace(/^\n/, '')
    .replace(/\n[ \t]*$/, '\n')
    .split('\n');
  const indents = lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)?.[0].length ?? 0);
  const common = Math.min(...indents);
  return lines.map((line) => line.slice(common)).join('\n');
}

/** Every problem of a definition, formatted exactly as the CLI prints them; [] when it is valid. */
export function problemsOf(text: string, file = 'api.yaml'): string[] {
  try {
    // as every command reads it: validated, then checked as tables too (index names)
    readText(file, dedent(text));
    return [];
  } catch (error) {
    if (error instanceof DefinitionError) return error.problems.map(formatProblem);
    throw error;
  }
}

/** The validated definition; fails the test with the problems when it is invalid. */
export function definitionOf(text: string, file = 'api.yaml'): Definition {
  return validate(parseDefinition(file, dedent(text)));
}

/**
 * A definition made of a valid head (name, version) and `body` as the content of `resources`: the
 * body's first line is line 4 of the file, and its columns are shifted right by 2.
 */
export function withResources(body: string): string {
  const indented = dedent(body)
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');
  return `name: t\nversion: "1"\nresources:\n${indented}`;
}
