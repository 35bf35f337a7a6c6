import type { Api, Field, FieldType, IdKind, JsonValue, OnDelete, Resource } from '../model.js';
import { isNotNull } from './columns.js';

/**
 * The data model as the database sees it: tables and columns, nothing about HTTP or access.
 * The manifest of a generated project keeps the snapshot of its last run; the next run diffs against it.
 */
export interface ColumnSnapshot {
  name: string;
  /** the field's name in the API, for messages */
  field: string;
  type: FieldType;
  notNull: boolean;
  default?: JsonValue;
  unique: boolean;
  /** a unique email: two values that differ only in the case of ASCII letters are the same (a unique lower() index) */
  caseInsensitive?: true;
  /** a plain index: `index: true`, or a ref */
  index: boolean;
  /** `index: trigram`: a trigram index serves `contains` (see ddl.ts, trigramStatements) */
  trigram?: true;
  /** `enum` only */
  values?: readonly string[];
  ref?: { table: string; idKind: IdKind; onDelete: OnDelete };
}

export interface TableSnapshot {
  name: string;
  /** the collection, for messages */
  resource: string;
  id: IdKind;
  columns: readonly ColumnSnapshot[];
  /** unique keys over several columns (column names); absent in the snapshots of older generators */
  keys?: readonly (readonly string[])[];
  /**
   * `id`: plain indexes end with the id, so that a listing filtered on the column walks the index in id order
   * (nested listings, owner scoping, embedded pages); absent in older snapshots, whose indexes are one column
   */
  indexOrder?: 'id';
}

export interface Snapshot {
  tables: readonly TableSnapshot[];
  /**
   * the definition has `events`: its tables exist. They stay when `events` goes (with the events in them), and are
   * created if not there when it comes back.
   */
  events?: true;
  /** `events.webhooks`: the tables of subscriptions and deliveries exist (the same: they stay, or are created) */
  webhooks?: true;
}

export const EMPTY_SNAPSHOT: Snapshot = { tables: [] };

const snapshots = new WeakMap<Api, Snapshot>();

/**
 * The data model of `api`, made once an api (a run asks for it in five steps: checks, migration, fixtures,
 * manifest): shared, and so read-only (its lists are typed so).
 */
export function snapshotOf(api: Api): Snapshot {
  let snapshot = snapshots.get(api);
  if (snapshot === undefined) {
    snapshot = {
      tables: api.resources.map((resource) => tableOf(api, resource)),
      ...(api.events !== undefined && { events: true as const }),
      ...(api.events?.webhooks === true && { webhooks: true as const }),
    };
    snapshots.set(api, snapshot);
  }
  return snapshot;
}

export function tableOf(api: Api, resource: Resource): TableSnapshot {
  return {
    name: resource.table,
    resource: resource.name,
    id: resource.id,
    // owner columns are indexed: every owner-scoped read and listing filters on them (an OR of several owner
    // columns is answered from the index of each)
    columns: resource.fields.map((f) => {
      const column = columnOf(api, f);
      return resource.owners.includes(f.name) && !column.unique ? { ...column, index: true } : column;
    }),
    indexOrder: 'id',
    ...(resource.unique.length > 0 && {
      keys: resource.unique.map((key) =>
        key.map((name) => resource.fields.find((f) => f.name === name)?.column ?? name),
      ),
    }),
  };
}

export function columnOf(api: Api, field: Field): ColumnSnapshot {
  const target = field.ref === undefined ? undefined : api.resources.find((r) => r.name === field.ref?.to);
  return {
    name: field.column,
    field: field.name,
    type: field.type,
    notNull: isNotNull(field),
    ...(field.default !== undefined && { default: field.default }),
    unique: field.unique,
    ...(field.unique && field.format === 'email' && { caseInsensitive: true as const }),
    index: !field.unique && (field.index || field.ref !== undefined),
    ...(field.trigram === true && { trigram: true as const }),
    ...(field.values !== undefined && { values: field.values }),
    ...(field.ref !== undefined &&
      target !== undefined && { ref: { table: target.table, idKind: target.id, onDelete: field.ref.onDelete } }),
  };
}
