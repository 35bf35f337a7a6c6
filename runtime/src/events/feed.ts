import type { AccessRule } from '../auth/authorize.js';
import type { Caller } from '../auth/verify.js';
import type { Database, Dialect, Prepared, SqlValue } from '../db/database.js';
import { HttpProblem, type FieldError } from '../http/problem.js';
import { OWNER_SEPARATOR } from './log.js';
import { settledOf, type Settled } from './settled.js';

/** What the feed knows of a resource: its event types, and who may read its records (made by its store). */
export interface EventSource {
  resource: string;
  /** every type of event of the resource: `<resource>.created`, `.updated`, `.deleted`, `.<action>` */
  types: readonly string[];
  read: AccessRule;
  /** the owner fields' value for a token subject (null: none can be); absent when the resource has no owner field */
  owner?: (subject: string) => SqlValue;
}

/** A page of the feed: each event as its JSON text, and the `after` of the next page (null: none yet). */
export interface EventPage {
  events: { seq: number; text: string }[];
  nextCursor: string | null;
}

/** How many rows one page examines at most, visible or not: a page costs the same however few the caller may see. */
export const SCAN_LIMIT = 1000;

/**
 * The rows after `after` and through `through` (every event through it is settled: see settled.ts), in `seq` order,
 * each with its JSON when the caller may see it: of a type in `every`, or of a type in `owned` naming `needle` among
 * its owners (`,type,` lists: a type never holds a comma). SQLite's LIMIT is an expression: a bare parameter there is
 * planned again at every step (see LIMIT in db/list-sql.ts).
 */
const PAGE: Record<Dialect, string> = {
  sqlite: `
    SELECT "seq", "actor", CASE
      WHEN instr(:every, ',' || "type" || ',') > 0 THEN "event"
      WHEN instr(:owned, ',' || "type" || ',') > 0 AND instr("owners", :needle) > 0 THEN "event"
    END AS "event"
    FROM "restsmith_events"
    WHERE "seq" > :after AND "seq" <= :through
    ORDER BY "seq"
    LIMIT CAST(:scan AS INTEGER)`,
  postgres: `
    SELECT "seq", "actor", CASE
      WHEN strpos(:every::text, ',' || "type" || ',') > 0 THEN "event"
      WHEN strpos(:owned::text, ',' || "type" || ',') > 0 AND strpos("owners", :needle::text) > 0 THEN "event"
    END AS "event"
    FROM "restsmith_events"
    WHERE "seq" > :after::bigint AND "seq" <= :through::bigint
    ORDER BY "seq"
    LIMIT :scan::bigint`,
};

type PageParams = {
  every: string;
  owned: string;
  needle: string | null;
  after: number;
  through: number;
  scan: number;
};

/**
 * The `seq` through which events were removed by the retention (see retention.ts): an `after` below it is gone; and the
 * newest event's: an `after` past it names no event the server gave (the key's index answers it).
 */
const BOUNDS =
  `SELECT (SELECT "pruned_through" FROM "restsmith_event_horizon" WHERE "id" = 1) AS "pruned_through", ` +
  `(SELECT max("seq") FROM "restsmith_events") AS "newest"`;

/** What one caller may see: the types of every record, the types of their own records, and their owner value. */
export interface Visibility {
  every: string;
  owned: string;
  needle: string | null;
  /** whether the caller sees every event of the types asked for (a page then reads no more rows than it returns) */
  all: boolean;
  /**
   * whose `actor` the caller sees: every one (the administrator), or their own only (null: none, anonymous); another's
   * is null in what they are sent, so that events do not tell readers who wrote what
   */
  actors: 'every' | string | null;
}

/**
 * The change feed: pages of events after a `seq`, filtered per caller by each resource's read rule against the record
 * as it was (owner scoping included: the owners stored with the event). See docs in the generated README.
 */
export class EventFeed {
  readonly #page: Prepared<PageParams>;
  readonly #bounds: Prepared<Record<string, never>>;
  readonly #sources: ReadonlyMap<string, EventSource>;
  readonly #types: ReadonlyMap<string, EventSource>;
  readonly #settled: Settled;

  constructor(
    db: Database,
    sources: readonly EventSource[],
    private readonly adminRole: string,
    private readonly retention: string,
    /** old name → new, of the resources renamed (`renamedFrom`): a `types` naming the old one is told the new */
    private readonly renamed: Readonly<Record<string, string>> = {},
  ) {
    this.#page = db.prepare<PageParams>(PAGE[db.dialect]);
    this.#bounds = db.prepare<Record<string, never>>(BOUNDS);
    this.#settled = settledOf(db);
    this.#sources = new Map(sources.map((source) => [source.resource, source]));
    this.#types = new Map(sources.flatMap((source) => source.types.map((type) => [type, source] as const)));
  }

  /** Whether some resource's events may be read without a token (else the feed needs one). */
  get public(): boolean {
    return [...this.#sources.values()].some((source) => source.read.public === true);
  }

  /**
   * The types a `types` query asks for: a comma-separated list of resources (each of its types) and types; every type
   * when absent. A name that is neither is a 400 naming the known ones, or the new name of a renamed resource.
   */
  typesOf(query: string | undefined): ReadonlySet<string> {
    if (query === undefined || query.trim() === '') return new Set(this.#types.keys());
    const asked = query.split(',').map((name) => name.trim());
    const types = new Set<string>();
    for (const name of asked) {
      const source = this.#sources.get(name);
      if (source !== undefined) for (const type of source.types) types.add(type);
      else if (this.#types.has(name)) types.add(name);
      else throw new HttpProblem(400, 'Bad Request', `types: ${this.#unknown(name)}`);
    }
    return types;
  }

  /**
   * The problems of a webhook's `types` (at `/types/<index>`): each entry must be a resource or an event type exactly,
   * as it is matched when events are sent (`books,authors` or ` books` would be accepted and never match).
   */
  entryErrors(entries: readonly string[]): FieldError[] {
    return entries.flatMap((name, index) =>
      this.#sources.has(name) || this.#types.has(name)
        ? []
        : [{ path: `/types/${index}`, message: this.#unknown(name) }],
    );
  }

  /** Why a `types` entry names no resource and no type of one (a renamed resource's old name says its new one). */
  #unknown(name: string): string {
    const [resource = '', ...rest] = name.split('.');
    const renamed = Object.hasOwn(this.renamed, resource) ? this.renamed[resource] : undefined;
    const now = [renamed, ...rest].join('.');
    if (renamed !== undefined && (this.#sources.has(now) || this.#types.has(now))) {
      return (
        `"${name.slice(0, 100)}" was renamed: the resource ${resource} is now ${renamed}, and its events, ` +
        `past ones included, are events of ${renamed}: ask for "${now.slice(0, 100)}"`
      );
    }
    const known = [...this.#sources.keys()].join(', ');
    const example = [...this.#types.keys()][0] ?? 'books.created';
    const what = name.includes(',')
      ? 'one resource or event type, not a list'
      : 'neither a resource nor an event type';
    return `"${name.slice(0, 100)}" is ${what}; known: ${known} (each, or one of its types like ${example})`;
  }

  /** Which of `types` the caller may see, and of which only their own records'. */
  visibility(caller: Caller | undefined, types: ReadonlySet<string>): Visibility {
    const every: string[] = [];
    const owned: string[] = [];
    let needle: string | null = null;
    for (const type of types) {
      const source = this.#types.get(type);
      if (source === undefined) continue;
      const scope = this.#scope(caller, source);
      if (scope === 'every') every.push(type);
      else if (scope !== 'none') {
        const value = `${OWNER_SEPARATOR}${String(scope)}${OWNER_SEPARATOR}`;
        // a resource whose owner value of this subject is written otherwise (an integer id) shows none of its events
        if (needle === null || needle === value) {
          needle = value;
          owned.push(type);
        }
      }
    }
    const list = (names: string[]): string => `,${names.join(',')},`;
    return {
      every: list(every),
      owned: list(owned),
      needle,
      all: owned.length === 0 && every.length === this.#types.size,
      actors: caller === undefined ? null : caller.roles.includes(this.adminRole) ? 'every' : caller.subject,
    };
  }

  /**
   * The events after `after` the caller may see, `limit` at most; a 410 when the retention removed some after it.
   * Without `after`, from the oldest event kept. Only events through the settled bound are read (settled.ts): a page
   * never holds an event before one of a smaller `seq` still to commit, so a reader never skips one.
   */
  async page(visibility: Visibility, after: number | undefined, limit: number): Promise<EventPage> {
    const settled = this.#settled;
    // a reader at the bound known needs a barrier, run beside the start's query; one catching up reads through the
    // bound known while whole pages come, and passes a barrier only for the last, short one
    const known = settled.known;
    const barrier = after === undefined || after >= known ? settled.through() : undefined;
    const [from, passed] = await Promise.all([this.start(after), barrier]);
    after = from;
    const scan = visibility.all ? limit : Math.max(limit, SCAN_LIMIT);
    const read = (through: number) =>
      this.#page.all({
        every: visibility.every,
        owned: visibility.owned,
        needle: visibility.needle,
        after: from,
        through,
        scan,
      });
    let rows = await read(passed ?? known);
    if (passed === undefined && rows.length < scan && settled.waits)
      rows = await read(await settled.through());
    const events: EventPage['events'] = [];
    let last = after;
    for (const row of rows) {
      const seq = Number(row.seq);
      last = seq;
      if (typeof row.event === 'string')
        events.push({ seq, text: withActor(row.event, row.actor, visibility) });
      if (events.length === limit) return { events, nextCursor: String(seq) };
    }
    // the window was full of events this caller may not see: the next page starts after them
    return { events, nextCursor: rows.length === scan ? String(last) : null };
  }

  /**
   * Where a reader starts: after `after`, or the oldest event kept; a 410 when the retention removed events after it,
   * a 400 when it is past the newest event (a reader would silently miss every event up to it).
   */
  async start(after: number | undefined): Promise<number> {
    const bounds = await this.#bounds.get({});
    const horizon = Number(bounds?.pruned_through ?? 0);
    if (after === undefined) return horizon;
    const newest = Math.max(horizon, Number(bounds?.newest ?? 0));
    if (after > newest) {
      throw new HttpProblem(
        400,
        'Bad Request',
        `no event has the id ${after}: the newest is ${newest}. Resume from an id the feed or the stream gave, or ` +
          'follow the feed without `after` (from the oldest kept).',
      );
    }
    if (after < horizon) {
      throw new HttpProblem(
        410,
        'Gone',
        `the events after ${after} are gone: events are kept ${this.retention}, and those through ${horizon} were ` +
          'removed. Read the records again, then follow the feed without `after` (from the oldest kept).',
      );
    }
    return after;
  }

  #scope(caller: Caller | undefined, source: EventSource): 'every' | 'none' | SqlValue {
    const rule = source.read;
    if (rule.public) return 'every';
    if (caller === undefined) return 'none';
    if (caller.roles.includes(this.adminRole) || rule.authenticated) return 'every';
    if (rule.roles?.some((role) => caller.roles.includes(role)) === true) return 'every';
    if (rule.owner !== true || source.owner === undefined) return 'none';
    if (caller.subject.includes(OWNER_SEPARATOR)) return 'none';
    const value = source.owner(caller.subject);
    // a subject that is not an integer id owns no record of integer ids (subjectAsId's -1): its events are none of
    // theirs, and the caller's needle stays the one of the resources they may own (found by a reviewer)
    return value === null || value === -1 ? 'none' : value;
  }
}

/** An event as served: its JSON with `seq` first. */
export const served = ({ seq, text }: { seq: number; text: string }): string =>
  `{"seq":${seq},${text.slice(1)}`;

/** An event as this caller is sent it: its `actor` left null unless they are the administrator or the actor. */
function withActor(text: string, actor: SqlValue | undefined, visibility: Visibility): string {
  if (typeof actor !== 'string' || visibility.actors === 'every' || visibility.actors === actor) return text;
  // the event's own `actor` comes before its `data`: the first occurrence is it
  return text.replace(`"actor":${JSON.stringify(actor)},"data":`, '"actor":null,"data":');
}
