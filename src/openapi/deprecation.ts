import type { JsonSchema } from '../contract/json-schemas.js';
import { nestedDeprecation } from '../contract/relations.js';
import type { Api, Field } from '../model.js';

/**
 * An operation of a deprecated resource (its collection and items) or action, or a nested route that announces a
 * deprecation (nestedDeprecation: under a deprecated resource, of one, or through one): `deprecated: true`, and its
 * description says since when, until when and where to read more — what the Deprecation, Sunset and Link headers of
 * its responses say (see the runtime's http/deprecation.ts).
 */
export function announced(api: Api, path: string, operation: JsonSchema): JsonSchema {
  const deprecation = api.resources.flatMap((r) => {
    const own = r.actions.find((a) => path === `/${r.name}/{id}/${a.name}` || path === `/${r.name}/${a.name}`);
    if (own !== undefined) return own.deprecated ?? r.deprecated ?? [];
    if (path === `/${r.name}` || path === `/${r.name}/{id}`) return r.deprecated ?? [];
    // a nested listing or create, a link or unlink: as its route announces it (see nestedDeprecation)
    if (!path.startsWith(`/${r.name}/{id}/`)) return [];
    const nested = r.relations.find((relation) => {
      const under = `/${r.name}/{id}/${relation.names.kebab}`;
      return path === under || path.startsWith(`${under}/{`);
    });
    return (nested && nestedDeprecation(api, r, nested)?.deprecated) ?? [];
  })[0];
  if (deprecation === undefined) return operation;
  const said = [
    `Deprecated since ${deprecation.since}`,
    deprecation.sunset === undefined ? '' : `; it stops answering on ${deprecation.sunset}`,
    deprecation.link === undefined ? '' : `; see ${deprecation.link}`,
    '.',
  ].join('');
  const description = typeof operation.description === 'string' ? `${operation.description}\n\n${said}` : said;
  return { ...operation, deprecated: true, description };
}

/** A schema whose properties of deprecated fields say `deprecated: true`. */
export function withDeprecatedFields(schema: JsonSchema, fields: readonly Field[]): JsonSchema {
  const deprecated = new Set(fields.filter((f) => f.deprecated === true).map((f) => f.name));
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (deprecated.size === 0 || properties === undefined) return schema;
  const marked = Object.entries(properties).map(([name, property]) => [
    name,
    deprecated.has(name) ? { ...property, deprecated: true } : property,
  ]);
  return { ...schema, properties: Object.fromEntries(marked) };
}
