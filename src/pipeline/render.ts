import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import type { Owner, PlannedFile } from './plan.js';
import { inTemplateLiteral } from '../generate/sql/block.js';
import { compactText, flatLiteral, printAssigned, printProperty, type Constant } from '../generate/literal.js';
import { inPrettierShape } from './shape.js';
import { layoutHelpers } from './layout-helpers.js';
import { compileTemplate, partials } from './templates.js';
import { anotherRunExpected } from '../memo.js';
import { joinedDocument, type SplitDocument } from '../openapi/document.js';
import { PRETTIER_OPTIONS } from '../generate/project-files.js';
import { documentChunks, type JsonChunk } from './json-chunks.js';
import { formattingKey } from './fingerprint.js';
import type { Known } from './format.js';
import { PACKAGE } from '../package-folders.js';

const RUNTIME = join(PACKAGE, 'runtime/');

/**
 * Templates whose text is in prettier's shape, but for their `tsConst` constants: a file of theirs is not given to
 * prettier when each constant in it is printed in prettier's layout (literal.ts), which is done only when the last
 * run's text of the file cannot be taken instead (format.ts). literal.test.ts holds them to prettier on every example.
 */
const SHAPED = new Set(['resource/schemas.ts.hbs']);

/**
 * Templates written in prettier's shape, every group on one line (shape.ts): a file of theirs is not given to prettier
 * when every line of it fits, every value in it was printed in prettier's layout (the `js`, `tsProperty` and
 * `tsAssigned` helpers) and what prettier breaks by width was laid out by generate/layout.ts (the block helpers).
 */
const IN_SHAPE = new Set([
  'resource/model.ts.hbs',
  'resource/access.ts.hbs',
  'resource/store.ts.hbs',
  'resource/routes.ts.hbs',
  'resource/nested.ts.hbs',
  'project/src/resources/index.ts.hbs',
]);

/** whether a value of the file being rendered was written compact, for prettier to lay out */
let compactValues = false;

/** the constants `tsConst` rendered in the file being rendered */
let constants: Constant[] = [];

/** Helpers do what templates may not: every value from a definition is escaped for where it lands. */
const handlebars = Handlebars.create();
handlebars.registerHelper(layoutHelpers);
handlebars.registerHelper({
  /**
   * a JavaScript/JSON literal, strings quoted and escaped, on one line as prettier prints it (literal.ts), else
   * compact JSON: prettier lays it out (an object written expanded would stay expanded)
   */
  js: (value: unknown) => {
    const printed = flatLiteral(value);
    if (printed !== undefined) return printed;
    compactValues = true;
    return JSON.stringify(value);
  },
  /**
   * `export const name = value;`, the value a compact JSON literal, printed in prettier's layout later (see SHAPED);
   * `as const` after it when a third argument says `true`
   */
  tsConst: (name: unknown, value: unknown, asConst: unknown) => {
    const constant = { name: String(name), json: JSON.stringify(value), asConst: asConst === true };
    constants.push(constant);
    return compactText(constant);
  },
  /**
   * SQL as a template literal, so that multi-line statements read as SQL; nothing in it can interpolate, and a
   * carriage return (which a template literal reads as a line feed) is written as an escape
   */
  /**
   * `key: value` in prettier's layout at `indent`, the value a JSON value; compact where literal.ts does not know the
   * layout (then prettier formats the file)
   */
  tsProperty: (key: unknown, value: unknown, indent: unknown) => {
    const printed = printProperty(String(key), value, Number(indent));
    if (printed !== undefined) return printed;
    compactValues = true;
    return `${String(key)}: ${JSON.stringify(value)}`;
  },
  /** `head` and an object or array value, `;` after it, as prettier prints the statement at `indent` (literal.ts) */
  tsAssigned: (head: unknown, value: unknown, indent: unknown) => {
    const printed = printAssigned(String(head), value, Number(indent));
    if (printed !== undefined) return printed;
    compactValues = true;
    return `${String(head)}${JSON.stringify(value)};`;
  },
  sqlText: (value: unknown) => `\`${inTemplateLiteral(String(value))}\``,
  /** text inside a block comment: cannot close it */
  comment: (value: unknown) =>
    String(value ?? '')
      .replaceAll('*/', '*\\/')
      .replace(/\s*\n\s*/g, ' '),
  /** text inside a line of Markdown: cannot open markup, nor end the line (a heading, a table row) */
  md: (value: unknown) =>
    String(value ?? '')
      .replace(/\s*[\r\n]\s*/g, ' ')
      .replace(/([\\`*_{}[\]<>()#+!|$])/g, '\\$1'),
  /** the first letter in upper case, to begin a sentence */
  capitalised: (value: unknown) => {
    const text = String(value);
    return text.charAt(0).toUpperCase() + text.slice(1);
  },
});

/** Partials, for blocks that templates repeat or that only some files have: `{{> name}}` for partials/name.hbs. */
for (const [name, partial] of partials(handlebars)) handlebars.registerPartial(name, partial);

const compiled = new Map<string, HandlebarsTemplateDelegate>();

function template(name: string): HandlebarsTemplateDelegate {
  let found = compiled.get(name);
  if (found === undefined) {
    found = compileTemplate(handlebars, name);
    compiled.set(name, found);
  }
  return found;
}

const runtimeFiles = new Map<string, string>();

/** A file of the runtime, as it is (read once a process). */
function runtimeFile(path: string): string {
  let text = runtimeFiles.get(path);
  if (text === undefined) {
    text = readFileSync(RUNTIME + path, 'utf8');
    runtimeFiles.set(path, text);
  }
  return text;
}

export interface RenderedFile {
  path: string;
  owner: Owner;
  content: string;
  /** the content is JSON.stringify(value, null, 2) and a newline: formatted without parsing it again */
  stringified?: true;
  /**
   * the content is in prettier's shape already: a file of the runtime, formatted in this repo with the projects'
   * options (`npm run format:check`; format.test.ts checks them with their headers, as projects get them)
   */
  formatted?: true;
  /**
   * the constants of a SHAPED template, compact in `content`: formatted, the file is `content` with them printed in
   * prettier's layout (literal.ts, printConstants) when the printer knows it, else what prettier makes of `content`;
   * the compact text is also the key of the format cache, so that an edit prints only the schemas it changed
   */
  constants?: readonly Constant[];
  /**
   * formatted, a markdown file formatted in chunks: each one's key, and the length and hash of its formatted text
   * (markdown-chunks.ts)
   */
  chunks?: readonly { key: string; length: number; hash: string }[];
  /**
   * the OpenAPI document, printed in chunks (json-chunks.ts): `content` is their keys, and the chunks joined are its
   * text; `whole` is JSON.stringify's text of it, for prettier where a chunk is not printed here
   */
  json?: { chunks: readonly JsonChunk[]; whole: () => string };
  /**
   * for a file rendered from a context with a key (plan.ts): the key of all it is rendered from (renderKey), which the
   * manifest records, so that the next run knows the file without rendering it (renderOrKnown)
   */
  key?: string;
  /** for a file not rendered again, the key of its text as the last run rendered it (manifest.ts, renderedHash) */
  renderedAs?: string;
}

/**
 * The key of all a planned file's text is made from, where its context has a key: the template, the path, the owner
 * and the definition's name (its header), the context's key, and the restsmith that renders (fingerprint.ts).
 */
export const renderKey = (file: PlannedFile, source: string): string | undefined =>
  file.key === undefined || !('template' in file)
    ? undefined
    : formattingKey([file.template, file.path, file.owner, source, file.key].join('\n'));

/**
 * What each view object was rendered into, by template, path, owner and source: a view remembered from the last run
 * (generate/view-memo.ts) is rendered again into the very file it was rendered into then. Held weakly: forgotten
 * with the view. A rendered file is shared: nothing may change it. Kept only when another run is expected (memo.ts).
 */
const renderedOf = new WeakMap<object, Map<string, RenderedFile>>();

/** Renders a planned file and puts the ownership header on it: once a view, path and source (see renderedOf). */
export function render(file: PlannedFile, source: string): RenderedFile {
  if (!('template' in file) || !anotherRunExpected()) return renderNow(file, source);
  let byKey = renderedOf.get(file.context);
  if (byKey === undefined) renderedOf.set(file.context, (byKey = new Map()));
  const key = [file.template, file.path, file.owner, source].join('\n');
  let rendered = byKey.get(key);
  if (rendered === undefined) byKey.set(key, (rendered = renderNow(file, source)));
  return rendered;
}

/**
 * A planned file as `render` makes it, with its key where it has one (renderKey, for the manifest); or, when the last
 * run rendered it from that key and the file on disk is what that run wrote, that file as it is (formatted): a
 * regeneration renders only the files of the resources an edit changed.
 */
export function renderOrKnown(file: PlannedFile, source: string, known: Known): RenderedFile {
  const key = renderKey(file, source);
  const before = key === undefined ? undefined : known.rendered(file.path, key);
  if (before === undefined) return key === undefined ? render(file, source) : { ...render(file, source), key };
  return {
    path: file.path,
    owner: file.owner,
    content: before.text,
    formatted: true,
    key,
    renderedAs: before.renderedAs,
  };
}

function renderNow(file: PlannedFile, source: string): RenderedFile {
  if ('document' in file) return renderedDocument(file.path, file.owner, file.document);
  const head = header(file.path, file.owner, source);
  constants = [];
  compactValues = false;
  const rendered = { path: file.path, owner: file.owner, content: head + body(file) };
  if ('runtime' in file) return { ...rendered, formatted: true };
  if ('template' in file && SHAPED.has(file.template)) return { ...rendered, constants };
  if ('template' in file && IN_SHAPE.has(file.template) && !compactValues && inPrettierShape(rendered.content))
    return { ...rendered, formatted: true };
  return 'json' in file && head === '' ? { ...rendered, stringified: true } : rendered;
}

/** The OpenAPI document in chunks (json-chunks.ts); where they cannot be printed here, JSON.stringify's text of it. */
function renderedDocument(path: string, owner: Owner, document: SplitDocument): RenderedFile {
  const whole = (): string => `${JSON.stringify(joinedDocument(document), null, 2)}\n`;
  const chunks = documentChunks(document, PRETTIER_OPTIONS.printWidth);
  if (chunks === undefined) return { path, owner, content: whole(), stringified: true };
  return { path, owner, content: chunks.map((c) => c.key).join('\n'), json: { chunks, whole } };
}

function body(file: Exclude<PlannedFile, { document: SplitDocument }>): string {
  if ('json' in file) return `${JSON.stringify(file.json, null, 2)}\n`;
  if ('runtime' in file) return runtimeFile(file.runtime);
  return template(file.template)(file.context);
}

/** The header that tells a reader who owns the file; JSON has no comments and goes without. */
export function header(path: string, owner: Owner, source: string): string {
  const lines = HEADER_TEXT[owner](source);
  if (path.endsWith('.ts') || path.endsWith('.js')) return `${lines.map((l) => `// ${l}`).join('\n')}\n\n`;
  if (path.endsWith('.md')) {
    // the README is where the header sends a reader for the files that are theirs: in the README, it points below
    const text = lines.join(' ');
    return `<!-- ${path === 'README.md' ? text.replace('(see README.md)', '(see below)') : text} -->\n\n`;
  }
  if ((path.startsWith('.') && !path.endsWith('.json')) || path === 'Dockerfile')
    return `${lines.map((l) => `# ${l}`).join('\n')}\n\n`;
  return '';
}

const HEADER_TEXT: Record<Owner, (source: string) => string[]> = {
  generator: (source) => [
    `Generated by restsmith from ${source}. Do not edit: this file is rewritten by \`restsmith generate\`.`,
    'Change the definition instead, or put your code in a file restsmith does not own (see README.md).',
  ],
  user: () => ['Created by restsmith once. This file is yours: restsmith never overwrites it.'],
  migration: (source) => [
    `Migration written by restsmith from ${source}. Applied once, at start or by npm run migrate; never edit a migration that has run.`,
  ],
};
