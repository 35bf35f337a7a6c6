import assert from 'node:assert/strict';
import { subjectOf, tokenOf, type Records } from './access.js';
import { tokens, type Json, type JsonObject } from './harness.js';
import { everyItem } from './listing.js';

/** What a caller sees of a resource's records by a rule: all of them, their own, or none. */
export type Sight = 'all' | 'own' | 'none';

/** One relation of a collection, and what each caller may do through it (see src/contract/relation-matrix.ts). */
export interface Relation {
  collection: string;
  /** camelCase, as in `include` */
  relation: string;
  /** kebab-case, as in paths */
  segment: string;
  kind: 'one' | 'many';
  /** many-to-many: the join resource, whose records are the links */
  through?: string;
  target: string;
  /** the ref field making the relation: the collection's (`one`), the target's (`many`) */
  field: string;
  /** an id no record of the collection has */
  missingId: string | number;
  /** what deleting a record does to the records referring to it, when the tests may delete one */
  onDelete?: 'restrict' | 'cascade' | 'setNull';
  callers: string[];
  /** the nested routes: per caller, in the order of `callers`, the status; null is not checked here */
  rows: { what: string; method: string; statuses: (number | null)[] }[];
  /** per caller: whether they read the collection's record (their `include` is checked) */
  readers: boolean[];
  /** per caller: what they see of the target by its `read` rule (embedded) and its `list` rule (listed) */
  reads: Sight[];
  lists: Sight[];
  /** many-to-many, per caller: what they see of the links by the join's `read` rule */
  links?: Sight[];
  /** many-to-many: a link is owned by one of the records it names */
  linksByRef?: boolean;
  /** the target's owner fields (`id`: a record is its own owner) */
  owners: string[];
  targetReads: boolean;
  /** the listing of the collection filters through the relation on these fields of the target (equality) */
  filters: string[];
  /** per caller: what they list of the collection */
  collectionLists: Sight[];
  /** the collection's owner fields */
  collectionOwners: string[];
  /** an include path deeper than `limits.includeDepth`: a 400 */
  tooDeep?: string;
}

/**
 * A record of the collection and its related records; a second record with one of its own; a third that nested
 * creates make records under (so that the first keeps exactly its related records).
 */
export interface Family {
  record: JsonObject;
  related: JsonObject[];
  other: JsonObject;
  home: JsonObject;
}

/** Whether a caller with `sight` sees `record`: all, or their own by one of its owner fields. */
export const sees = (
  sight: Sight | undefined,
  record: JsonObject,
  owners: string[],
  subject: string | undefined,
) =>
  sight === 'all' ||
  (sight === 'own' && subject !== undefined && owners.some((field) => String(record[field]) === subject));

/**
 * Whether a caller sees the links of a many-to-many relation (true for other relations): every link, or none where
 * they see their own only (the links are the administrator's); undefined, not checked, where a link is owned by one
 * of the records it names.
 */
export function seesLinks(relation: Relation, i: number): boolean | undefined {
  const sight = relation.links?.[i];
  if (sight === undefined || sight === 'all') return true;
  return sight === 'own' && relation.linksByRef === true ? undefined : false;
}

export const idsOf = (items: readonly JsonObject[]): Json[] => items.map((item) => item.id ?? null).sort();

/** The records each relation's tests share, made once per relation. */
export class Relations {
  readonly #families = new Map<string, Promise<Family>>();

  constructor(readonly records: Records) {}

  family(relation: Relation): Promise<Family> {
    const key = `${relation.collection}.${relation.relation}`;
    let family = this.#families.get(key);
    if (family === undefined) {
      family = this.#make(relation);
      this.#families.set(key, family);
    }
    return family;
  }

  /** A record of the collection: its owner (or id) and its path. */
  parentOf(relation: Relation, record: JsonObject) {
    const fixture = this.records.fixture(relation.collection);
    return {
      owner: this.records.ownerOf(relation.collection, record),
      path: `${fixture.path}/${String(record.id)}`,
    };
  }

  async #make(relation: Relation): Promise<Family> {
    const { records } = this;
    // a to-one relation of the collection to itself: the record refers to the collection's shared record (the fixture
    // fills such a ref only once that record is made)
    const self = relation.kind === 'one' && relation.target === relation.collection;
    const parent = self ? { [relation.field]: (await records.shared(relation.target)).id ?? null } : {};
    const record = await records.fresh(relation.collection, parent);
    const other = await records.fresh(relation.collection);
    const home = await records.fresh(relation.collection);
    if (relation.kind === 'one') return { record, related: [], other, home };
    if (relation.through === undefined) {
      // two records refer to the record, one to the other
      const under = (parent: JsonObject) =>
        records.fresh(relation.target, { [relation.field]: parent.id ?? null });
      const related = [await under(record), await under(record)];
      await under(other);
      return { record, related, other, home };
    }
    const related = [await records.fresh(relation.target), await records.fresh(relation.target)];
    for (const linked of related) await this.link(relation, record, linked, 204);
    return { record, related, other, home };
  }

  /** Links two records as the administrator: PUT …/{id}/<relation>/{otherId}. */
  async link(relation: Relation, record: JsonObject, other: JsonObject, status: number): Promise<void> {
    const url = `${this.parentOf(relation, record).path}/${relation.segment}/${String(other.id)}`;
    const answer = await this.records.call('PUT', url, await tokens.administrator());
    assert.equal(answer.status, status, `PUT ${url}: ${JSON.stringify(answer.body)}`);
  }
}

/** Calls a nested route as `caller` and checks its status; a listing shows exactly what the caller may list. */
export async function checkRoute(
  relations: Relations,
  relation: Relation,
  row: Relation['rows'][number],
  caller: string,
): Promise<void> {
  const i = relation.callers.indexOf(caller);
  const expected = row.statuses[i];
  if (expected === null || expected === undefined) return;
  const { records } = relations;
  const family = await relations.family(relation);
  const parent = row.what === 'create' ? family.home : family.record;
  const { owner, path } = relations.parentOf(relation, parent);
  const token = await tokenOf(caller, owner);
  const base = `${path}/${relation.segment}`;
  const detail = (answer: { body: Json | undefined }) =>
    `${row.method} ${base}… as ${caller}: ${JSON.stringify(answer.body)}`;
  if (row.what === 'list') {
    const answer = await records.call('GET', base, token);
    assert.equal(answer.status, expected, detail(answer));
    if (expected !== 200) return;
    const subject = subjectOf(caller, owner);
    const listed = await everyItem(records, base, '', 1, token);
    const links = seesLinks(relation, i);
    const visible = family.related.filter(
      (r) => sees(relation.lists[i], r, relation.owners, subject) && links,
    );
    // never a record of another; exactly those the caller may list, where the rules say which
    const ids = idsOf(family.related);
    for (const id of idsOf(listed)) assert.ok(ids.includes(id), `${base} as ${caller} lists ${String(id)}`);
    if (links !== undefined)
      assert.deepEqual(idsOf(listed), idsOf(visible), `${base} as ${caller} lists what they may list`);
  } else if (row.what === 'create') {
    const body = await records.body(relation.target);
    delete body[relation.field];
    // an owner the body names is another's record: the fixture's shared one may be the caller's own (the parent's
    // owner), where the rules expect someone else (a 403 for all but staff)
    const subject = subjectOf(caller, owner);
    const refs = records.fixture(relation.target).refs;
    for (const field of relation.owners) {
      const to = refs[field];
      if (field === relation.field || to === undefined || subject === undefined) continue;
      if (String(body[field]) === subject) body[field] = (await records.fresh(to)).id ?? null;
    }
    const answer = await records.call('POST', base, token, body);
    assert.equal(answer.status, expected, detail(answer));
    if (expected === 201) assert.equal((answer.body as JsonObject)[relation.field], parent.id);
  } else {
    // a link: to a record of the target the administrator made; an unlink finds it linked first
    const other = family.related[0];
    assert.ok(other, 'a linked record');
    if (row.what === 'unlink') await relations.link(relation, family.record, other, 204);
    const url = `${base}/${String(other.id)}`;
    const answer = await records.call(row.method, url, token);
    // leave it linked, as the family has it, whatever the answer
    if (row.what === 'unlink' && answer.status === 204)
      await relations.link(relation, family.record, other, 204);
    assert.equal(answer.status, expected, detail(answer));
  }
}

/** As the administrator: a nested listing pages through exactly the related records; under no record, a 404. */
export async function checkListing(relations: Relations, relation: Relation): Promise<void> {
  const { records } = relations;
  const family = await relations.family(relation);
  const { path } = relations.parentOf(relation, family.record);
  const listed = await everyItem(records, `${path}/${relation.segment}`, '', 1);
  assert.deepEqual(
    idsOf(listed),
    idsOf(family.related),
    `${path}/${relation.segment} lists the related records`,
  );
  const missing = `${records.fixture(relation.collection).path}/${String(relation.missingId)}/${relation.segment}`;
  const answer = await records.call('GET', missing, await tokens.administrator());
  assert.equal(answer.status, 404, `GET ${missing}: ${JSON.stringify(answer.body)}`);
}

/** As the administrator: a nested create refers to the record of the path; a body naming another is a 400. */
export async function checkCreate(relations: Relations, relation: Relation): Promise<void> {
  const { records } = relations;
  const family = await relations.family(relation);
  const token = await tokens.administrator();
  const url = `${relations.parentOf(relation, family.home).path}/${relation.segment}`;
  const body = await records.body(relation.target);
  const another = await records.call('POST', url, token, {
    ...body,
    [relation.field]: family.other.id ?? null,
  });
  assert.equal(another.status, 400, `POST ${url} naming another record: ${JSON.stringify(another.body)}`);
  delete body[relation.field];
  const made = await records.call('POST', url, token, body);
  assert.equal(made.status, 201, `POST ${url}: ${JSON.stringify(made.body)}`);
  const location = `${records.fixture(relation.target).path}/${String((made.body as JsonObject).id)}`;
  assert.ok(made.headers.get('location')?.endsWith(location), `POST ${url}: Location names ${location}`);
  assert.equal(
    (made.body as JsonObject)[relation.field],
    family.home.id,
    `${relation.field} is the path's id`,
  );
  const missing = `${records.fixture(relation.collection).path}/${String(relation.missingId)}/${relation.segment}`;
  const none = await records.call('POST', missing, token, body);
  assert.equal(none.status, 404, `POST ${missing}: ${JSON.stringify(none.body)}`);
}

/** As the administrator: a link is idempotent, listed, and unlinked once (then a 404). */
export async function checkLinks(relations: Relations, relation: Relation): Promise<void> {
  const { records } = relations;
  const family = await relations.family(relation);
  const token = await tokens.administrator();
  const other = await records.fresh(relation.target);
  const base = `${relations.parentOf(relation, family.other).path}/${relation.segment}`;
  const url = `${base}/${String(other.id)}`;
  await relations.link(relation, family.other, other, 204);
  await relations.link(relation, family.other, other, 204);
  const lists = relation.rows.some((row) => row.what === 'list');
  if (lists)
    assert.deepEqual(idsOf(await everyItem(records, base, '', 1)), [other.id], `${base} lists the link`);
  const missing = `${records.fixture(relation.collection).path}/${String(relation.missingId)}/${relation.segment}`;
  const none = await records.call('PUT', `${missing}/${String(other.id)}`, token);
  assert.equal(none.status, 404, `PUT under no record: ${JSON.stringify(none.body)}`);
  if (!relation.rows.some((row) => row.what === 'unlink')) return;
  assert.equal((await records.call('DELETE', url, token)).status, 204, `DELETE ${url}`);
  assert.equal((await records.call('DELETE', url, token)).status, 404, `DELETE ${url} again: not linked`);
  if (lists) assert.deepEqual(await everyItem(records, base, '', 1), [], `${base} after the unlink`);
}

/** Deleting a record that others refer to: refused (409), or they go with it, or their ref becomes null. */
export async function checkOnDelete(relations: Relations, relation: Relation): Promise<void> {
  const { records } = relations;
  const token = await tokens.administrator();
  const record = await records.fresh(relation.collection);
  const child = await records.fresh(relation.target, { [relation.field]: record.id ?? null });
  const url = relations.parentOf(relation, record).path;
  const answer = await records.call('DELETE', url, token);
  assert.equal(
    answer.status,
    relation.onDelete === 'restrict' ? 409 : 204,
    `DELETE ${url}: ${JSON.stringify(answer.body)}`,
  );
  if (!relation.targetReads) return;
  const childUrl = `${records.fixture(relation.target).path}/${String(child.id)}`;
  const after = await records.call('GET', childUrl, token);
  if (relation.onDelete === 'cascade') assert.equal(after.status, 404, `${childUrl} went with ${url}`);
  else {
    assert.equal(after.status, 200, `${childUrl} stays`);
    const want = relation.onDelete === 'setNull' ? null : record.id;
    assert.equal((after.body as JsonObject)[relation.field], want, `${childUrl}: ${relation.field}`);
  }
}
