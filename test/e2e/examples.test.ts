import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generateFresh, ROOT, typecheckAndBuild } from '../helpers/project.js';

const run = promisify(execFile);
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

const examples = readdirSync(join(ROOT, 'examples')).filter((f) => /\.(ya?ml|json)$/.test(f));
/** the benchmark's definition is generated and measured too: it must compile as cleanly */
const definitions = [...examples.map((f) => join(ROOT, 'examples', f)), join(ROOT, 'bench/definition.yaml')];

/** Every example generates a project that type-checks under strict TypeScript 7 and passes its own tests. */
describe.each(definitions)('%s', (definition) => {
  it('generates a project that type-checks, builds and passes its generated tests', async () => {
    const dir = await generateFresh(definition, `example-${definition.slice(ROOT.length + 1).replace(/\W/g, '-')}`);
    await typecheckAndBuild(dir);
    const testFiles = readdirSync(join(dir, 'test'))
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => `test/${f}`);
    const { stdout } = await run(process.execPath, [TSX, '--test', ...testFiles], { cwd: dir });
    expect(stdout).toMatch(/# fail 0/);
    const passed = Number(/# pass (\d+)/.exec(stdout)?.[1] ?? 0);
    expect(passed).toBeGreaterThan(2);
  });
});

it('has at least two example domains', () => expect(examples.length).toBeGreaterThanOrEqual(2));
