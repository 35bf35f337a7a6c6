import { badRequest } from '../http/problem.js';

/**
 * The body of a nested create (`POST /authors/{id}/books`) with its ref field set to the record of the path. The body
 * may leave the field out or repeat the same id; naming another record is a 400, never a silent overwrite.
 */
export function underParent<Body extends object, Field extends string, Id extends string | number>(
  body: Body,
  field: Field,
  parent: Id,
): Body & Record<Field, Id> {
  const given: unknown = (body as Record<string, unknown>)[field];
  if (given !== undefined && given !== parent) {
    throw badRequest(`${field} is the id in the path: leave it out of the body, or give the same value`, [
      { path: `/${field}`, message: `must be ${JSON.stringify(parent)}, the id in the path` },
    ]);
  }
  return { ...body, [field]: parent } as Body & Record<Field, Id>;
}
