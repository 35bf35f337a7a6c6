import type { Api, Resource } from '../model.js';
import { idSchema } from '../contract/json-schemas.js';
import { writableFields } from '../schema/columns.js';
import { linkParameterName, linkRelations, nestedCreates, nestedRelations, targetOf } from '../contract/relations.js';
import { bodyResponses, commonResponses, idRef, json, limitHeaders, openApiSchema, ref, security } from './parts.js';
import { exampleBody, type SchemaNames } from './schemas.js';
import { TAKEN, type Route } from './operations.js';
import { listParameters } from './filters.js';

/**
 * The nested routes under one resource's records, one path per to-many relation: the listing
 * (`GET /authors/{id}/books`) and the create (`POST /authors/{id}/books`), where the target has them.
 */
export function addNested(api: Api, r: Resource, route: Route, names: SchemaNames): void {
  const idParameter = idRef(r);
  const creates = nestedCreates(api, r);
  for (const relation of r.relations) {
    const target = targetOf(api, relation);
    const path = `/${r.name}/{id}/${relation.names.kebab}`;
    const through = relation.through;
    if (nestedRelations(api, r).includes(relation)) {
      route(path, 'get', {
        tags: [r.name],
        security: security(target.access.list),
        operationId: `list${relation.names.pascal}Of${r.typeName}`,
        summary:
          through === undefined
            ? `The ${target.name} whose ${relation.field} is this ${r.typeName}`
            : `The ${target.name} linked to this ${r.typeName} (through ${through.resource})`,
        description:
          (through === undefined
            ? `Exactly \`GET /${target.name}?${relation.field}={id}\`, with every listing parameter`
            : `\`GET /${target.name}\` restricted to the ${target.name} linked to this ${r.typeName} by the ` +
              `${through.resource} records the caller may read, with every listing parameter`) +
          `; 404 when the ${r.typeName} does not exist or the caller may not read it.`,
        parameters: [idParameter, ...listParameters(api, target, names)],
        responses: {
          200: json(names.ref(`page:${target.name}`), 'A page', limitHeaders(api)),
          400: ref('responses', 'BadListing'),
          404: ref('responses', 'NotFound'),
          ...commonResponses(api, target.access.list),
        },
      });
    }
    const link = linkRelations(api, r).find((l) => l.relation === relation);
    if (link !== undefined && through !== undefined) addLink(api, r, target, link, through.resource, route);
    if (creates.includes(relation)) {
      const under = target.relations.find((t) => t.kind === 'one' && t.field === relation.field);
      const schema = `inputUnder:${target.name}.${under?.name ?? ''}`;
      const withRecord = { ETag: ref('headers', 'ETag'), ...limitHeaders(api) };
      const { [relation.field]: _parent, ...example } = exampleBody(api, writableFields(target), target.owners[0]);
      route(path, 'post', {
        tags: [r.name],
        security: security(target.access.create),
        operationId: `create${relation.names.pascal}Of${r.typeName}`,
        summary: `Create a ${target.typeName} whose ${relation.field} is this ${r.typeName}`,
        description:
          `As \`POST /${target.name}\` with \`${relation.field}\` set to \`{id}\` (the body may leave it out; naming ` +
          `another record is a 400), by the create rule of ${target.name}; 404 when the ${r.typeName} does not exist ` +
          'or the caller may not read it.',
        parameters: [idParameter, ref('parameters', 'IdempotencyKey')],
        requestBody: { required: true, content: { 'application/json': { schema: names.ref(schema), example } } },
        responses: {
          201: json(names.ref(`record:${target.name}`), 'Created', {
            Location: ref('headers', 'Location'),
            ...withRecord,
          }),
          400: ref('responses', 'BadRequest'),
          404: ref('responses', 'NotFound'),
          409: TAKEN,
          422: ref('responses', 'UnprocessableContent'),
          ...bodyResponses(),
          ...commonResponses(api, target.access.create),
        },
      });
    }
  }
}

/** `PUT` (link, idempotent) and `DELETE` (unlink) `/books/{id}/tags/{tagId}`, where the join resource has them. */
function addLink(
  api: Api,
  r: Resource,
  target: Resource,
  link: ReturnType<typeof linkRelations>[number],
  joinName: string,
  route: Route,
): void {
  const join = api.resources.find((j) => j.name === joinName);
  if (join === undefined) return;
  const otherId = linkParameterName(r, target);
  const path = `/${r.name}/{id}/${link.relation.names.kebab}/{${otherId}}`;
  const parameters = [
    idRef(r),
    { name: otherId, in: 'path', required: true, schema: openApiSchema(idSchema(target.id)) },
  ];
  const noContent = { description: 'Done (no body)', headers: limitHeaders(api) };
  const notFound = ref('responses', 'NotFound');
  if (link.put) {
    route(path, 'put', {
      tags: [r.name],
      security: security(join.access.create),
      operationId: `link${link.relation.names.pascal}Of${r.typeName}`,
      summary: `Link a ${target.typeName} to this ${r.typeName}`,
      description:
        `Creates the ${joinName} record that links them, unless it exists (idempotent); by the create rule of ` +
        `${joinName}; 404 when either record does not exist or the caller may not read it.`,
      parameters,
      responses: {
        204: noContent,
        404: notFound,
        409: TAKEN,
        ...commonResponses(api, join.access.create),
      },
    });
  }
  if (link.delete) {
    route(path, 'delete', {
      tags: [r.name],
      security: security(join.access.delete),
      operationId: `unlink${link.relation.names.pascal}Of${r.typeName}`,
      summary: `Unlink a ${target.typeName} from this ${r.typeName}`,
      description:
        `Deletes the ${joinName} records that link them, by the delete rule of ${joinName}; 404 when they are not ` +
        'linked, or either record does not exist or the caller may not read it.',
      parameters,
      responses: { 204: noContent, 404: notFound, ...commonResponses(api, join.access.delete) },
    });
  }
}
