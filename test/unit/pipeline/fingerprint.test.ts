import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../../src/commands/generate.js';
import { generatorFingerprint, packageFiles } from '../../../src/pipeline/fingerprint.js';
import { hash } from '../../../src/pipeline/manifest.js';
import { VERSION } from '../../../src/version.js';
import { ROOT, WORK } from '../../helpers/project.js';

describe("the generator's fingerprint", () => {
  it('is one sha-256 per run', () => {
    expect(generatorFingerprint()).toMatch(/^[0-9a-f]{64}$/);
    expect(generatorFingerprint()).toBe(generatorFingerprint());
  });

  it('covers the packages restsmith generates with: the formatter, handlebars, the parser, zod (found by a reviewer)', () => {
    const names = packageFiles().map((file) => (JSON.parse(readFileSync(file, 'utf8')) as { name: string }).name);
    expect(names).toEqual(
      expect.arrayContaining(['prettier', '@prettier/plugin-oxc', 'handlebars', 'yaml', 'zod', 're2js', 'randexp']),
    );
  });

  it('makes a project written by another build of the same version regenerate, not a no-op', async () => {
    const definition = join(ROOT, 'examples/blog.yaml');
    const out = join(WORK, 'fingerprint-blog');
    rmSync(out, { recursive: true, force: true });
    await generate(definition, { out });
    // as another commit of restsmith with the same version left it: an older runtime file, its manifest keyed on the
    // version alone (as every restsmith did before the fingerprint)
    const file = 'src/http/etag.ts';
    const current = readFileSync(join(out, file), 'utf8');
    const older = `${current}\n// an older runtime\n`;
    writeFileSync(join(out, file), older);
    const manifestPath = join(out, '.restsmith/manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
      input: string;
      files: Record<string, string>;
      rendered: Record<string, string>;
    };
    manifest.files[file] = hash(older);
    manifest.rendered[file] = hash(`${VERSION}\n${older}`);
    manifest.input = hash(`${VERSION}\nblog.yaml\n${readFileSync(definition, 'utf8')}`);
    writeFileSync(manifestPath, JSON.stringify(manifest));

    const result = await generate(definition, { out });
    expect(result.changes.find((c) => c.path === file)?.kind).toBe('update');
    expect(readFileSync(join(out, file), 'utf8')).toBe(current);
  });
});
