/**
 * Reading a line of TypeScript as generate/layout.ts needs to: its brackets and commas outside strings, the
 * arguments of a call, a property's key. Only for the lines templates write (no comments, no regular expressions).
 */

/** `head(args)tail`, the first parenthesis at the top level opening the arguments; undefined when unbalanced. */
export function splitCall(text: string): { head: string; args: string[]; tail: string } | undefined {
  const open = text.indexOf('(');
  const close = open < 0 ? -1 : matching(text, open);
  if (close < 0) return undefined;
  const inside = text.slice(open + 1, close).trim();
  return { head: text.slice(0, open), args: inside === '' ? [] : splitTopLevel(inside), tail: text.slice(close + 1) };
}

const OPENING: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** The index of the bracket that closes the one at `at`, skipping strings; -1 when there is none. */
export function matching(text: string, at: number): number {
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
export function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const comma of topLevelAll(text, ',')) {
    parts.push(text.slice(start, comma).trim());
    start = comma + 1;
  }
  const rest = text.slice(start).trim();
  return rest === '' ? parts : [...parts, rest];
}

/** The index of a property's colon, `key: value` (not one inside its value); -1 for a shorthand or a spread. */
export function topLevelColon(property: string): number {
  const key = /^(?:[A-Za-z_$][\w$]*|'[^']*'|\d+):/.exec(property);
  return key === null ? -1 : key[0].length - 1;
}

/** Each index where `token` begins outside brackets and strings, in order. */
function* topLevelAll(text: string, token: string): Generator<number> {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (c === "'" || c === '"' || c === '`') i = endOfString(text, i);
    else if (OPENING[c] !== undefined) depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (depth === 0 && text.startsWith(token, i)) yield i;
  }
}

/** The index of the first `token` outside brackets and strings; -1 when there is none. */
export const topLevel = (text: string, token: string): number => topLevelAll(text, token).next().value ?? -1;

/** The index of the first ` => ` outside brackets and strings; -1 when there is none. */
export const topLevelArrow = (text: string): number => topLevel(text, ' => ');
