import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, ROOT, WORK } from '../helpers/project.js';

/**
 * generate never reaches outside its target: the manifest is untrusted input (a path it lists must stay inside the
 * project) and no symbolic link inside the project is written through.
 */
const DEFINITION = join(ROOT, 'test/golden/notes.yaml');

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
