import { describe, expect, it } from 'vitest';
import { mergePackageJson } from '../../../src/pipeline/package-merge.js';

/** package.json is merged: restsmith owns the entries it writes, every other entry is the user's. */
const before = { name: 'app', type: 'module', scripts: { build: 'tsc' }, dependencies: { fastify: '^5.0.0' } };
const now = {
  name: 'app',
  type: 'module',
  scripts: { build: 'tsc -b' },
  dependencies: { fastify: '^5.1.0', pg: '^8' },
};
const text = (value: object): string => `${JSON.stringify(value, null, 2)}\n`;

describe('mergePackageJson', () => {
  it.each<[string, object, object, string[]]>([
    [
      "keeps the user's dependencies, scripts and fields, and updates restsmith's own entries",
      {
        ...before,
        license: 'MIT',
        scripts: { build: 'tsc', lint: 'eslint .' },
        dependencies: { ...before.dependencies, '@fastify/helmet': '^13' },
      },
      {
        name: 'app',
        type: 'module',
        scripts: { build: 'tsc -b', lint: 'eslint .' },
        dependencies: { fastify: '^5.1.0', '@fastify/helmet': '^13', pg: '^8' },
        license: 'MIT',
      },
      [],
    ],
    [
      'names an entry of restsmith changed by hand, and keeps the file as it is there',
      { ...before, dependencies: { fastify: '^5.0.1' } },
      { ...now, dependencies: { fastify: '^5.0.1', pg: '^8' } },
      ['dependencies.fastify changed'],
    ],
    [
      'names an entry of restsmith removed by hand',
      { name: 'app', type: 'module', scripts: { build: 'tsc' }, dependencies: {} },
      { ...now, dependencies: { pg: '^8' } },
      ['dependencies.fastify removed'],
    ],
    [
      "takes no conflict from a hand edit that is restsmith's new value",
      { ...before, scripts: { build: 'tsc -b' } },
      now,
      [],
    ],
  ])('%s', (_, current, want, conflicts) => {
    const merged = mergePackageJson(now, text(current), before, false);
    expect(merged.conflicts).toEqual(conflicts);
    expect(merged.merged).toEqual(want);
  });

  it("drops an entry restsmith no longer writes, unless the user changed it; keeps the file's key order", () => {
    const previous = { ...before, dependencies: { fastify: '^5.0.0', kysely: '~0.28', uuid: '^11' } };
    const current = { license: 'MIT', ...before, dependencies: { fastify: '^5.0.0', kysely: '~0.28', uuid: '^12' } };
    const { merged, conflicts } = mergePackageJson(before, text(current), previous, false);
    expect(conflicts).toEqual([]);
    expect(merged.dependencies).toEqual({ fastify: '^5.0.0', uuid: '^12' });
    expect(Object.keys(merged)).toEqual(['license', 'name', 'type', 'scripts', 'dependencies']);
  });

  it('with --force, restores every entry of restsmith, named, and keeps the user’s', () => {
    const current = { ...before, scripts: { build: 'mine', lint: 'eslint .' } };
    const { merged, conflicts } = mergePackageJson(now, text(current), before, true);
    expect(conflicts).toEqual(['scripts.build changed']);
    expect(merged.scripts).toEqual({ build: 'tsc -b', lint: 'eslint .' });
  });

  it('without a record of what restsmith wrote, takes an entry that differs as a conflict', () => {
    expect(mergePackageJson(now, text(before), undefined, false).conflicts).toEqual([
      'scripts.build changed',
      'dependencies.fastify changed',
    ]);
  });

  it('refuses a file that is not a JSON object, unless --force (then restsmith writes its own)', () => {
    expect(mergePackageJson(now, '{ "name": ', before, false).conflicts).toEqual(['package.json is not a JSON object']);
    expect(mergePackageJson(now, '[]', before, true)).toEqual({
      merged: now,
      conflicts: ['package.json is not a JSON object'],
      asIs: false,
    });
  });

  it("reads a file that begins with a byte order mark, as npm does: the user's entries kept, no conflict", () => {
    const current = { ...before, dependencies: { ...before.dependencies, '@fastify/helmet': '^13' } };
    const merged = mergePackageJson(now, `\uFEFF${text(current)}`, before, false);
    expect(merged.conflicts).toEqual([]);
    expect(merged.merged.dependencies).toEqual({ fastify: '^5.1.0', '@fastify/helmet': '^13', pg: '^8' });
  });

  it('takes a file that holds the merge, however it is laid out, as it is; not one that differs', () => {
    const current = { ...now, files: ['dist', 'README.md'], scripts: { ...now.scripts, lint: 'eslint .' } };
    // as npm writes it (each item of an array on its own line) and as prettier would (a short array on one)
    for (const layout of [text(current), JSON.stringify(current)]) {
      const merged = mergePackageJson(now, layout, now, false);
      expect(merged).toMatchObject({ merged: current, conflicts: [], asIs: true });
    }
    expect(mergePackageJson(now, text(before), before, false).asIs).toBe(false);
    expect(mergePackageJson(now, undefined, before, false).asIs).toBe(false);
  });
});
