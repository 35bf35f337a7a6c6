import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plan, type PlanContext } from '../../../src/pipeline/plan.js';
import { readDefinition } from '../../../src/pipeline/read-definition.js';
import { render } from '../../../src/pipeline/render.js';

const ROOT = join(import.meta.dirname, '../../..');

const context: PlanContext = { source: 'blog.yaml', migrations: [], orphanFiles: [], orphanHandlers: new Map() };

/** A view remembered from the last run is rendered once: its files are the ones rendered then. */
describe('render, run after run', () => {
  it('gives the same file for the same view, and renders again what a new view or source asks for', async () => {
    const api = await readDefinition(join(ROOT, 'examples/blog.yaml'));
    const first = plan(api, context);
    const second = plan(api, context);
    const again = (source: string) =>
      second.map((file, i) => {
        const before = first[i];
        if (before?.path !== file.path) throw new Error(`plans differ at ${file.path}`);
        return render(file, source) === render(before, 'blog.yaml') ? [file.path] : [];
      });
    const same = again('blog.yaml').flat();
    // the files of a resource's view are (its own, its handlers), the project-wide ones are not: made again each run
    const ofResources = second.filter((f) => 'context' in f && 'store' in f.context).map((f) => f.path);
    expect(ofResources).toContain('src/resources/posts/store.ts');
    expect(ofResources).toContain('src/handlers/posts.ts');
    expect(same).toEqual(ofResources);
    // another definition file name is another header: rendered again
    expect(again('api.yaml').flat()).toEqual([]);
    const [file] = second.filter((f) => f.path.startsWith('src/resources/'));
    if (file === undefined) throw new Error('no resource file');
    expect(render(file, 'api.yaml').content).toContain('from api.yaml');
  });
});
