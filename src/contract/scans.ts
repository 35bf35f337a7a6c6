import type { Api, Field, Resource } from '../model.js';
import { snapshotOf } from '../schema/snapshot.js';
import { listables } from './listing.js';

/**
 * Which listings of a field no index serves: they read the whole table (SPEC §10, docs/definition.md "Listings that
 * scan"). The rules, by the index a field has:
 *
 * - a btree (`index: true`, `unique`, a ref, an owner field, the first field of a `unique` key): `eq`, `in`, `gt`,
 *   `gte`, `lt`, `lte` and the sort;
 * - the unique index of a unique email, on lower(email): `eq` and `in` (they compare lower(email)), not a range or the
 *   sort (they compare the text as written);
 * - `index: trigram`: `contains`;
 * - none serves `ne` (it matches nearly every row: a page walks the sort's order and stops at its limit), and none is
 *   named for `id` (the primary key serves it all) or createdAt and updatedAt (which a definition cannot index).
 */
export interface Scan {
  resource: string;
  field: string;
  /** the operators and `sort`, in the listing's order */
  scans: string[];
  /** what would serve them, in words */
  remedy: string;
}

const BTREE = ['eq', 'in', 'gt', 'gte', 'lt', 'lte', 'sort'];
const FOLDED = ['eq', 'in'];

export function scansOf(api: Api, resource: Resource): Scan[] {
  const table = snapshotOf(api).tables.find((t) => t.name === resource.table);
  const leading = new Set(resource.unique.map((key) => key[0]));
  return listables(api, resource).flatMap((listable): Scan[] => {
    const field = resource.fields.find((f) => f.name === listable.name);
    const column = table?.columns.find((c) => c.name === listable.column);
    if (field === undefined || column === undefined) return [];
    const served = new Set<string>();
    const btree = column.index || (column.unique && column.caseInsensitive !== true) || leading.has(field.name);
    if (btree) BTREE.forEach((op) => served.add(op));
    if (column.unique && column.caseInsensitive === true) FOLDED.forEach((op) => served.add(op));
    if (column.trigram === true) served.add('contains');
    const scans = [...listable.operators.filter((op) => op !== 'ne'), 'sort'].filter((op) => !served.has(op));
    if (scans.length === 0) return [];
    return [
      {
        resource: resource.name,
        field: field.name,
        scans,
        remedy: remedyOf(scans, field, btree),
      },
    ];
  });
}

/**
 * What would serve a field's scans. A field says one `index`: true (a btree) or trigram; `unique` and an owner's or a
 * ref's btree come besides it.
 */
function remedyOf(scans: readonly string[], field: Field, btree: boolean): string {
  const contains = scans.includes('contains');
  const ordered = scans.some((op) => op !== 'contains');
  if (field.trigram === true) return 'index: trigram serves contains only';
  if (field.index) return contains ? 'index: trigram would serve contains, in place of index: true' : '';
  if (btree || field.unique) return contains ? 'index: trigram serves contains' : '';
  if (!contains) return 'index: true serves them';
  return ordered ? 'index: true serves all but contains; index: trigram serves contains' : 'index: trigram serves it';
}

/** How a scan's note begins. */
export const SCAN_NOTE = 'listings read the whole table for ';

/** A scan in words (the note's path names the field): `listings read the whole table for eq, in and sort (…)`. */
export function describeScan(scan: Scan): string {
  const last = scan.scans.length - 1;
  const said = last === 0 ? scan.scans[0] : `${scan.scans.slice(0, last).join(', ')} and ${scan.scans[last]}`;
  return `${SCAN_NOTE}${said}${scan.remedy === '' ? '' : ` (${scan.remedy})`}`;
}

/** What validate says once after the notes of scans: what the server does with such a listing. */
export const SCANS_RUN_APART =
  'note: the server runs a listing that reads the whole table apart from other requests, a few at a time and a few ' +
  'per client, and answers those beyond 429 or 503 with Retry-After; it is slow at a million rows, never in the way ' +
  'of the others (docs/definition.md, "Listings that scan")';

/**
 * The longest value a trigram-indexed field may take before a write of it costs more than a page of a listing: the
 * index gets a row of every trigram of the value in the write's transaction (SQLite: some 1 µs a character, on the
 * thread that serves HTTP; 900 KB took 485 ms).
 */
export const TRIGRAM_MAX_LENGTH = 10_000;

/** The trigram-indexed fields of `resource` with no `maxLength`, or one above TRIGRAM_MAX_LENGTH. */
export const unboundedTrigrams = (resource: Resource): Field[] =>
  resource.fields.filter(
    (field) => field.trigram === true && (field.maxLength === undefined || field.maxLength > TRIGRAM_MAX_LENGTH),
  );

export const describeUnboundedTrigram = (field: Field): string =>
  `index: trigram indexes every character a write sends: set a maxLength of at most ${TRIGRAM_MAX_LENGTH.toLocaleString('en')} (${
    field.maxLength === undefined ? 'none is set' : `it is ${field.maxLength}`
  }), or a write of a long value holds the database for as long as it takes (900 KB: half a second)`;
