import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectAnotherRun } from '../../../src/memo.js';
import { plan, type PlanContext } from '../../../src/pipeline/plan.js';
import { readDefinition } from '../../../src/pipeline/read-definition.js';
import { render } from '../../../src/pipeline/render.js';

// as under `generate --watch`: what a run makes is kept for the next
beforeAll(expectAnotherRun);

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

/** Views are shared from run to run: planning and rendering may not change one (frozen, a change would throw). */
describe('a view remembered from the last run', () => {
  const deepFreeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  };

  it.each(['examples/blog.yaml', 'examples/library.yaml', 'examples/clinic.yaml'])(
    'is not changed: %s',
    async (file) => {
      const api = await readDefinition(join(ROOT, file));
      for (const planned of plan(api, { ...context, source: file })) {
        if ('context' in planned && 'store' in planned.context) deepFreeze(planned.context);
      }
      const again = plan(api, { ...context, source: file });
      const frozen = again.filter((f) => 'context' in f && Object.isFrozen(f.context));
      expect(frozen.length).toBeGreaterThan(0);
      for (const planned of again) expect(() => render(planned, 'other.yaml')).not.toThrow();
    },
  );
});
