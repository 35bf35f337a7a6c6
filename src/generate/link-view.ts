import type { Api, Relation, Resource } from '../model.js';
import { joinOf, linkParameterName, targetOf } from '../contract/relations.js';
import { idSchema } from '../contract/json-schemas.js';
import { nounOf } from '../naming.js';
import type { Imports } from './import-lines.js';
import { js } from './literal.js';
import { ownerView } from './owner-view.js';
import { actorArg, guardedOperations } from './routes-view.js';
import { idType } from './typescript.js';

/** `PUT` and `DELETE /books/{id}/tags/{tagId}`: the links of a many-to-many relation, records of the join resource. */
export interface LinkView {
  url: string;
  relation: string;
  target: string;
  paramsType: string;
  otherId: string;
  join: string;
  joinCamel: string;
  /** the function that checks both ends are readable */
  ends: string;
  /** the link as the join store's create takes it */
  input: string;
  createOwner: string;
  /** the actor argument of the join's create (see routes-view.ts), or nothing */
  createActor: string;
  put?: { options: string };
  /** `owner`: the scope of the join's delete rule, `request.scope.owner` where a guard sets it, else null */
  delete?: { options: string; owner: string; actor: string };
  methods: string;
  notLinkedMessage: string;
  /** the 404 of a link to a record of the other side that does not exist or the caller may not read */
  otherMissing: string;
}

/** The routes of one many-to-many relation's links, as the join resource's own rules allow them. */
export function linkView(
  api: Api,
  resource: Resource,
  relation: Relation,
  has: { put: boolean; delete: boolean },
  imports: Imports,
): LinkView {
  const target = targetOf(api, relation);
  const join = joinOf(api, relation);
  const through = relation.through;
  if (join === undefined || through === undefined) throw new Error(`${relation.name} has no join resource`);
  const alias = join.names.camel;
  const folder = `../${join.names.kebab}`;
  const otherId = linkParameterName(resource, target);
  const owner = ownerView(api, join);
  const guarded = guardedOperations(join, owner);
  const owned = (owner?.defaulted.length ?? 0) > 0;
  const access = (op: 'create' | 'delete'): string => {
    if (!guarded[op]) return '';
    imports.add(`${folder}/access.js`, `access as ${alias}Access`);
    return `, preParsing: authorizer.guard(${alias}Access.${op})`;
  };
  imports.add(
    `${folder}/routes.js`,
    ...(owned && has.put ? [`owned as ${alias}Owned`] : []),
    `problems as ${alias}Problems`,
  );
  const input = `{ ${through.near.field}: request.params.id, ${through.far.field}: request.params.${otherId} }`;
  // a path parameter that cannot be an id is a 404 naming the record it was to name (notFoundMessage: the parent's)
  const otherMissing = js(`no ${nounOf(target.typeName)} has this ${otherId}`);
  const notFoundOf = `notFoundOf: { id: notFoundMessage, ${otherId}: ${otherMissing} }`;
  const params = {
    type: 'object',
    properties: { id: idSchema(resource.id), [otherId]: idSchema(target.id) },
    required: ['id', otherId],
  };
  return {
    url: js(`/${resource.name}/:id/${relation.names.kebab}/:${otherId}`),
    relation: js(relation.name),
    target: js(target.name),
    paramsType: `{ id: ${idType(resource.id)}; ${otherId}: ${idType(target.id)} }`,
    otherId,
    join: js(join.name),
    joinCamel: alias,
    ends: `${relation.names.camel}Ends`,
    input: owned ? `${alias}Owned(${input}, request.scope)` : input,
    createOwner: owner?.readOnly === true ? ', request.scope.caller?.subject ?? null' : '',
    createActor: actorArg(api.events !== undefined, guarded.create),
    ...(has.put && {
      put: {
        options: `{ schema: { params: ${js(params)} }, config: { ...${alias}Problems, ${notFoundOf} }${access('create')} }`,
      },
    }),
    ...(has.delete && {
      delete: {
        options: `{ schema: { params: ${js(params)} }, config: { ${notFoundOf} }${access('delete')} }`,
        owner: guarded.delete ? 'request.scope.owner' : 'null',
        actor: actorArg(api.events !== undefined, guarded.delete),
      },
    }),
    methods: js([...(has.put ? ['PUT'] : []), ...(has.delete ? ['DELETE'] : [])]),
    notLinkedMessage: js(`this ${nounOf(resource.typeName)} is not linked to this ${nounOf(target.typeName)}`),
    otherMissing,
  };
}
