import type { Api, Resource } from '../model.js';
import { defaultedOwners, ownerFields } from '../schema/columns.js';
import { idType, inputType, valueType } from './typescript.js';

/** The fields that `owner` rules compare with the token subject, as the routes and the store need them. */
export interface OwnerView {
  /** every owner field, in the definition's order (`id` for a resource owned by its id) */
  keys: string[];
  /** the owner fields a create may leave out, the first of which then takes the caller (see auth/owner.ts) */
  defaulted: { key: string; type: string; required: boolean }[];
  /** client-written owner fields: an update may change them only as auth/owner.ts says */
  givable: boolean;
  /** the first owner field is server-set (readOnly): a create sets it to the caller */
  readOnly: boolean;
  /** the owner fields hold integer ids: subjects are converted with subjectAsId */
  integer: boolean;
}

export function ownerView(api: Api, resource: Resource): OwnerView | undefined {
  if (resource.owners.length === 0) return undefined;
  const fields = ownerFields(resource);
  const first = fields[0];
  const type = first === undefined ? idType(resource.id) : valueType(api, first);
  return {
    keys: resource.owners,
    defaulted: defaultedOwners(resource).map((f) => ({ key: f.name, type: inputType(api, f), required: f.required })),
    givable: fields.some((f) => !f.readOnly),
    readOnly: resource.owners[0] !== 'id' && first?.readOnly === true,
    integer: type === 'number',
  };
}
