import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectReader } from '../../../src/pipeline/paths.js';
import { WORK } from '../../helpers/project.js';

describe('projectReader', () => {
  it('reads a file as its UTF-8 text, ASCII or not, and an absent one as undefined', () => {
    const dir = join(WORK, 'paths-reader');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const texts = {
      'ascii.json': '{ "a": [1, 2] }\n',
      'accents.md': 'Café, naïve — 日本語 🙂\n',
      'latin1-range.txt': 'ÿ\u00e9\u0080',
    };
    for (const [name, text] of Object.entries(texts)) writeFileSync(join(dir, name), text);
    // bytes that are no UTF-8: replaced, as a UTF-8 decoder does
    writeFileSync(join(dir, 'bytes.bin'), Buffer.from([0x61, 0xff, 0x62]));
    const read = projectReader(dir);
    for (const [name, text] of Object.entries(texts)) expect(read(name), name).toBe(text);
    expect(read('bytes.bin')).toBe('a\ufffdb');
    expect(read('absent.ts')).toBeUndefined();
  });
});
