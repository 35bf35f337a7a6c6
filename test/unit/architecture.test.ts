import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/project.js';

const SRC = join(ROOT, 'src');

/**
 * What each folder of src/ may import (besides itself and the files at src/'s top: model, naming, errors, patterns, memo,
 * version). Dependencies point one way: field-types (one module a field type) ← everything that reads a field; schema (the data model as tables) ← contract (what the API promises: JSON
 * Schemas, access, listing, sample values) ← generate, openapi; migrate reads schema only; pipeline puts them
 * together; commands run the pipeline. docs/architecture.md explains each.
 */
const ALLOWED: Record<string, string[]> = {
  'field-types': [],
  definition: ['field-types'],
  schema: ['field-types'],
  contract: ['field-types', 'schema'],
  generate: ['field-types', 'schema', 'contract'],
  openapi: ['field-types', 'schema', 'contract'],
  migrate: ['field-types', 'schema'],
  pipeline: ['field-types', 'definition', 'schema', 'contract', 'generate', 'openapi', 'migrate'],
  commands: ['pipeline', 'migrate'],
  types: [],
};

/**
 * The runtime's modules that contract/ may import: tables of plain data that import nothing, which the generated
 * server and restsmith (its README, its OpenAPI document) read alike, so that they are written once.
 */
const RUNTIME_TABLES: Record<string, string[]> = {
  contract: ['runtime/src/http/problem-kinds.ts'],
};

/** The most lines a file of src/ holds (issue 59). */
const MAX_LINES = 300;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/** The folder of src/ a file is in ('' for src/ itself). */
const folderOf = (file: string): string => {
  const parts = relative(SRC, file).split('/');
  return parts.length === 1 ? '' : (parts[0] ?? '');
};

describe('the folders of src/', () => {
  it('import only the folders they may', () => {
    const wrong: string[] = [];
    for (const file of sources(SRC)) {
      const from = folderOf(file);
      // static imports, re-exports, side-effect imports and dynamic import()
      const specs = readFileSync(file, 'utf8').matchAll(/(?:from|import|import\()\s*'(\.{1,2}\/[^']+)'/g);
      for (const [, spec] of specs) {
        const target = resolve(dirname(file), spec ?? '');
        const table = relative(ROOT, target).replace(/\.js$/, '.ts');
        if (RUNTIME_TABLES[from]?.includes(table)) continue;
        const to = folderOf(target);
        // the files at src/'s top are shared by all and import no folder; cli.ts, the entry, may import any
        const allowed = from === '' ? basename(file) === 'cli.ts' : ALLOWED[from]?.includes(to);
        if (to === '' || to === from || allowed) continue;
        wrong.push(`${relative(ROOT, file)} imports ${spec} (${from || 'src/'} may not import ${to})`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('share only runtime tables that import nothing', () => {
    for (const table of Object.values(RUNTIME_TABLES).flat()) {
      expect(readFileSync(join(ROOT, table), 'utf8')).not.toMatch(/^\s*(import|export .* from)\b/m);
    }
  });

  // a file that grows past it holds two concepts: give the second a module of its own, named for what it does
  it('hold files of at most 300 lines', () => {
    const long = [...sources(SRC)]
      .map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it('are each in the table above', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory());
    expect(folders.map((e) => e.name).sort()).toEqual(Object.keys(ALLOWED).sort());
  });
});

/**
 * The templates' conditionals and layout helpers, held to where the redesign has brought them (issue 59 sets 40 and
 * none): a feature that needs a branch gets an emitter of its own, not another `{{#if}}`. Lower them as they go.
 */
const MOST_CONDITIONALS = 185;
const MOST_LAYOUT_HELPERS = 65;

describe('the templates', () => {
  const texts = [...templateFiles(join(ROOT, 'templates'))].map((file) => readFileSync(file, 'utf8'));
  const count = (pattern: RegExp): number => texts.reduce((sum, text) => sum + (text.match(pattern)?.length ?? 0), 0);

  it(`hold at most ${MOST_CONDITIONALS} conditionals`, () => {
    expect(count(/\{\{#(?:if|unless)\b/g)).toBeLessThanOrEqual(MOST_CONDITIONALS);
  });

  it(`hold at most ${MOST_LAYOUT_HELPERS} layout helpers`, () => {
    expect(count(/\{\{#(?:call|signature|object|lastFunction|arrow|conditional)\b/g)).toBeLessThanOrEqual(
      MOST_LAYOUT_HELPERS,
    );
  });
});

function* templateFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* templateFiles(path);
    else if (entry.name.endsWith('.hbs')) yield path;
  }
}

describe('the runtime', () => {
  // telemetry/preload.ts imports them, dynamically, only when traces are asked for (see docs/architecture.md)
  const LOADED_FOR_TRACES = ['telemetry/otel.ts', 'telemetry/request-spans.ts'];

  it('imports OpenTelemetry in the modules loaded for traces only, and they in no other', () => {
    const runtime = join(ROOT, 'runtime/src');
    const wrong: string[] = [];
    for (const file of sources(runtime)) {
      const path = relative(runtime, file);
      const text = readFileSync(file, 'utf8');
      // value imports (`import type` costs nothing at run time), static or dynamic
      const otel = /^import (?!type )[^;]*from '(?:@opentelemetry\/[^']+|@fastify\/otel)'|import\('@opentelemetry/m;
      const traced = /from '\.{1,2}\/(?:[^']*\/)?(?:otel|request-spans)\.js'/;
      if (!LOADED_FOR_TRACES.includes(path) && otel.test(text)) wrong.push(`${path} imports OpenTelemetry`);
      if (!LOADED_FOR_TRACES.includes(path) && traced.test(text))
        wrong.push(`${path} imports a module loaded for traces`);
    }
    expect(wrong).toEqual([]);
    expect(readFileSync(join(runtime, 'telemetry/otel.ts'), 'utf8')).toMatch(/from '@opentelemetry\/sdk-node'/);
  });
});
