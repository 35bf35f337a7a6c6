import type { Names } from './model.js';

/** Splits `blog-posts`, `authorId`, `author_id` and `HTTPServer` into lower-case words. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}

export const capitalise = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1);

export function names(name: string): Names {
  const ws = words(name);
  const pascal = ws.map(capitalise).join('');
  return {
    camel: pascal.charAt(0).toLowerCase() + pascal.slice(1),
    pascal,
    snake: ws.join('_'),
    kebab: ws.join('-'),
  };
}

const UNCHANGED_PLURALS = new Set(['news', 'series', 'species', 'data', 'status', 'analysis', 'bus', 'gas']);

/** English singular of one lower-case word, by the common rules (`categories` → `category`). */
export function singularWord(word: string): string {
  if (UNCHANGED_PLURALS.has(word)) return word;
  if (word === 'people') return 'person';
  if (/[^aeiou]ies$/.test(word)) return word.slice(0, -3) + 'y';
  if (/(ss|x|ch|sh|zz)es$/.test(word)) return word.slice(0, -2);
  if (/(us|ss|is)$/.test(word)) return word;
  if (word.endsWith('s') && word.length > 1) return word.slice(0, -1);
  return word;
}

/** The PascalCase singular type name of a collection: `blog-posts` → `BlogPost`. */
export function typeNameOf(collection: string): string {
  const ws = words(collection);
  const last = ws.pop() ?? '';
  return [...ws, singularWord(last)].map(capitalise).join('');
}

/** A record of a resource in words, from its type name: `ReadingList` → `reading list`. */
export const nounOf = (typeName: string): string => words(typeName).join(' ');

/**
 * The article of a word, by how it sounds: `an` before a vowel, but `a` before a `u` read as "you" (a user, a unit:
 * one consonant and a vowel after it; an update, an umbrella).
 */
export const anOrA = (word: string): 'a' | 'an' =>
  /^[aeio]/i.test(word) || (/^u/i.test(word) && !/^u[^aeiou][aeiou]/i.test(word)) ? 'an' : 'a';

/** Words that cannot name a field, resource or action: they would clash in the generated TypeScript. */
export const RESERVED_WORDS = new Set([
  // JavaScript / TypeScript reserved and strict-mode words
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'yield',
  'let',
  'static',
  'implements',
  'interface',
  'package',
  'private',
  'protected',
  'public',
  'await',
  'async',
  'arguments',
  'eval',
  'undefined',
  'NaN',
  'Infinity',
  // object internals
  'constructor',
  'prototype',
  '__proto__',
  'toString',
  'valueOf',
  'hasOwnProperty',
]);

/** Fields every resource has; a definition cannot declare them. */
export const SYSTEM_FIELDS = ['id', 'createdAt', 'updatedAt', 'version'] as const;

/**
 * Type names the generated code uses itself (TypeScript and Node globals, the project's own types):
 * a resource whose type name is one of them would shadow it.
 */
export const RESERVED_TYPE_NAMES = new Set([
  'Array',
  'Boolean',
  'Buffer',
  'Date',
  'Error',
  'Function',
  'JSON',
  'Map',
  'Math',
  'Number',
  'Object',
  'Partial',
  'Promise',
  'Readonly',
  'Record',
  'RegExp',
  'Set',
  'String',
  'Symbol',
  'URL',
  'Config',
  'Database',
  'Dialect',
  'Json',
  'JsonValue',
  'Page',
  'Row',
  'Sql',
  'SqlValue',
  'Statement',
  'Stored',
  'Versioned',
]);

/** Query parameters of every listing; no field may take their names (its filter would clash). */
export const LISTING_PARAMETERS = ['limit', 'cursor', 'sort', 'include'] as const;

/** The to-one relation a ref field makes when `as` does not name it: `authorId` → `author` (see relation-checks.ts). */
export const relationNameOf = (field: string): string => (/[a-z0-9]Id$/.test(field) ? field.slice(0, -2) : field);
