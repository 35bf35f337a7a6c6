import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from '../../src/commands/generate.js';
import type { Manifest } from '../../src/pipeline/manifest.js';
import { WORK } from './project.js';

/**
 * A small definition for the tests of what a regeneration reuses: makers and parts with a ref between them (each in
 * the other's neighbourhood), and audits on their own (in no one's). `extra` adds fields to parts.
 */
export const shopDefinition = (extra = ''): string =>
  [
    'name: shop',
    'version: 1.0.0',
    'auth: { default: public }',
    'resources:',
    '  makers:',
    '    fields: { name: string }',
    '  parts:',
    `    fields: { label: string, makerId: { type: ref, to: makers }${extra} }`,
    '  audits:',
    '    fields: { note: string }',
  ].join('\n');

/** A project of shopDefinition generated afresh in WORK/`name`: its definition's file, its folder, its manifest. */
export async function generatedShop(name: string): Promise<{
  definition: string;
  out: string;
  manifestPath: string;
  manifest: () => Manifest;
}> {
  const dir = join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const definition = join(dir, 'shop.yaml');
  const out = join(dir, 'shop');
  writeFileSync(definition, shopDefinition());
  await generate(definition, { out });
  const manifestPath = join(out, '.restsmith/manifest.json');
  const manifest = () => JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  return { definition, out, manifestPath, manifest };
}
