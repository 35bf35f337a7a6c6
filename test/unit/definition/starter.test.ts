import { describe, expect, it } from 'vitest';
import { starterDefinition, starterName } from '../../../src/definition/starter.js';
import { normalise } from '../../../src/pipeline/normalise.js';
import { problemsOf, definitionOf } from './helpers.js';

describe('starterDefinition', () => {
  it('validates', () => {
    expect(problemsOf(starterDefinition('my-api'))).toEqual([]);
  });

  it('is commented and shows types, access and an action', () => {
    const text = starterDefinition('my-api');
    expect(text.split('\n').filter((line) => line.includes('#')).length).toBeGreaterThan(10);
    const api = normalise(definitionOf(text));
    expect(api.name).toBe('my-api');
    expect(api.resources.map((r) => r.name)).toEqual(['projects', 'tasks']);
    expect(new Set(api.resources.flatMap((r) => r.fields.map((f) => f.type))).size).toBeGreaterThanOrEqual(7);
    expect(api.resources.flatMap((r) => r.actions.map((a) => a.name))).toEqual(['complete']);
  });

  it.each([
    ['my-api', 'my-api'],
    ['My API', 'my-api'],
    ['2fast', 'fast'],
    ['shop_v2', 'shop-v2'],
    ['!!!', 'my-api'],
  ])('makes the name %j valid: %j', (given, want) => {
    expect(starterName(given)).toBe(want);
    expect(normalise(definitionOf(starterDefinition(given))).name).toBe(want);
  });
});
