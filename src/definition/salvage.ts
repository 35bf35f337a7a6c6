/**
 * The parts of a definition that are valid, even when other parts are not, so that semantic checks can
 * run alongside zod's and every problem is reported at once. A part that does not parse is left out;
 * zod has already reported it.
 */
import type * as z from 'zod';
import { OPERATIONS, type IdKind, type Operation } from '../model.js';
import { expandField, FIELD_SCHEMAS, fieldSchema, isFieldType, optionsOf, type FieldObject } from './field-schema.js';
import { isRecord } from './raw.js';
import { parts, type AccessRuleDef, type ActionDef, type Definition, type ResourceDef } from './schema.js';

/** A map of fields: every declared name, and the fields that are valid. */
export interface SalvagedFields {
  /** every key of the map, valid or not: the names that exist, for references */
  declared: string[];
  /** the valid fields, in file order, in map form */
  valid: Map<string, FieldObject>;
}

/**
 * What a ref field says of its relations, read from the field alone, so that a field broken elsewhere (a bad default,
 * an unknown option) still makes its relations. `as` and `inverse` are undefined when absent or invalid.
 */
export interface SalvagedRef {
  to: string;
  as?: string;
  /** `as` is written, valid or not */
  asWritten: boolean;
  inverse?: string;
  /** `inverse` is written, valid or not */
  inverseWritten: boolean;
}

/** A many-to-many relation whose `through` is valid, with its other valid parts. */
export interface SalvagedThrough {
  through: string;
  via?: [string, string];
  viaWritten: boolean;
  inverse?: string;
  inverseWritten: boolean;
}

/** An action whose `on` is valid, with its other valid parts. */
export type SalvagedAction = Omit<ActionDef, 'input'> & { input?: SalvagedFields };

export interface SalvagedResource {
  name: string;
  id: IdKind;
  /** the owner fields (`owner: x` or `owner: [x, y]`), none when undeclared or malformed */
  owners: string[];
  ownerDeclared: boolean;
  fields: SalvagedFields;
  /** the ref fields with a valid `to`, in file order */
  refs: Map<string, SalvagedRef>;
  access: NonNullable<ResourceDef['access']>;
  /** the operations switched on */
  operations: readonly Operation[];
  actions: Map<string, SalvagedAction>;
  /** every key under `actions`, valid or not */
  declaredActions: string[];
  /** the many-to-many relations with a valid `through`, and every key under `relations` */
  relations: Map<string, SalvagedThrough>;
  declaredRelations: string[];
  /** the unique keys that are valid lists of names */
  unique: string[][];
  /** the resource's previous name, when valid */
  renamedFrom?: string;
}

export interface Salvaged {
  /** undefined when `auth.adminRole` is invalid */
  adminRole?: string;
  /** the declared roles, defaulting to [adminRole]; undefined when they cannot be known */
  roles?: string[];
  rolesDeclared: boolean;
  /** auth.default when given and valid */
  authDefault?: AccessRuleDef;
  /** limits.pageSize when given and valid */
  pageSize?: NonNullable<Definition['limits']>['pageSize'];
  /** whether the definition has `events` (valid or not): the server then routes /events and /webhooks itself */
  events: boolean;
  /** every key under `resources`, valid or not */
  declaredResources: string[];
  /** resources with a valid name and a map value */
  resources: SalvagedResource[];
}

function part<S extends z.ZodType>(schema: S, value: unknown): z.output<S> | undefined {
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
}

export function salvage(data: unknown): Salvaged {
  const root = isRecord(data) ? data : {};
  const auth = isRecord(root.auth) ? root.auth : {};
  const authShape = parts.definition.auth.unwrap().shape;
  const adminRole = auth.adminRole === undefined ? 'admin' : part(authShape.adminRole, auth.adminRole);
  const rolesDeclared = auth.roles !== undefined;
  const declaredRoles = part(authShape.roles, auth.roles);
  const roles = rolesDeclared ? declaredRoles : adminRole === undefined ? undefined : [adminRole];
  const limits = isRecord(root.limits) ? root.limits : {};
  const resources = isRecord(root.resources) ? root.resources : {};
  return {
    adminRole,
    roles,
    rolesDeclared,
    authDefault: part(authShape.default, auth.default),
    pageSize: part(parts.definition.limits.unwrap().shape.pageSize, limits.pageSize),
    events: root.events !== undefined,
    declaredResources: Object.keys(resources),
    // a resource with a bad name is checked all the same: every problem is reported at once
    resources: Object.entries(resources).flatMap(([name, value]) =>
      isRecord(value) ? [salvageResource(name, value)] : [],
    ),
  };
}

/** Each operation's rule on its own: one broken rule does not hide the problems of the others. */
function salvageAccess(raw: unknown): SalvagedResource['access'] {
  if (!isRecord(raw)) return {};
  const entries = OPERATIONS.flatMap((op) => {
    const rule = part(parts.access[op], raw[op]);
    return rule === undefined ? [] : [[op, rule] as const];
  });
  return Object.fromEntries(entries);
}

const ownersOf = (owner: string | string[] | undefined): string[] =>
  owner === undefined ? [] : typeof owner === 'string' ? [owner] : owner;

function salvageResource(name: string, raw: Record<string, unknown>): SalvagedResource {
  const shape = parts.resource;
  return {
    name,
    id: part(shape.id, raw.id) ?? 'uuid',
    owners: ownersOf(part(shape.owner, raw.owner)),
    ...(part(shape.renamedFrom, raw.renamedFrom) !== undefined && { renamedFrom: raw.renamedFrom as string }),
    ownerDeclared: raw.owner !== undefined,
    fields: salvageFields(raw.fields),
    refs: validEntries(raw.fields, salvageRef),
    access: salvageAccess(raw.access),
    operations: part(shape.operations, raw.operations) ?? OPERATIONS,
    actions: validEntries(raw.actions, salvageAction),
    declaredActions: isRecord(raw.actions) ? Object.keys(raw.actions) : [],
    relations: validEntries(raw.relations, salvageThrough),
    declaredRelations: isRecord(raw.relations) ? Object.keys(raw.relations) : [],
    unique: Array.isArray(raw.unique)
      ? raw.unique.flatMap((key: unknown) => {
          const parsed = part(shape.unique.unwrap().element, key);
          return parsed === undefined ? [] : [parsed];
        })
      : [],
  };
}

function salvageThrough(raw: unknown): SalvagedThrough | undefined {
  if (!isRecord(raw)) return undefined;
  const shape = parts.relation;
  const through = part(shape.through, raw.through);
  if (through === undefined) return undefined;
  return {
    through,
    via: part(shape.via.unwrap(), raw.via),
    viaWritten: raw.via !== undefined,
    inverse: part(shape.inverse.unwrap(), raw.inverse),
    inverseWritten: raw.inverse !== undefined,
  };
}

function salvageFields(raw: unknown): SalvagedFields {
  return { declared: isRecord(raw) ? Object.keys(raw) : [], valid: validEntries(raw, salvageField) };
}

/** A field, ignoring unknown options (reported by zod), so that the rest of it can still be checked. */
function salvageField(raw: unknown): FieldObject | undefined {
  const known = isRecord(raw) && isFieldType(raw.type) ? new Set(['type', ...optionsOf(raw.type)]) : undefined;
  const value =
    isRecord(raw) && known ? Object.fromEntries(Object.entries(raw).filter(([key]) => known.has(key))) : raw;
  const field = part(fieldSchema, value);
  return field === undefined ? undefined : expandField(field);
}

function salvageRef(raw: unknown): SalvagedRef | undefined {
  if (!isRecord(raw) || raw.type !== 'ref') return undefined;
  const shape = FIELD_SCHEMAS.ref.shape;
  const to = part(shape.to, raw.to);
  if (to === undefined) return undefined;
  return {
    to,
    as: part(shape.as, raw.as),
    asWritten: raw.as !== undefined,
    inverse: part(shape.inverse, raw.inverse),
    inverseWritten: raw.inverse !== undefined,
  };
}

function salvageAction(raw: unknown): SalvagedAction | undefined {
  const shape = parts.action;
  const action = isRecord(raw) ? raw : {};
  const on = part(shape.on, action.on);
  if (on === undefined) return undefined;
  const input = isRecord(action.input) ? salvageFields(action.input.fields) : undefined;
  return {
    on,
    method: part(shape.method, action.method),
    access: part(shape.access, action.access),
    when: part(shape.when, action.when),
    set: part(shape.set, action.set),
    ...(input === undefined ? {} : { input }),
  };
}

function validEntries<T>(raw: unknown, parse: (value: unknown) => T | undefined): Map<string, T> {
  const valid = new Map<string, T>();
  for (const [name, value] of Object.entries(isRecord(raw) ? raw : {})) {
    // a bad name is reported by the schema; what the entry holds is checked all the same
    const parsed = parse(value);
    if (parsed !== undefined) valid.set(name, parsed);
  }
  return valid;
}
