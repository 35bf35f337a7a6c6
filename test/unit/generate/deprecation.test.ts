import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../src/contract/json-schemas.js';
import { openApiDocument } from '../../../src/openapi/document.js';
import { plan, type PlanContext } from '../../../src/pipeline/plan.js';
import { definitionOf } from '../../../src/pipeline/read-definition.js';
import { render } from '../../../src/pipeline/render.js';

/**
 * A deprecated field is `@deprecated` on every generated type that holds it (issue 56 item 15): the record, and the
 * bodies clients write (`…Input`, `…Patch`) and the store's `…Changes`, so that editors strike it through where it is
 * written too; and the OpenAPI document's schemas of those bodies mark it `deprecated: true`.
 */
const DEFINITION = `
name: scores
version: 1.0.0
auth: { default: public }
resources:
  games:
    fields:
      title: { type: string, required: true }
      legacyScore: { type: integer, deprecated: true }
      oldRank: { type: integer, description: the rank before 2026, deprecated: true }
      seed: { type: integer, readOnly: true, nullable: true, deprecated: true }
`;

const context: PlanContext = { source: 'scores.yaml', migrations: [], orphanFiles: [], orphanHandlers: new Map() };

/** The members of `type` in model.ts, each with the doc comment above it (if any). */
function members(model: string, type: string): Map<string, string | undefined> {
  const start = new RegExp(`^export (?:interface ${type}(?: extends \\w+)? \\{|type ${type} = \\{)$`, 'm').exec(model);
  if (start === null) throw new Error(`no type ${type} in model.ts`);
  const body = model.slice(start.index + start[0].length, model.indexOf('\n}', start.index));
  const result = new Map<string, string | undefined>();
  let doc: string | undefined;
  for (const line of body.split('\n').map((l) => l.trim())) {
    const comment = /^\/\*\* (.*) \*\/$/.exec(line);
    if (comment !== null) doc = comment[1];
    const member = /^(\w+)\??:/.exec(line);
    if (member?.[1] !== undefined) {
      result.set(member[1], doc);
      doc = undefined;
    }
  }
  return result;
}

describe('deprecated fields', () => {
  const api = definitionOf('scores.yaml', DEFINITION);
  const file = plan(api, context).find((f) => f.path === 'src/resources/games/model.ts');
  if (file === undefined) throw new Error('no model.ts');
  const model = render(file, 'scores.yaml').content;

  it.each(['Game', 'GameInput', 'GamePatch'])('are @deprecated in %s, their description kept', (type) => {
    const docs = members(model, type);
    expect(docs.get('legacyScore')).toBe('@deprecated');
    expect(docs.get('oldRank')).toBe('the rank before 2026 @deprecated');
    expect(docs.get('title')).toBeUndefined();
  });

  it('are @deprecated in the record and the store’s Changes where only the server writes them', () => {
    expect(members(model, 'Game').get('seed')).toBe('@deprecated');
    expect(members(model, 'GameChanges').get('seed')).toBe('@deprecated');
    expect(members(model, 'GameInput').has('seed')).toBe(false);
  });

  it('are deprecated in the OpenAPI schemas of the record and of the bodies', () => {
    const schemas = (openApiDocument(api).components as { schemas: Record<string, JsonSchema> }).schemas;
    for (const name of ['Game', 'GameInput', 'GamePatch']) {
      const properties = schemas[name]?.properties as Record<string, JsonSchema>;
      expect([name, properties.legacyScore?.deprecated, properties.oldRank?.deprecated]).toEqual([name, true, true]);
      expect(properties.title?.deprecated).toBeUndefined();
    }
  });
});
