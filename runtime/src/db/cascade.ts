import type { Change, EventLog } from '../events/log.js';
import type { Bound, Database, Program, Row, SqlValue, Statement } from './database.js';
import { inJsonArray, type ValueKind } from './list-sql.js';

/**
 * What the delete of a record does to the records that refer to it, told to the change feed (SPEC §6: every delete
 * and every change writes its event). The database does the deleting and the clearing, by its foreign keys
 * (`onDelete: cascade`, `setNull`); this records, in the same transaction, `<c>.deleted` for each record deleted with
 * it (as it was) and `<c>.updated` for each whose ref was cleared (as it is after, with a new version and updatedAt,
 * so that an ETag held for it no longer matches). Only for a definition with `events`: without, the foreign keys
 * alone do it, and a cleared record keeps its version.
 */

/** A resource as a delete reaches it: its table, the rows its events are made of, and who refers to it. */
export interface Reached {
  readonly resource: string;
  readonly table: string;
  /** the select list of the rows `changeOf` reads (its store's writes return the same) */
  readonly columns: string;
  readonly idKind: ValueKind;
  changeOf(row: Row): Change;
  /** the refs to this resource's records that a delete follows (restrict ones are the database's to refuse) */
  referrers(): readonly Referrer[];
}

export interface Referrer {
  /** the resource whose records hold the ref */
  readonly holder: Reached;
  /** the ref's column */
  readonly column: string;
  readonly onDelete: 'cascade' | 'setNull';
}

const q = (name: string): string => `"${name}"`;

/** The statements of the cascades of one database, prepared at their first use (one per ref, and per table). */
const prepared = new WeakMap<Database, Map<string, Statement>>();

function statement(db: Database, text: string): Statement {
  let known = prepared.get(db);
  if (known === undefined) prepared.set(db, (known = new Map()));
  let made = known.get(text);
  if (made === undefined) known.set(text, (made = db.prepareText(text)));
  return made;
}

/**
 * The rows of `table` whose `column` holds one of the ids (a JSON array); on PostgreSQL locked FOR UPDATE, which a
 * write that would make a record refer to one of them waits for (its foreign key check takes FOR KEY SHARE).
 */
function readRows(
  db: Database,
  table: string,
  columns: string,
  column: string,
  kind: ValueKind,
  ids: SqlValue[],
): Bound {
  const param = db.dialect === 'sqlite' ? '?' : '$1';
  const lock = db.dialect === 'postgres' ? ' FOR UPDATE' : '';
  const text = `SELECT ${columns} FROM ${q(table)} WHERE ${inJsonArray(db.dialect, q(column), param, kind)}${lock}`;
  return { statement: statement(db, text), values: [JSON.stringify(ids)] };
}

/** The record a delete removes, locked FOR UPDATE before anything it reaches is read (PostgreSQL). */
function lockRoot(db: Database, reached: Reached, id: SqlValue): Bound {
  const text = `SELECT 1 FROM ${q(reached.table)} WHERE "id" = $1 FOR UPDATE`;
  return { statement: statement(db, text), values: [id] };
}

/** A new version and updatedAt for the records whose ref the delete cleared, returned for their events. */
function touch(db: Database, reached: Reached, ids: SqlValue[], at: string): Bound {
  const [first, second] = db.dialect === 'sqlite' ? ['?', '?'] : ['$1', '$2'];
  const text =
    `UPDATE ${q(reached.table)} SET "version" = "version" + 1, "updated_at" = ${first} ` +
    `WHERE ${inJsonArray(db.dialect, '"id"', second, reached.idKind)} RETURNING ${reached.columns}`;
  return { statement: statement(db, text), values: [at, JSON.stringify(ids)] };
}

/** What a delete will do, once it is sure to happen: its record, and the statement that removes it. */
export interface Removal {
  root: Reached;
  id: SqlValue;
  /** the delete's own conditions as a query (owner, version, states): a row when the delete would remove one */
  guard: Bound;
  remove: Bound;
  actor: string | null;
  /** told how many events the delete records, just before they are written (for EventLog.committed) */
  recording?: (count: number) => void;
}

/**
 * The delete of the record `id` of `root`, with its events and those of every record it reaches through refs (to any
 * depth; a ref that goes round, such as a parent category, is followed until no new record is found). First the
 * delete's own conditions: a delete that would remove nothing (no such record, another owner's, another version, a
 * state its rule refuses) reads, changes and records nothing; the delete itself checks them again. On PostgreSQL
 * the record is then locked FOR UPDATE, and so is each record the delete reaches as it is read, level by level: a
 * write that would make a record refer to one of them (an insert or an update of a ref: its foreign key check takes
 * FOR KEY SHARE on the record referred to) either came first, and the lock waits for it to commit, so the next
 * level's read sees its record; or comes after, waits for the delete to commit, and finds the record gone (a 409).
 * So every record the foreign keys delete or clear is one read here, and has its event. (This takes no lock of the
 * feed's: the delete's events take the commit-order lock shared as any write's, see events/log.ts. Two deletes that
 * lock the same records in another order are a deadlock PostgreSQL breaks, and one is run again: postgres.ts.) The
 * events of the records changed come before the record's own: those cleared first, then those deleted, each before
 * the records it refers to (see referrersFirst). Resolves to the row deleted.
 */
export function* deleteReaching(db: Database, events: EventLog, removal: Removal): Program<Row | undefined> {
  const { root, id, actor } = removal;
  const [found] = yield removal.guard;
  if (found === undefined) return undefined;
  if (db.dialect === 'postgres') yield lockRoot(db, root, id);
  const seen = new Map<Reached, Map<string, Node | null>>([[root, new Map([[String(id), null]])]]);
  const deleted: Node[] = [];
  const cleared = new Map<Reached, SqlValue[]>();
  let frontier: { reached: Reached; ids: SqlValue[] }[] = [{ reached: root, ids: [id] }];
  while (frontier.length > 0) {
    const next: typeof frontier = [];
    for (const { reached, ids } of frontier) {
      for (const { holder, column, onDelete } of reached.referrers()) {
        const rows = yield readRows(db, holder.table, holder.columns, column, reached.idKind, ids);
        if (onDelete === 'setNull') {
          const list = cleared.get(holder) ?? [];
          cleared.set(holder, list);
          for (const row of rows) list.push(row.id ?? null);
          continue;
        }
        const known = seen.get(holder) ?? new Map<string, Node | null>();
        seen.set(holder, known);
        const fresh: SqlValue[] = [];
        for (const row of rows) {
          let node = known.get(String(row.id));
          if (node === undefined) {
            const event = { resource: holder.resource, kind: 'deleted', change: holder.changeOf(row) };
            node = { event, refersTo: [], index: -1, low: -1, component: -1 };
            known.set(String(row.id), node);
            deleted.push(node);
            fresh.push(row.id ?? null);
          }
          // the record it refers to by this ref, deleted too: its event waits for this one's (none for the root)
          const parent = seen.get(reached)?.get(String(row[column]));
          if (node !== null && parent !== undefined && parent !== null) node.refersTo.push(parent);
        }
        if (fresh.length > 0) next.push({ reached: holder, ids: fresh });
      }
    }
    frontier = next;
  }
  const [gone] = yield removal.remove;
  if (gone === undefined) return undefined;
  const at = new Date().toISOString();
  const changed: { resource: string; kind: string; change: Change }[] = [];
  for (const [holder, ids] of cleared) {
    // a record both cleared and deleted (it referred to two of them) is deleted: it has only that event
    const kept = [...new Set(ids.map(String))].filter((key) => !seen.get(holder)?.has(key));
    if (kept.length === 0) continue;
    const rows = yield touch(db, holder, holder.idKind === 'integer' ? kept.map(Number) : kept, at);
    for (const row of rows)
      changed.push({ resource: holder.resource, kind: 'updated', change: holder.changeOf(row) });
  }
  // one at a time: a call's arguments are bounded (a delete may reach hundreds of thousands of records)
  for (const event of referrersFirst(deleted)) changed.push(event);
  changed.push({ resource: root.resource, kind: 'deleted', change: root.changeOf(gone) });
  removal.recording?.(changed.length);
  for (const insert of events.eventRows(changed, at, actor)) yield insert;
  return gone;
}

/** A record deleted with a delete: its event, and the records deleted with it that it refers to. */
interface Node {
  event: { resource: string; kind: string; change: Change };
  refersTo: Node[];
  /** for componentsOf: the order it was found in, the lowest it reaches, its component (-1: none yet) */
  index: number;
  low: number;
  component: number;
}

/**
 * The events of the records deleted with a delete (found nearest first), each record's before those of the records
 * it refers to, so that a receiver that keeps foreign keys of its own can apply them one by one. Records whose refs go
 * round (a cycle: a strongly connected component) come together, the furthest first; so do records with no ref
 * between them. Linear in records and refs.
 */
function referrersFirst(deleted: readonly Node[]): Node['event'][] {
  const order = [...deleted].reverse();
  const count = componentsOf(order);
  const members: Node[][] = Array.from({ length: count }, () => []);
  const waiting = new Array<number>(count).fill(0);
  const referred: number[][] = Array.from({ length: count }, () => []);
  for (const node of order) {
    members[node.component]?.push(node);
    for (const parent of node.refersTo) {
      if (parent.component === node.component) continue;
      waiting[parent.component] = (waiting[parent.component] ?? 0) + 1;
      referred[node.component]?.push(parent.component);
    }
  }
  // components nothing waits on, in the order of their furthest member; the others as they come free
  const ready = [...new Set(order.map((node) => node.component))].filter((c) => waiting[c] === 0);
  const events: Node['event'][] = [];
  for (let i = 0; i < ready.length; i += 1) {
    const component = ready[i] ?? 0;
    for (const node of members[component] ?? []) events.push(node.event);
    for (const parent of referred[component] ?? []) {
      waiting[parent] = (waiting[parent] ?? 0) - 1;
      if (waiting[parent] === 0) ready.push(parent);
    }
  }
  return events;
}

/** Tarjan's strongly connected components of the refs among `nodes`, without recursion: sets each node's; how many. */
function componentsOf(nodes: readonly Node[]): number {
  let found = 0;
  let components = 0;
  const stack: Node[] = [];
  const onStack = new Set<Node>();
  const visit = (node: Node): void => {
    node.index = node.low = found++;
    stack.push(node);
    onStack.add(node);
  };
  for (const start of nodes) {
    if (start.index >= 0) continue;
    visit(start);
    const path: { node: Node; next: number }[] = [{ node: start, next: 0 }];
    while (path.length > 0) {
      const top = path[path.length - 1] as { node: Node; next: number };
      const { node } = top;
      const to = node.refersTo[top.next];
      if (to !== undefined) {
        top.next += 1;
        if (to.index < 0) {
          visit(to);
          path.push({ node: to, next: 0 });
        } else if (onStack.has(to)) node.low = Math.min(node.low, to.index);
        continue;
      }
      path.pop();
      const below = path[path.length - 1];
      if (below !== undefined) below.node.low = Math.min(below.node.low, node.low);
      if (node.low !== node.index) continue;
      let member: Node | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        member.component = components;
      } while (member !== node);
      components += 1;
    }
  }
  return components;
}
