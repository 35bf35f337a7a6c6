import assert from 'node:assert/strict';
import { subjectOf, tokenOf } from './access.js';
import { tokens, type Json, type JsonObject } from './harness.js';
import { everyItem } from './listing.js';
import { idsOf, sees, seesLinks, type Family, type Relation, type Relations } from './relations.js';

/**
 * What relations show a caller when they read: `?include=` (on a read and on the listing) and filters through a
 * relation — each related record only where the caller may read it by its own resource's `read` rule (and, for a
 * many-to-many relation, the link by the join's).
 */

/** The caller's index, subject and token, by the record of the family (`owner` is its owner). */
async function callerOf(relations: Relations, relation: Relation, family: Family, caller: string) {
  const { owner, path } = relations.parentOf(relation, family.record);
  return {
    i: relation.callers.indexOf(caller),
    subject: subjectOf(caller, owner),
    token: await tokenOf(caller, owner),
    path,
  };
}

/**
 * The collection's listing of the family's record alone, its relation embedded: a page of one, which
 * `limits.include.maxRecords` counts as one record (a page of the default size could embed more than it allows).
 */
const listingOf = (relations: Relations, relation: Relation, family: Family): string =>
  `${relations.records.fixture(relation.collection).path}?id=${encodeURIComponent(String(family.record.id))}` +
  `&limit=1&include=${relation.relation}`;

/** Whether the caller sees a related record: by the target's read rule, and the link's (undefined: not checked, see seesLinks). */
function seesRelated(relation: Relation, i: number, record: JsonObject, subject: string | undefined) {
  return sees(relation.reads[i], record, relation.owners, subject) ? seesLinks(relation, i) : false;
}

/**
 * The related records an embed may show: the family's, or the record referred to as the administrator sees it
 * embedded — in the listing (`?id=`) where there is one, else on the read.
 */
async function relatedOf(relations: Relations, relation: Relation, family: Family, path: string) {
  if (relation.kind === 'many') return family.related;
  const lists = relation.collectionLists[relation.callers.indexOf('administrator')] === 'all';
  const url = lists ? listingOf(relations, relation, family) : `${path}?include=${relation.relation}`;
  const admin = await relations.records.call('GET', url, await tokens.administrator());
  assert.equal(admin.status, 200, `GET ${url}: ${JSON.stringify(admin.body)}`);
  const body = lists ? (admin.body as { items: JsonObject[] }).items[0] : (admin.body as JsonObject);
  const record = (body?.[relation.relation] ?? null) as JsonObject | null;
  assert.ok(
    record !== null && record.id === family.record[relation.field],
    `${url} embeds the record referred to`,
  );
  return [record];
}

/** An embedded relation against what the caller may read of `related`. */
function checkEmbedded(
  relation: Relation,
  embedded: Json | undefined,
  visible: JsonObject[],
  what: string,
): void {
  if (relation.kind === 'one') {
    const want = visible[0]?.id ?? null;
    assert.equal(embedded === null ? null : (embedded as JsonObject | undefined)?.id, want, what);
    return;
  }
  const page = embedded as { items: JsonObject[]; nextCursor: string | null };
  const ids = idsOf(visible);
  for (const id of idsOf(page.items)) assert.ok(ids.includes(id), `${what} embeds ${String(id)}`);
  if (page.nextCursor === null) assert.deepEqual(idsOf(page.items), ids, what);
  else assert.ok(page.items.length > 0, `${what}: a page with a next one holds records`);
}

/**
 * `?include=<relation>` as a caller who reads the record: on the read, and on the listing (`?id=`) when they list it,
 * a to-one relation embeds the record or null, a to-many one exactly the records they may read.
 */
export async function checkInclude(relations: Relations, relation: Relation, caller: string): Promise<void> {
  const { records } = relations;
  const family = await relations.family(relation);
  const { i, subject, token, path } = await callerOf(relations, relation, family, caller);
  const related = await relatedOf(relations, relation, family, path);
  const seen = related.map((r) => seesRelated(relation, i, r, subject));
  if (seen.includes(undefined)) return; // links owned by the records they name: not checked
  const visible = related.filter((_, n) => seen[n] === true);
  const url = `${path}?include=${relation.relation}`;
  const read = await records.call('GET', url, token);
  assert.equal(read.status, 200, `GET ${url} as ${caller}: ${JSON.stringify(read.body)}`);
  checkEmbedded(relation, (read.body as JsonObject)[relation.relation], visible, `${url} as ${caller}`);
  if (!sees(relation.collectionLists[i], family.record, relation.collectionOwners, subject)) return;
  const listing = listingOf(relations, relation, family);
  const answer = await records.call('GET', listing, token);
  assert.equal(answer.status, 200, `GET ${listing} as ${caller}: ${JSON.stringify(answer.body)}`);
  const [item, ...more] = (answer.body as { items: JsonObject[] }).items;
  assert.ok(item !== undefined && more.length === 0, `GET ${listing} as ${caller} lists the record`);
  checkEmbedded(relation, item[relation.relation], visible, `${listing} as ${caller}`);
}

/** An unknown relation in `include`, or a path deeper than `limits.includeDepth`, is a 400. */
export async function checkIncludeRefused(relations: Relations, relation: Relation): Promise<void> {
  const family = await relations.family(relation);
  const path = relations.parentOf(relation, family.record).path;
  const token = await tokens.administrator();
  for (const include of [
    `${relation.relation}NotARelation`,
    ...(relation.tooDeep === undefined ? [] : [relation.tooDeep]),
  ]) {
    const answer = await relations.records.call('GET', `${path}?include=${include}`, token);
    assert.equal(answer.status, 400, `GET ${path}?include=${include}: ${JSON.stringify(answer.body)}`);
  }
}

const scalar = (v: Json | undefined): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/**
 * The listing filtered through the relation on a value of a related record (`?<relation>.<field>=<value>`), as a
 * caller who lists the collection: the record is listed exactly when the caller lists it and may read a related
 * record that has the value; as the administrator, to-one, every record listed has it.
 */
export async function checkFilter(
  relations: Relations,
  relation: Relation,
  caller: string,
): Promise<string | undefined> {
  const { records } = relations;
  const family = await relations.family(relation);
  const { i, subject, token, path } = await callerOf(relations, relation, family, caller);
  const related = await relatedOf(relations, relation, family, path);
  const field = relation.filters.find((f) => scalar(related[0]?.[f]));
  if (field === undefined) return 'no related record has a value to filter on';
  const seen = related.map((r) => seesRelated(relation, i, r, subject));
  if (seen.includes(undefined)) return 'links owned by the records they name: not checked';
  const value = related[0]?.[field] as string | number | boolean;
  const filter = `${relation.relation}.${field}=${encodeURIComponent(String(value))}`;
  const items = await everyItem(
    records,
    records.fixture(relation.collection).path,
    `&${filter}&include=${relation.relation}`,
    1,
    token,
  );
  const listed = items.some((item) => item.id === family.record.id);
  const want =
    sees(relation.collectionLists[i], family.record, relation.collectionOwners, subject) &&
    related.some((r, n) => r[field] === value && seen[n] === true);
  assert.equal(listed, want, `${filter} as ${caller} ${want ? 'lists' : 'does not list'} the record`);
  if (caller === 'administrator' && relation.kind === 'one')
    for (const item of items)
      assert.equal(
        ((item[relation.relation] ?? null) as JsonObject | null)?.[field],
        value,
        `${filter}: ${String(item.id)}`,
      );
  return undefined;
}
