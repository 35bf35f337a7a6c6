import type { Api, Resource } from '../model.js';
import { ownerColumn } from './sql/statements.js';
import { idType, inputType, valueType } from './typescript.js';

/** The field that `owner` rules compare with the token subject, as the routes and the store need it. */
export interface OwnerView {
  key: string;
  /** the TypeScript type of the field's value in a request body (with null where the field is nullable) */
  type: string;
  /** a field a client writes (else the server sets it, or it is the id) */
  writable: boolean;
  readOnly: boolean;
  required: boolean;
  /** an integer id: subjects are converted with subjectAsId */
  integer: boolean;
}

export function ownerView(api: Api, resource: Resource): OwnerView | undefined {
  const column = ownerColumn(resource);
  if (resource.owner === undefined || column === undefined) return undefined;
  const field = resource.fields.find((f) => f.name === resource.owner);
  const type = field === undefined ? idType(resource.id) : valueType(api, field);
  return {
    key: resource.owner,
    type: field === undefined ? type : inputType(api, field),
    writable: field !== undefined && !field.readOnly,
    readOnly: field?.readOnly ?? false,
    required: field?.required ?? false,
    integer: type === 'number',
  };
}
