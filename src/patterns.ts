/**
 * `pattern` of a string field: the whole value must match (the pattern is anchored as `^(?:…)$`), and it is
 * matched by RE2's linear-time engine (re2js) wherever restsmith or a generated server runs it, so that no pattern
 * can make a match backtrack for minutes (ReDoS). A pattern must be valid for RE2 and for ECMAScript's `u` mode
 * (clients read it from the OpenAPI document with their own engines).
 */
import { RE2JS } from 're2js';

/** The pattern as it is written into JSON Schemas and the OpenAPI document: anchored at both ends. */
export function anchoredPattern(pattern: string): string {
  return `^(?:${pattern})$`;
}

/** Why `pattern` cannot be used, or undefined when it can. */
export function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return `pattern is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}`;
  }
  try {
    RE2JS.compile(anchoredPattern(pattern));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return (
      `pattern is not supported by the linear-time engine (RE2) that checks it: ${reason} ` +
      '(backreferences and lookaround are not available)'
    );
  }
  return undefined;
}

/** Whether the whole of `value` matches `pattern`, in time linear in its length; true for an unusable pattern (reported on its own). */
export function matchesPattern(pattern: string, value: string): boolean {
  if (patternProblem(pattern) !== undefined) return true;
  return RE2JS.compile(anchoredPattern(pattern)).test(value);
}
