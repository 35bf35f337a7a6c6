import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConflictError, generate } from '../../../src/commands/generate.js';
import { chunkRecords, chunksDigest, CHUNKED, cutChunks } from '../../../src/pipeline/chunk-records.js';
import { hash, isAsRecorded, type Manifest } from '../../../src/pipeline/manifest.js';
import { formattedHash } from '../../../src/pipeline/markdown-chunks.js';
import { generatedShop, shopDefinition } from '../../helpers/definitions.js';
import { WORK } from '../../helpers/project.js';

/** The records of chunks of these texts, as a run records them (each one's key: its first word). */
const recordsOf = (texts: readonly string[]): string[] =>
  chunkRecords(
    texts.map((text) => {
      const key = text.split(' ')[0] ?? '';
      return { key, length: text.length, hash: formattedHash(key, text) };
    }),
  );

describe('a file recorded in chunks (chunk-records.ts)', () => {
  const texts = ['# Title\n', 'alpha beta\n', 'gamma delta\n'];
  const records = recordsOf(texts);
  const file = texts.join('\n');

  it.each([
    ['the file as written', file, true],
    ['a chunk edited', file.replace('beta', 'bets'), false],
    ['a separator edited (the blank line between two chunks)', file.replace('\n\ngamma', '\n.gamma'), false],
    ['a line added at the end', `${file}more\n`, false],
    ['a character taken from the end', file.slice(0, -1), false],
    ['an empty file', '', false],
  ])('cuts into its chunks only when it is the file written: %s', (_, content, cut) => {
    expect(cutChunks(content, records, '\n') !== undefined).toBe(cut);
  });

  it('gives each chunk its text and recorded hash, by key, and every record in order', () => {
    const cut = cutChunks(file, records, '\n');
    expect([...(cut?.byKey.entries() ?? [])].map(([key, chunk]) => [key, chunk.text])).toEqual([
      ['#', '# Title\n'],
      ['alpha', 'alpha beta\n'],
      ['gamma', 'gamma delta\n'],
    ]);
    expect(cut?.byKey.get('alpha')?.hash).toBe(formattedHash('alpha', 'alpha beta\n'));
    expect(cut?.records.map((r) => r.key)).toEqual(['#', 'alpha', 'gamma']);
    // chunks of the same text have the same key: one by key, each in the records (a run keeps them all)
    const twice = ['alpha beta\n', 'alpha beta\n'];
    const cutTwice = cutChunks(twice.join('\n'), recordsOf(twice), '\n');
    expect(cutTwice?.byKey.size).toBe(1);
    expect(chunkRecords(cutTwice?.records ?? [])).toEqual(recordsOf(twice));
  });

  it.each([
    ['no list', 'a:1:0'],
    ['a length that is no number', ['#:x:0']],
    ['a record without a hash', ['#:8']],
  ])('refuses a record that is not a list of chunks: %s', (_, recorded) => {
    expect(cutChunks(file, recorded, '\n')).toBeUndefined();
  });

  it('is recorded by the hash of its records, and is as recorded only as written (a manifest from before: whole)', () => {
    const manifest = { files: { 'README.md': chunksDigest(records) }, chunks: { 'README.md': records } } as unknown;
    const m = manifest as Manifest;
    expect(m.files['README.md']?.startsWith(CHUNKED)).toBe(true);
    expect(isAsRecorded(m, 'README.md', file)).toBe(true);
    expect(isAsRecorded(m, 'README.md', file.replace('\n\ngamma', '\n gamma'))).toBe(false);
    // records edited by hand to match an edited file: they are not the records whose hash the file has
    const edited = file.replace('beta', 'bets');
    const forged = { ...m, chunks: { 'README.md': recordsOf(['# Title\n', 'alpha bets\n', 'gamma delta\n']) } };
    expect(cutChunks(edited, forged.chunks['README.md'], '\n')).toBeDefined();
    expect(isAsRecorded(forged, 'README.md', edited)).toBe(false);
    // a manifest written before records the text's hash: that is what is checked
    const before = { ...m, files: { 'README.md': hash(file) } };
    expect(isAsRecorded(before, 'README.md', file)).toBe(true);
    expect(isAsRecorded(before, 'README.md', edited)).toBe(false);
  });
});

describe('a regeneration of a project whose README and OpenAPI document are recorded in chunks', () => {
  const setUp = generatedShop;

  it('records them by their chunks, and writes the same project as one from scratch after an edit', async () => {
    const { definition, out, manifest } = await setUp('chunk-records-edit');
    for (const path of ['README.md', 'src/openapi.json']) {
      expect(manifest().files[path]).toBe(chunksDigest(manifest().chunks?.[path] ?? []));
    }
    writeFileSync(definition, shopDefinition(', grade: integer'));
    const result = await generate(definition, { out });
    expect(result.changes.find((c) => c.path === 'src/openapi.json')?.kind).toBe('update');
    const fresh = join(WORK, 'chunk-records-edit', 'fresh');
    await generate(definition, { out: fresh });
    for (const path of ['README.md', 'src/openapi.json']) {
      expect(readFileSync(join(out, path), 'utf8')).toBe(readFileSync(join(fresh, path), 'utf8'));
    }
    // and the next run, with nothing changed, is a no-op that finds them as written
    const again = await generate(definition, { out });
    expect(again.written).toBe(false);
  });

  it('finds a hand edit of a separator between two chunks, which no chunk holds', async () => {
    const { definition, out } = await setUp('chunk-records-separator');
    const readme = join(out, 'README.md');
    const text = readFileSync(readme, 'utf8');
    // the blank line before the second heading is the separator of two chunks
    const at = text.indexOf('\n\n## ');
    expect(at).toBeGreaterThan(0);
    writeFileSync(readme, `${text.slice(0, at)}\n \n${text.slice(at + 2)}`);
    writeFileSync(definition, shopDefinition(', grade: integer'));
    const run = generate(definition, { out });
    await expect(run).rejects.toBeInstanceOf(ConflictError);
    await expect(run).rejects.toThrow(/README\.md/);
  });

  it('keeps the records of a document taken whole from disk, so that the next edit still cuts it', async () => {
    const { definition, out, manifest } = await setUp('chunk-records-kept');
    // a run with nothing to render again, but not a no-op (a generated file deleted): the document is taken whole
    rmSync(join(out, 'src/settings.ts'));
    await generate(definition, { out });
    const records = manifest().chunks?.['src/openapi.json'];
    expect(records?.length).toBeGreaterThan(1);
    expect(manifest().files['src/openapi.json']).toBe(chunksDigest(records ?? []));
  });

  it('reads a manifest edited by hand without failing: a record that is no hash, chunk records dropped', async () => {
    const { definition, out, manifestPath, manifest } = await setUp('chunk-records-hand');
    const edited = manifest();
    (edited.files as Record<string, unknown>)['README.md'] = null;
    delete edited.chunks;
    writeFileSync(manifestPath, JSON.stringify(edited));
    // no crash; each file is compared whole, and found as this run makes it
    const check = await generate(definition, { out, check: true });
    expect(check.changes.filter((c) => ['README.md', 'src/openapi.json'].includes(c.path)).map((c) => c.kind)).toEqual([
      'unchanged',
      'unchanged',
    ]);
    // after an edit, the README, whose record is no hash, is a conflict: nothing says the file on disk is restsmith's
    writeFileSync(definition, shopDefinition(', grade: integer'));
    const edit = await generate(definition, { out, check: true });
    expect(edit.changes.find((c) => c.path === 'README.md')?.kind).toBe('conflict');
    await generate(definition, { out, force: true });
    expect(manifest().files['README.md']?.startsWith(CHUNKED)).toBe(true);
  });

  it('regenerates a project whose manifest, written before, records their whole text', async () => {
    const { definition, out, manifestPath, manifest } = await setUp('chunk-records-before');
    const before = manifest();
    for (const path of ['README.md', 'src/openapi.json'])
      before.files[path] = hash(readFileSync(join(out, path), 'utf8'));
    writeFileSync(manifestPath, JSON.stringify(before));
    writeFileSync(definition, shopDefinition(', grade: integer'));
    const result = await generate(definition, { out });
    expect(result.changes.filter((c) => c.kind === 'conflict')).toEqual([]);
    expect(manifest().files['README.md']?.startsWith(CHUNKED)).toBe(true);
  });
});
