import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConflictError, generate } from '../../../src/commands/generate.js';
import { hash } from '../../../src/pipeline/manifest.js';
import { plan } from '../../../src/pipeline/plan.js';
import { definitionOf } from '../../../src/pipeline/read-definition.js';
import { renderKey } from '../../../src/pipeline/render.js';
import { generatedShop, shopDefinition } from '../../helpers/definitions.js';

describe('the files of a resource an edit did not change', () => {
  const planned = (text: string) =>
    plan(definitionOf('shop.yaml', text), {
      source: 'shop.yaml',
      migrations: [],
      orphanFiles: [],
      orphanHandlers: new Map(),
    });
  const keyOf = (text: string, path: string): string | undefined => {
    const file = planned(text).find((f) => f.path === path);
    return file === undefined ? undefined : renderKey(file, 'shop.yaml');
  };

  it('have a key of what they are rendered from: the same after an edit of another resource, and only then', () => {
    const edited = shopDefinition(', grade: integer');
    expect(keyOf(edited, 'src/resources/audits/store.ts')).toBe(
      keyOf(shopDefinition(), 'src/resources/audits/store.ts'),
    );
    expect(keyOf(edited, 'src/resources/parts/store.ts')).not.toBe(
      keyOf(shopDefinition(), 'src/resources/parts/store.ts'),
    );
    // makers' view names parts' fields (its nested listing filters on them): its files are rendered again too
    expect(keyOf(edited, 'src/resources/makers/routes.ts')).not.toBe(
      keyOf(shopDefinition(), 'src/resources/makers/routes.ts'),
    );
    // files of the whole project have none: they are rendered on every run
    expect(keyOf(shopDefinition(), 'src/settings.ts')).toBeUndefined();
    expect(keyOf(shopDefinition(), 'README.md')).toBeUndefined();
  });

  it('are taken from disk, not rendered again, unless edited by hand', async () => {
    const { definition: file, out, manifestPath, manifest: manifestNow } = await generatedShop('render-known');
    // as if the last run had written this text (the manifest says so): a run that renders the file writes another
    const audits = 'src/resources/audits/store.ts';
    const marked = `${readFileSync(join(out, audits), 'utf8')}// as the last run wrote it\n`;
    writeFileSync(join(out, audits), marked);
    const manifest = manifestNow();
    expect(manifest.keys?.[audits]).toMatch(/^[0-9a-f]{64}$/);
    manifest.files[audits] = hash(marked);
    writeFileSync(manifestPath, JSON.stringify(manifest));

    writeFileSync(file, shopDefinition(', grade: integer'));
    const result = await generate(file, { out });
    expect(result.changes.find((c) => c.path === audits)?.kind).toBe('unchanged');
    expect(readFileSync(join(out, audits), 'utf8')).toBe(marked);
    expect(readFileSync(join(out, 'src/resources/parts/store.ts'), 'utf8')).toContain('grade');

    // edited by hand (the manifest does not say so): rendered again, and a conflict, as every edited file
    writeFileSync(join(out, audits), `${marked}// by hand\n`);
    writeFileSync(file, shopDefinition(', grade: integer, weight: number'));
    const conflict = await generate(file, { out }).catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(ConflictError);
    expect((conflict as ConflictError).paths).toEqual([`${audits}: edited by hand`]);
    const forced = await generate(file, { out, force: true });
    expect(forced.changes.find((c) => c.path === audits)?.kind).toBe('conflict');
    expect(readFileSync(join(out, audits), 'utf8')).not.toContain('// as the last run wrote it');
  });
});
