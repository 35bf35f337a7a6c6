import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, ROOT, WORK } from '../helpers/project.js';

/**
 * generate never reaches outside its target: the manifest is untrusted input (a path it lists must stay inside the
 * project) and no symbolic link inside the project is written through.
 */
const DEFINITION = join(ROOT, 'test/e2e/fixtures/notes.yaml');

function fresh(name: string): { dir: string; outside: string } {
  const base = join(WORK, `safety-${name}`);
  rmSync(base, { recursive: true, force: true });
  const dir = join(base, 'project');
  const outside = join(base, 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'victim.txt'), 'keep me');
  return { dir, outside };
}

const manifestOf = (dir: string): { files: Record<string, string> } =>
  JSON.parse(readFileSync(join(dir, '.restsmith/manifest.json'), 'utf8')) as { files: Record<string, string> };

describe('a manifest that names paths outside the project', () => {
  // an absolute path is one of this test's own files: were the check gone, only the test's file would go
  it.each([['../outside/victim.txt'], ['<outside>/victim.txt'], ['src/../../outside/victim.txt']])(
    'is refused, with and without --force, and nothing is deleted: %s',
    async (given) => {
      const { dir, outside } = fresh('manifest');
      const path = given.replace('<outside>', outside);
      expect((await cli('generate', DEFINITION, '--out', dir)).code).toBe(0);
      const manifest = manifestOf(dir);
      manifest.files[path] = 'a'.repeat(64);
      writeFileSync(join(dir, '.restsmith/manifest.json'), JSON.stringify(manifest));
      for (const extra of [[], ['--force']]) {
        const result = await cli('generate', DEFINITION, '--out', dir, ...extra);
        expect(result.code).toBe(1);
        expect(result.err).toContain(`lists "${path}", which is not a path inside the project`);
        expect(result.err).not.toMatch(/\n\s+at /); // one line, no stack trace
      }
      expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('keep me');
    },
  );
});

describe('an up-to-date check that finds something wrong', () => {
  // a run with --out looks for a no-op before it parses the definition; what it finds wrong is said in the usual order
  it('leaves the definition its problems first, then says what is wrong with the manifest', async () => {
    const { dir } = fresh('order');
    expect((await cli('generate', DEFINITION, '--out', dir)).code).toBe(0);
    writeFileSync(join(dir, '.restsmith/manifest.json'), '{ not json');
    const broken = join(dir, '..', 'broken.yaml');
    writeFileSync(broken, readFileSync(DEFINITION, 'utf8').replace(/^name: .*$/m, 'name: 42'));
    const invalid = await cli('generate', broken, '--out', dir);
    expect(invalid.code).toBe(1);
    expect(invalid.err).toMatch(/broken\.yaml:\d+:\d+ {2}name /);
    const valid = await cli('generate', DEFINITION, '--out', dir);
    expect(valid.code).toBe(1);
    expect(valid.err).toMatch(/manifest\.json is not valid JSON .*: restore it from version control/);
  });
});

describe('a symbolic link inside the project', () => {
  it('is never written through: generate stops and says so, the folder it points to is untouched', async () => {
    const { dir, outside } = fresh('link');
    expect((await cli('generate', DEFINITION, '--out', dir)).code).toBe(0);
    rmSync(join(dir, 'src/resources'), { recursive: true });
    symlinkSync(outside, join(dir, 'src/resources'));
    for (const extra of [[], ['--force']]) {
      const result = await cli('generate', DEFINITION, '--out', dir, ...extra);
      expect(result.code).toBe(1);
      expect(result.err).toMatch(/src\/resources is a symbolic link: restsmith never writes through links/);
    }
    expect(existsSync(join(outside, 'notes'))).toBe(false);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('keep me');
  });

  it('is refused for a file too', async () => {
    const { dir, outside } = fresh('file-link');
    expect((await cli('generate', DEFINITION, '--out', dir)).code).toBe(0);
    rmSync(join(dir, 'src/app.ts'));
    symlinkSync(join(outside, 'victim.txt'), join(dir, 'src/app.ts'));
    const result = await cli('generate', DEFINITION, '--out', dir, '--force');
    expect(result.code).toBe(1);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('keep me');
  });
});

describe("the definition's file name", () => {
  it.each([
    ['notes\nnext.yaml', 'notes\\nnext.yaml'],
    ['a -->b "c".yaml', 'a -\\->b \\"c\\".yaml'],
  ])('is shown escaped in generated files, whatever it holds: %j', async (name, shown) => {
    const base = join(WORK, 'safety-names');
    rmSync(base, { recursive: true, force: true });
    mkdirSync(base, { recursive: true });
    const file = join(base, name);
    writeFileSync(file, readFileSync(DEFINITION, 'utf8'));
    const result = await cli('generate', file, '--out', join(base, 'project'));
    // nothing but the count of notes (listings no index serves)
    expect(result.err.replace(/^.* {2}note: .*$\n?/gm, '')).toBe('');
    expect(result.code).toBe(0);
    const app = readFileSync(join(base, 'project/src/app.ts'), 'utf8');
    expect(app.split('\n')[0]).toBe(
      `// Generated by restsmith from ${shown}. Do not edit: this file is rewritten by \`restsmith generate\`.`,
    );
  });
});
