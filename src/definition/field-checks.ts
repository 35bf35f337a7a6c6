/** Semantic checks of fields: names, contradictory options, defaults, references, renames. */
import { LISTING_PARAMETERS, RESERVED_WORDS, SYSTEM_FIELDS, names as namesOf } from '../naming.js';
import { CheckContext, reportCollisions } from './check-context.js';
import { didYouMean } from './did-you-mean.js';
import { FIELD_NAME, type FieldObject } from './field-schema.js';
import type { PathSeg } from './positions.js';
import { oneOf } from './raw.js';
import { valueProblem } from './values.js';

/** A set of fields: the fields of a resource, or the input fields of an action. */
export interface FieldScope {
  kind: 'resource' | 'input';
  /** path of the `fields` map */
  path: PathSeg[];
  /** every declared name, valid or not */
  declared: readonly string[];
  /** the valid fields */
  fields: ReadonlyMap<string, FieldObject>;
  /** the resource's owner field, which the server fills on create */
  owner?: string;
  /** the fields a misspelt owner was probably meant to name (the owner check reports it, suggesting them) */
  meantOwners?: readonly string[];
}

/** Options that describe storage, meaningless for the body of an action. */
const STORAGE_OPTIONS = ['unique', 'index', 'renamedFrom', 'readOnly', 'writeOnly', 'onDelete', 'computed'] as const;

/** Options that say how a value is stored or sent: a computed field is neither (it is always returned, maybe null). */
const NOT_COMPUTED = ['required', 'default', 'unique', 'index', 'readOnly', 'writeOnly', 'renamedFrom'] as const;

export function checkFields(ctx: CheckContext, scope: FieldScope): void {
  checkFieldNames(ctx, scope);
  for (const [name, field] of scope.fields) checkField(ctx, scope, name, field);
  if (scope.kind === 'resource') checkRenames(ctx, scope);
}

function checkFieldNames(ctx: CheckContext, scope: FieldScope): void {
  const valid = scope.declared.filter((name) => FIELD_NAME.test(name));
  const at = (name: string): PathSeg[] => [...scope.path, name];
  for (const name of valid) {
    if (RESERVED_WORDS.has(name)) ctx.report(at(name), `"${name}" is a reserved word`, 'key');
  }
  if (scope.kind === 'resource') {
    const system: readonly string[] = SYSTEM_FIELDS;
    for (const name of valid) {
      if (system.includes(name)) {
        ctx.report(at(name), `"${name}" is a system field: every record has it, do not declare it`, 'key');
      }
      if ((LISTING_PARAMETERS as readonly string[]).includes(name)) {
        ctx.report(
          at(name),
          `"${name}" is a parameter of every listing (?${name}=…): a field cannot be filtered by that name`,
          'key',
        );
      }
    }
    const clashes = (name: string, earlier: string): string =>
      system.includes(earlier)
        ? `"${name}" collides with the system field "${earlier}"`
        : collisionMessage('field', name, earlier);
    const nonSystem = valid.filter((name) => !system.includes(name));
    reportCollisions(ctx, [...system, ...nonSystem], at, clashes);
  } else {
    reportCollisions(ctx, valid, at, (name, earlier) => collisionMessage('field', name, earlier));
  }
}

export function collisionMessage(what: string, name: string, earlier: string): string {
  const [a, b] = [namesOf(name).snake, namesOf(earlier).snake];
  const why =
    a === b
      ? `both become ${a}`
      : name.toLowerCase() === earlier.toLowerCase()
        ? 'they differ only in case'
        : `they differ only in case or "-"`;
  return `${what} "${name}" collides with ${what} "${earlier}" (${why})`;
}

function checkField(ctx: CheckContext, scope: FieldScope, name: string, field: FieldObject): void {
  const at = (...rest: PathSeg[]): PathSeg[] => [...scope.path, name, ...rest];
  if (field.required === true && field.readOnly === true) {
    ctx.report(at('readOnly'), 'a field cannot be both required and readOnly: clients cannot send it', 'key');
  }
  if (field.readOnly === true && field.writeOnly === true) {
    ctx.report(at('writeOnly'), 'a field cannot be both readOnly and writeOnly', 'key');
  }
  if (scope.kind === 'resource' && field.unique === true && field.writeOnly === true) {
    const why = 'it cannot be unique, since the 409 a taken value answers would tell whether another record holds it';
    ctx.report(at('unique'), `"${name}" is writeOnly: ${why}`, 'key');
  }
  if ('min' in field && field.min !== undefined && field.max !== undefined && field.min > field.max) {
    ctx.report(at('max'), `max (${field.max}) is less than min (${field.min})`);
  }
  if ('minLength' in field && field.minLength !== undefined && field.maxLength !== undefined) {
    if (field.minLength > field.maxLength) {
      ctx.report(at('maxLength'), `maxLength (${field.maxLength}) is less than minLength (${field.minLength})`);
    }
  }
  if (field.computed === true && scope.kind === 'resource') {
    if (field.type === 'ref') {
      ctx.report(at('computed'), 'a ref cannot be computed: its value must be a stored id the database checks', 'key');
    }
    for (const option of NOT_COMPUTED.filter((o) => field[o] !== undefined && field[o] !== false)) {
      ctx.report(at(option), `option ${option} does not apply to a computed field: it is never stored or sent`, 'key');
    }
    return;
  }
  checkDefault(ctx, scope, name, field);
  if (field.index === 'trigram' && field.type !== 'string' && field.type !== 'text') {
    ctx.report(
      at('index'),
      `index: trigram serves contains, which only string and text fields have (this is ${field.type})`,
    );
  }
  if (field.index === 'trigram' && field.writeOnly === true) {
    ctx.report(at('index'), 'a writeOnly field cannot be filtered: index: trigram would serve nothing');
  }
  if (field.type === 'ref') checkRef(ctx, at, field);
  if (scope.kind === 'input') {
    for (const option of STORAGE_OPTIONS) {
      if (option in field) ctx.report(at(option), `option ${option} does not apply to action input fields`, 'key');
    }
  }
}

function checkDefault(ctx: CheckContext, scope: FieldScope, name: string, field: FieldObject): void {
  const at = (...rest: PathSeg[]): PathSeg[] => [...scope.path, name, ...rest];
  if (field.default !== undefined) {
    const targetId = field.type === 'ref' ? ctx.idKindOf(field.to) : undefined;
    const problem = valueProblem(field, field.default, targetId);
    if (problem !== undefined) ctx.report(at('default'), problem);
    return;
  }
  // the field a misspelt owner was meant to name: the owner's problem is the one to report
  const fillsItself = scope.kind === 'resource' && (name === scope.owner || (scope.meantOwners ?? []).includes(name));
  if (field.readOnly === true && field.nullable !== true && !fillsItself && scope.kind === 'resource') {
    ctx.report(
      at('readOnly'),
      'a readOnly field needs a default or nullable: true, since nothing can set it when a record is created',
      'key',
    );
  }
}

function checkRef(
  ctx: CheckContext,
  at: (...rest: PathSeg[]) => PathSeg[],
  field: Extract<FieldObject, { type: 'ref' }>,
): void {
  const resources = ctx.definition.declaredResources;
  if (!resources.includes(field.to)) {
    const hint = didYouMean(field.to, resources) || ` (expected ${oneOf(resources)})`;
    ctx.report(at('to'), `unknown resource "${field.to}"${hint}`);
  }
  if (field.onDelete === 'setNull' && field.nullable !== true) {
    ctx.report(at('onDelete'), 'onDelete setNull needs nullable: true');
  }
}

function checkRenames(ctx: CheckContext, scope: FieldScope): void {
  const renamedBy = new Map<string, string>();
  for (const [name, field] of scope.fields) {
    const from = field.renamedFrom;
    if (from === undefined) continue;
    const at: PathSeg[] = [...scope.path, name, 'renamedFrom'];
    const problem =
      from === name
        ? `"${from}" is the field's own name`
        : scope.declared.includes(from)
          ? `"${from}" is the name of another current field`
          : (SYSTEM_FIELDS as readonly string[]).includes(from)
            ? `"${from}" is a system field`
            : undefined;
    if (problem !== undefined) {
      ctx.report(at, problem);
      continue;
    }
    const earlier = renamedBy.get(from);
    if (earlier !== undefined) ctx.report(at, `"${earlier}" is already renamed from "${from}"`);
    else renamedBy.set(from, name);
  }
}
