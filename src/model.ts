/**
 * The typed model of an API: what `normalise` produces from a validated definition and what every later
 * step of the pipeline (plan, render) reads. Nothing here refers to YAML, positions or shorthands.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export const FIELD_TYPES = [
  'string',
  'text',
  'integer',
  'number',
  'boolean',
  'date',
  'datetime',
  'uuid',
  'enum',
  'json',
  'ref',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const OPERATIONS = ['list', 'read', 'create', 'update', 'delete'] as const;
export type Operation = (typeof OPERATIONS)[number];

export type IdKind = 'uuid' | 'integer';
export type OnDelete = 'restrict' | 'cascade' | 'setNull';

/** One alternative of an access rule; a rule grants when any of its terms does. */
export type AccessTerm =
  { kind: 'public' } | { kind: 'authenticated' } | { kind: 'owner' } | { kind: 'role'; role: string };
export type AccessRule = AccessTerm[];

export interface Names {
  /** camelCase identifier, e.g. `authorId`, `blogPosts` */
  camel: string;
  /** PascalCase identifier, e.g. `AuthorId`, `BlogPosts` */
  pascal: string;
  /** snake_case, used for SQL tables and columns, e.g. `author_id` */
  snake: string;
  /** kebab-case, used for paths and file names, e.g. `blog-posts` */
  kebab: string;
}

export interface Field {
  /** the name as written in the definition and used in JSON bodies, e.g. `authorId` */
  name: string;
  names: Names;
  /** SQL column name (snake_case) */
  column: string;
  type: FieldType;
  required: boolean;
  nullable: boolean;
  /** literal default; absent when the definition gives none */
  default?: JsonValue;
  unique: boolean;
  /** a plain (btree) index: `index: true` */
  index: boolean;
  /** `index: trigram`: a trigram index serves `contains` (FTS5 on SQLite, pg_trgm on PostgreSQL) */
  trigram?: true;
  readOnly: boolean;
  writeOnly: boolean;
  description?: string;
  /** still accepted and returned; marked deprecated in the OpenAPI document and the types */
  deprecated?: true;
  renamedFrom?: string;
  // type-specific options
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: 'email' | 'url';
  min?: number;
  max?: number;
  /** `enum` only */
  values?: string[];
  /**
   * `ref` only: the resource referred to; `as` names the to-one relation the field makes (`authorId` → `author`),
   * `inverse` the to-many relation it makes on the target (`books` on authors)
   */
  ref?: { to: string; onDelete: OnDelete; as: string; inverse: string };
}

/** A value an action's `set` writes: a literal, or the server's clock. */
export type SetValue = { kind: 'literal'; value: JsonValue } | { kind: 'now' };

/** A condition on the stored record: each field holds one of its values. */
export type When = { field: string; values: JsonValue[] }[];

export interface Action {
  name: string;
  names: Names;
  on: 'item' | 'collection';
  /** post: a POST with a JSON body; get: a read-only GET whose input is query parameters (a handler answers) */
  method: 'post' | 'get';
  access: AccessRule;
  /** precondition on the stored record: field name → the values it may hold */
  when: When;
  /** assignments applied atomically with the `when` check; empty for a handler action */
  set: { field: string; value: SetValue }[];
  /** fields of the request body; empty when the action takes no input */
  input: Field[];
  description?: string;
  deprecated?: Deprecation;
}

/** A deprecated resource or action: dates as YYYY-MM-DD (UTC), a page that explains it. */
export interface Deprecation {
  since: string;
  sunset?: string;
  link?: string;
}

/**
 * A relation of a resource (§5): `one` is made by one of its own ref fields (`author` by books.authorId), `many` by a
 * ref field of another resource that refers to it (`books` on authors, by books.authorId).
 */
export interface Relation {
  kind: 'one' | 'many';
  /** camelCase, as in JSON and `include`; kebab-case in paths */
  name: string;
  names: Names;
  /** the resource related to: the referred-to one (`one`), or the one holding the ref field (`many`) */
  target: string;
  /** the ref field making the relation: on this resource (`one`) or on the target (`many`) */
  field: string;
  /** that field's column */
  column: string;
  /**
   * a many-to-many relation goes through a join resource, whose records are the links: `near` refers to this
   * resource, `far` to the target; `field` and `column` are then `near`'s
   */
  through?: { resource: string; table: string; near: Side; far: Side };
}

/** A ref field of a join resource: one side of a many-to-many relation. */
export interface Side {
  field: string;
  column: string;
}

export interface Resource {
  /** the collection segment, e.g. `blog-posts` */
  name: string;
  names: Names;
  /** singular PascalCase type name, e.g. `BlogPost` */
  typeName: string;
  /** SQL table name (snake_case) */
  table: string;
  id: IdKind;
  /**
   * the fields compared with the token subject for `owner` rules (`id` alone, or fields), any of which admits;
   * empty when the resource has no owner
   */
  owners: string[];
  /** the stored fields, in definition order (computed ones are in `computed`) */
  fields: Field[];
  /** `computed: true` fields: never stored or accepted, valued by the user's function (nullable) */
  computed: Field[];
  access: Record<Operation, AccessRule>;
  /** the resource's previous collection name: its table is renamed, keeping rows and the refs to it */
  renamedFrom?: string;
  /** the states in which a record may be updated or deleted (`update: { access, when }`); empty: any */
  writableWhen: { update: When; delete: When };
  /** the operations switched on, in OPERATIONS order */
  operations: Operation[];
  actions: Action[];
  /**
   * every relation: to-one first (in field order), then to-many (in the order of the resources referring), then
   * many-to-many (this resource's, then the inverses of others')
   */
  relations: Relation[];
  /** unique keys over several fields (field names) */
  unique: string[][];
  description?: string;
  deprecated?: Deprecation;
}

export interface Limits {
  pageSize: { default: number; max: number };
  /** bytes */
  bodySize: number;
  rateLimit: { max: number; windowMs: number };
  /** how many relations deep `include` may go (`books.tags` is 2) */
  includeDepth: number;
  /** `include.maxRecords`: the most records one request's `include` may embed (a request that could embed more is a 400) */
  include: { maxRecords: number };
}

export interface Api {
  name: string;
  version: string;
  title?: string;
  description?: string;
  /** '' when none, else starts with '/' and has no trailing '/' */
  prefix: string;
  auth: { default: AccessRule; adminRole: string; roles: string[] };
  limits: Limits;
  /** CORS for browsers on other origins; undefined: no CORS headers */
  cors?: Cors;
  /** the change feed (`events`); undefined: no events are recorded */
  events?: Events;
  /** where problem types live, no trailing '/': `problems.base`, else `<prefix>/problems` (a relative reference) */
  problemsBase: string;
  resources: Resource[];
}

export interface Events {
  /** how long events are kept: as written (`7d`), and in milliseconds */
  retention: string;
  retentionMs: number;
  webhooks: boolean;
  /** webhook deliveries: attempts in all, and the first retry's delay (each later one about twice as late) */
  retry: { attempts: number; firstDelayMs: number };
}

export interface Cors {
  /** exact origins, or '*' for any */
  origins: '*' | string[];
  credentials: boolean;
  /** how long a preflight answer may be reused */
  maxAgeSeconds: number;
}
