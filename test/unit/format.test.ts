import { describe, expect, it } from 'vitest';
import { format, formatAll } from '../../src/pipeline/format.js';
import type { RenderedFile } from '../../src/pipeline/render.js';

describe('formatAll', () => {
  it('formats a large project in worker threads exactly as one file at a time would, in order', async () => {
    const files: RenderedFile[] = Array.from({ length: 120 }, (_, i) => ({
      path: i % 3 === 0 ? `src/f${i}.ts` : i % 3 === 1 ? `data/f${i}.json` : `notes/f${i}.txt`,
      owner: 'generator',
      content:
        i % 3 === 0
          ? `export const value${i} = {a:${i},   b:"x${i}"}`
          : i % 3 === 1
            ? `{"n":${i},"list":[1,2,3]}`
            : `left as it is ${i}  `,
    }));
    const inWorkers = await formatAll(files);
    const oneByOne = await Promise.all(files.map(format));
    expect(inWorkers).toEqual(oneByOne);
    expect(inWorkers[0]?.content).toBe("export const value0 = { a: 0, b: 'x0' };\n");
    expect(inWorkers[2]?.content).toBe('left as it is 2  ');
  });
});
