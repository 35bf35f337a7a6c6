import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import prettier from 'prettier';
import * as oxc from '@prettier/plugin-oxc';
import { PRETTIER_OPTIONS } from '../../../src/generate/project-files.js';
import {
  arrayLayout,
  arrowLayout,
  callLayout,
  conditionalLayout,
  importLayout,
  lastFunctionLayout,
  objectLayout,
  signatureLayout,
  unionArgumentLayout,
} from '../../../src/generate/layout.js';
import { inPrettierShape } from '../../../src/pipeline/shape.js';

const viaPrettier = (content: string): Promise<string> =>
  prettier.format(content, { ...PRETTIER_OPTIONS, parser: 'oxc-ts', plugins: [oxc], filepath: 'layout.ts' });

/** A name of `length` characters. */
const named = (prefix: string, length: number): string => prefix + 'x'.repeat(Math.max(0, length - prefix.length));

const length = fc.integer({ min: 1, max: 70 });
const count = fc.integer({ min: 1, max: 14 });

/**
 * Each layout, in a file of its own: what prettier prints of it, whenever every line fits (else the file would go to
 * prettier: pipeline/shape.ts); and most do.
 */
async function holds(make: (sizes: number[]) => string, arity: number): Promise<void> {
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(length, { minLength: arity, maxLength: arity }), count, async (sizes, n) => {
      const text = make([...sizes, n]);
      if (!inPrettierShape(text)) return;
      checked += 1;
      expect(text).toBe(await viaPrettier(text));
    }),
    { numRuns: 300 },
  );
  expect(checked).toBeGreaterThan(100);
}

describe('layouts of generate/layout.ts, as prettier lays them out', () => {
  it('a method signature: one line, else one parameter a line', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const params = Array.from({ length: n % 5 }, (_, i) => `${named(`p${i}`, a)}: ${named('T', b)}`);
      const head = signatureLayout(
        `  async ${named('m', a)}(${params.join(', ')}): Promise<${named('R', b)} | undefined> {`,
        2,
      );
      return `class A {\n${head}\n    return undefined;\n  }\n}\n`;
    }, 2);
  });

  it('a function returning a Record of a union: its union broken as prettier breaks it', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const union = Array.from({ length: n }, (_, i) => `'${named(`f${i}`, b % 20)}'`).join(' | ');
      const head = signatureLayout(`function writable(input: ${named('I', a)}): Record<${union}, SqlValue> {`, 0);
      return `${head}\n  return input;\n}\n`;
    }, 2);
  });

  it('a union as the type argument of a statement: one line, alone on the next, or one member a line', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const union = Array.from({ length: n }, (_, i) => `'${named(`f${i}`, b % 24)}'`).join(' | ');
      const line = unionArgumentLayout(`  readonly #${named('s', a % 30)} = this.prepare<${union}>(\``, 2);
      return `class A {\n${line}\n    SELECT 1\n  \`);\n}\n`;
    }, 2);
  });

  it('a call: one line, else one argument a line, an object broken when it does not fit', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const object = `{ ${Array.from({ length: n }, (_, i) => `${named(`k${i}`, b % 16)}: v`).join(', ')}, ...rest }`;
      const line = callLayout(
        `    const row = await this.write(this.#${named('s', a % 30)}, ${object}, 'created', actor);`,
        4,
      );
      return `class A {\n  async m() {\n${line}\n  }\n}\n`;
    }, 2);
  });

  it('a call whose last argument is an object: one line, else the object hugged, else one argument a line', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const entries = Array.from({ length: n % 6 }, (_, i) => `${named(`k${i}`, b % 30)}: [v]`);
      const object = `{ ${[...entries, "x: () => g(['y'])"].join(', ')} }`;
      const line = callLayout(`    return whyRefused(${named('record', a)}, ${named('s', b % 9)}, ${object});`, 4);
      return `function f() {\n  {\n${line}\n  }\n}\n`;
    }, 2);
  });

  // found by a reviewer: prettier hugs a last array as it hugs a last object
  it('a call whose last argument is an array: one line, else the array hugged, else one argument a line', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].slice(0, 1 + (n % 5)).map((m) => `'${m}'`);
      const deprecated = b % 3 === 0 ? ', deprecated' : '';
      const line = callLayout(
        `  refuseOtherMethods(app, '/${named('p', a + b)}', [${methods.join(', ')}]${deprecated});`,
        2,
      );
      return `function f() {\n${line}\n}\n`;
    }, 2);
  });

  // a route: `app.get(url, options, async (request) => {`, its body, `});`
  it('a call whose last argument is a function with a block body: hugged, else one argument a line', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const options = `{ schema: ${named('s', a % 30)}, config: { ${named('c', b % 40)}: 1 }${n % 2 ? ', preParsing: guard(access.list)' : ''} }`;
      const head = `app.get<{ Querystring: ${named('Q', b % 20)} }>('/${named('p', a)}', ${options}, async (request) => {`;
      const body = (pad: string): string => `${pad}const x = request.query;\n${pad}return x;`;
      const hugs = `  ${head}`.length <= 110;
      const text = lastFunctionLayout(`  ${head}\n${body(hugs ? '    ' : '    ')}\n  });`, 2);
      return `function f() {\n${text}\n}\n`;
    }, 2);
  });

  it('a call whose last argument is an arrow function with an expression body', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const options = `{ schema: ${named('s', a % 30)}, config: problems }`;
      const call = `app.get<{ Querystring: ${named('Q', b % 20)} }>('/${named('p', a % 50)}', ${options}, async (request) => store.list(request.query${', request.scope.owner'.repeat(n % 3)}));`;
      return `function f() {\n${lastFunctionLayout(`  ${call}`, 2)}\n}\n`;
    }, 2);
  });

  it('an arrow function with an expression body: one line, else the body on the next, laid out there', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const args = Array.from({ length: n % 6 }, (_, i) => named(`a${i}`, b % 20)).join(', ');
      const versionOf = `  const ${named('v', a % 40)} = async (id: string): Promise<number | undefined> => (await store.get(id))?.version;`;
      const reads = `  const ${named('r', a % 40)} = (request: R, record: object): Promise<boolean> => authorizer.reads(${args});`;
      const conditional = `    async (expected) => ((await store.delete(${args})) ? true : undefined),`;
      return `function f() {\n${arrowLayout(versionOf, 2)}\n${arrowLayout(reads, 2)}\n  g(\n    ${named('x', 100)},\n${arrowLayout(conditional, 4)}\n  );\n}\n`;
    }, 2);
  });

  it('a conditional assigned, its test a comparison: one line, on the next, else broken at ? and :', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const line = `    const ${named('page', a % 30)} = linked === null ? { items: [], nextCursor: null } : await stores.${named('s', b)}.list(request.query${', owner'.repeat(n % 3)}, linked);`;
      return `async function f() {\n  {\n${conditionalLayout(line, 4)}\n  }\n}\n`;
    }, 2);
  });

  it('a statement ending with an array: one line, else one element a line', async () => {
    await holds(([a = 1, n = 1]) => {
      const items = Array.from({ length: n }, (_, i) => `stores.${named(`r${i}`, a % 30)}.eventSource`);
      return `${arrayLayout(`export const eventSources = (stores: Stores): EventSource[] => [${items.join(', ')}];`, 0)}\n`;
    }, 1);
  });

  it('a statement ending with an object: one line, else one property a line', async () => {
    await holds(([a = 1, b = 1, n = 1]) => {
      const object = `{ ${Array.from({ length: n }, (_, i) => `${named(`k${i}`, b % 16)}: input.${named('v', a % 20)} ?? null`).join(', ')} }`;
      return `function f() {\n${objectLayout(`  return ${object};`, 2)}\n}\n`;
    }, 2);
  });

  it('an import: one line, or one name a line (never one name alone)', async () => {
    await holds(([a = 1, n = 1]) => {
      const names = Array.from({ length: n }, (_, i) => named(`n${i}`, a % 40));
      return `${importLayout('import ', names, ` from '../../db/codec.js';`)}\n\nexport { ${names.join(', ')} };\n`
        .replace(/export \{[^}]*\};\n$/, '')
        .replace(/\n\n$/, '\n');
    }, 1);
  });
});
