/**
 * Emitted TypeScript that knows what it uses. A `Code` is a piece of text and the symbols in it; a file's imports are
 * computed from the codes it prints (as hey-api's planner does), so that a view and its template cannot disagree.
 */
import { importLayout } from './layout.js';

/** A name a generated file imports; `from` is written as a resource folder's files write it. */
export interface Symbol {
  readonly name: string;
  readonly from: string;
  /** imported with `type` (used in types only) */
  readonly type?: boolean;
  /** the local name, when it is not `name` */
  readonly as?: string;
}

export interface Code {
  readonly text: string;
  readonly uses: readonly Symbol[];
}

type Part = Code | Symbol | string | number;

const isSymbol = (part: Part): part is Symbol => typeof part === 'object' && 'from' in part;

/** Code from a template literal: a symbol interpolated prints its local name and is recorded as used. */
export function code(strings: TemplateStringsArray, ...parts: Part[]): Code {
  let text = strings[0] ?? '';
  const uses: Symbol[] = [];
  parts.forEach((part, i) => {
    if (typeof part === 'object') {
      text += isSymbol(part) ? (part.as ?? part.name) : part.text;
      uses.push(...(isSymbol(part) ? [part] : part.uses));
    } else text += String(part);
    text += strings[i + 1] ?? '';
  });
  return { text, uses };
}

/** Code that uses nothing. */
export const plain = (text: string): Code => ({ text, uses: [] });

/** Codes joined by `separator`. */
export const join = (codes: readonly Code[], separator: string): Code => ({
  text: codes.map((c) => c.text).join(separator),
  uses: codes.flatMap((c) => c.uses),
});

/** Every symbol of these codes and symbols. */
export const usesOf = (...parts: readonly (Code | Symbol | readonly (Code | Symbol)[])[]): Symbol[] =>
  parts.flat().flatMap((part) => ('from' in part ? [part] : part.uses));

/**
 * The import declarations of a file that uses `symbols`: packages first, then the project's modules by path; in a
 * declaration values, then types, each in alphabetical order; `import type` when only types are used.
 */
export function importsOf(symbols: readonly Symbol[]): string {
  const modules = new Map<string, Map<string, Symbol>>();
  for (const symbol of symbols) {
    const names = modules.get(symbol.from) ?? new Map<string, Symbol>();
    const known = names.get(symbol.name);
    // a name used as a value and as a type is imported as a value
    if (known === undefined || known.type === true) names.set(symbol.name, symbol);
    modules.set(symbol.from, names);
  }
  const rank = (from: string): number => (from.startsWith('./') ? 2 : from.startsWith('.') ? 1 : 0);
  return [...modules.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([from, names]) => declaration(from, [...names.values()]))
    .join('\n');
}

function declaration(from: string, symbols: Symbol[]): string {
  const spell = (s: Symbol): string => (s.as === undefined ? s.name : `${s.name} as ${s.as}`);
  const byName = (a: Symbol, b: Symbol): number => a.name.localeCompare(b.name);
  const values = symbols.filter((s) => s.type !== true).sort(byName);
  const types = symbols.filter((s) => s.type === true).sort(byName);
  if (values.length === 0) return importLayout('import type ', types.map(spell), ` from '${from}';`);
  const names = [...values.map(spell), ...types.map((s) => `type ${spell(s)}`)];
  return importLayout('import ', names, ` from '${from}';`);
}
