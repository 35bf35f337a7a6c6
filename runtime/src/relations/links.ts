import type { Database, SqlValue } from '../db/database.js';
import type { EventLog } from '../events/log.js';
import type { RelationMap, RelationTarget } from './embed.js';
import { numbered, ownedBy, param, q, Statements } from './sql.js';

/**
 * The links of many-to-many relations (`PUT /books/{id}/tags/{tagId}` and its DELETE): a link is a record of the
 * join resource, made by its store (its defaults, owner and timestamps); here are what the routes ask of the rows
 * themselves, whether two records are linked and the removal of a link.
 */
export class Links {
  readonly #statements: Statements;

  constructor(
    private readonly db: Database,
    private readonly targets: Readonly<Record<string, RelationTarget>>,
    private readonly relations: RelationMap,
    /** with `events`: each link removed records `<join>.deleted` in the transaction of its removal */
    private readonly events: EventLog | null = null,
  ) {
    this.#statements = new Statements(db);
  }

  /** Whether a row of the join links `id` (of `resource`) to `otherId`, whoever owns it. */
  async linked(resource: string, relation: string, id: SqlValue, otherId: SqlValue): Promise<boolean> {
    const { join, near, far, kinds } = this.#through(resource, relation);
    const d = this.db.dialect;
    const sql =
      `SELECT 1 AS ${q('found')} FROM ${q(join.table)} ` +
      `WHERE ${q(near)} = ${param(d, 1, kinds[0])} AND ${q(far)} = ${param(d, 2, kinds[1])} LIMIT 1`;
    return (await this.#statements.of(sql).get([id, otherId])) !== undefined;
  }

  /**
   * Removes the links of `id` to `otherId`; how many went. `owner` is the scope of the join's delete rule (see
   * auth/authorize.ts): when it is a subject, only the links that subject owns.
   */
  async unlink(
    resource: string,
    relation: string,
    id: SqlValue,
    otherId: SqlValue,
    owner: string | null,
    actor: string | null = null,
  ): Promise<number> {
    const { join, joinResource, near, far, kinds } = this.#through(resource, relation);
    const d = this.db.dialect;
    const scope = owner === null || join.owner === undefined ? undefined : join.owner.value(owner);
    const params: SqlValue[] = [id, otherId];
    const sql =
      `DELETE FROM ${q(join.table)} WHERE ${q(near)} = ${param(d, 1, kinds[0])} AND ${q(far)} = ${param(d, 2, kinds[1])}` +
      (scope === undefined ? '' : ` AND ${ownedBy(join, scope, numbered(d, params))}`);
    if (this.events === null) return this.#statements.of(sql).run(params);
    // the links removed, each with what its event says: its id and version, and its owners for the feed's filter
    const owners = join.owner?.columns ?? [];
    const returning = ` RETURNING ${['id', 'version', ...owners].map(q).join(', ')}`;
    const removed = await this.events.record(
      { statement: this.#statements.of(sql + returning), values: params },
      joinResource,
      'deleted',
      actor,
      (row) => ({
        recordId: row.id as string | number,
        version: Number(row.version),
        record: null,
        owners: owners.map((column) => row[column] ?? null),
      }),
    );
    return removed.length;
  }

  #through(resource: string, relation: string) {
    const link = this.relations[resource]?.[relation];
    const join = link?.through === undefined ? undefined : this.targets[link.through.resource];
    const [parent, other] = [
      this.targets[resource],
      link === undefined ? undefined : this.targets[link.target],
    ];
    if (link?.through === undefined || join === undefined || parent === undefined || other === undefined) {
      throw new Error(`no many-to-many relation ${resource}.${relation}`);
    }
    return {
      join,
      joinResource: link.through.resource,
      near: link.through.near,
      far: link.through.far,
      kinds: [parent.idKind, other.idKind] as const,
    };
  }
}
