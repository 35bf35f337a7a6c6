import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import prettier from 'prettier';
import * as oxc from '@prettier/plugin-oxc';
import { PRETTIER_OPTIONS } from '../../../src/generate/project-files.js';
import {
  callLayout,
  importLayout,
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
