/**
 * The cost class of a listing statement, decided once when it is prepared, from the database's own plan: `cheap`
 * when the database reads about as many rows as the page holds (an index walked in the order asked, every condition
 * served by an index), `scans` when it may read a whole table (a scan with conditions no index serves, a sort of
 * every matching row). A `scans` statement runs apart (SQLite: a worker thread; PostgreSQL: a pool of its own) under
 * the caps of scan-gate.ts. Misjudging a cheap statement costs it a little latency; misjudging a scan would stall
 * every other request, so anything not recognised is `scans`.
 */
export type Cost = 'cheap' | 'scans';

/** What the listing knows of a statement's shape, which a plan alone does not say. */
export interface CostFacts {
  /** the listed table */
  table: string;
  /**
   * the columns of the listed table its WHERE conditions compare: the owner columns, the filtered ones (for a filter
   * through a relation, the column of the first hop), and the first sort key's when a cursor continues a page
   */
  conditions: readonly string[];
}

/** Table-valued functions a statement reads its `in` values from: bounded by the request, not a table. */
const VALUE_LISTS = /^(json_each|jsonb_each|CONSTANT ROW)\b/;

/** A line of SQLite's `EXPLAIN QUERY PLAN`: `parent` is the id of the line it is under (0: the top). */
export interface PlanLine {
  id: number;
  parent: number;
  detail: string;
}

/**
 * SQLite: `lines` are the statement's `EXPLAIN QUERY PLAN`. Cheap when no line sorts rows of a table (`USE TEMP
 * B-TREE` beside a `SCAN` or `SEARCH` of one: a sort of the rows of a limited subquery, as the pages of a listing of
 * several owners are merged, is bounded by its limit), every `SCAN` of a table is the listed table's walk in index
 * order with no condition at all (it stops at the limit), and every condition's column is one a `SEARCH` of the
 * listed table is constrained by.
 */
export function sqliteCost(lines: readonly PlanLine[], facts: CostFacts): Cost {
  // the subqueries read row by row (`CO-ROUTINE owner_0`) or stored (`MATERIALIZE x`): a SCAN of one is no table's
  const subqueries = new Set(
    lines.flatMap(({ detail }) => /^(?:CO-ROUTINE|MATERIALIZE) ("?)([^\s"]+)\1/.exec(detail)?.[2] ?? []),
  );
  const readsTable = (detail: string): boolean => {
    const read = /^(?:SCAN|SEARCH) (?:TABLE )?("?)([^\s"]+)\1/.exec(detail);
    if (read === null) return false;
    return !subqueries.has(read[2] ?? '') && !VALUE_LISTS.test(detail.replace(/^(SCAN|SEARCH) /, ''));
  };
  const served = new Set<string>();
  for (const { parent, detail } of lines) {
    if (detail.includes('USE TEMP B-TREE')) {
      if (lines.some((line) => line.parent === parent && readsTable(line.detail))) return 'scans';
      continue;
    }
    if (!readsTable(detail)) continue;
    const scan = /^SCAN (?:TABLE )?("?)([^\s"]+)\1/.exec(detail);
    if (scan !== null) {
      if (scan[2] !== facts.table || facts.conditions.length > 0) return 'scans';
      continue;
    }
    const search = /^SEARCH (?:TABLE )?("?)([^\s"]+)\1 USING .*\((.*)\)$/.exec(detail);
    if (search !== null && search[2] === facts.table) {
      for (const match of (search[3] ?? '').matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:[=<>]|IS\b)/g))
        served.add(match[1] ?? '');
    }
  }
  return facts.conditions.every((column) => served.has(column)) ? 'cheap' : 'scans';
}

/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)`, as far as the rule reads it. */
export interface PlanNode {
  'Node Type': string;
  Filter?: string;
  'Function Name'?: string;
  Plans?: PlanNode[];
}

/**
 * PostgreSQL: `plan` is the generic plan the statement gets with sequential scans and sorts disabled (see
 * postgres.ts), so that it does not depend on the table's statistics (the planner seq-scans a table it believes
 * small). It still chooses a disabled node when nothing else can answer: a `Seq Scan` says no index serves, a `Sort`
 * of a table's rows that they are all sorted. Cheap when there is no such node, and no scan of a table keeps a
 * residual `Filter` (conditions its index does not serve, checked row by row). A sort of rows that each come through
 * a `Limit` (the pages of a listing of several owners, merged) is bounded by the limits, and the nodes under them are
 * judged alike.
 */
export function postgresCost(plan: PlanNode): Cost {
  const type = plan['Node Type'];
  if (type === 'Seq Scan') return 'scans';
  if ((type === 'Sort' || type === 'Incremental Sort') && !(plan.Plans ?? []).every(limited)) return 'scans';
  if (readsTable(type) && plan.Filter !== undefined) return 'scans';
  for (const child of plan.Plans ?? []) if (postgresCost(child) === 'scans') return 'scans';
  return 'cheap';
}

const readsTable = (type: string): boolean =>
  /Scan$/.test(type) && type !== 'Function Scan' && type !== 'Subquery Scan';

/** Whether every row `plan` gives comes through a Limit below it (none from a table read to its end). */
function limited(plan: PlanNode): boolean {
  if (plan['Node Type'] === 'Limit') return true;
  if (readsTable(plan['Node Type'])) return false;
  return (plan.Plans ?? []).every(limited);
}
