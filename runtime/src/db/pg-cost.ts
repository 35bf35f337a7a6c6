import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { postgresCost, type Cost, type PlanNode } from './cost.js';
import { withClient } from './pg-session.js';

/**
 * The cost class of a statement (see cost.ts), from its generic plan (the one for any values of its parameters) with
 * sequential scans and sorts disabled: a plan that still has one has nothing else to answer with, whatever the
 * table's statistics say. All of it in one transaction opened by `begin` (see pg-session.ts), on one connection: the
 * settings are the transaction's (SET LOCAL), and the statement prepared for the plan is deallocated before it
 * commits, whatever the plan did (a savepoint undoes a failed EXPLAIN first: a prepared statement is not undone by a
 * rollback). So nothing of it stays on the backend, which a transaction-mode pooler hands to others next; its name is
 * one no other connection uses.
 */
export async function costOf(pool: pg.Pool, text: string, begin: string): Promise<Cost> {
  const name = `restsmith_cost_${randomUUID().replaceAll('-', '')}`;
  return withClient(pool, async (client, broke) => {
    // a connection that cannot even end its transaction is not given back to the pool
    const failed = (error: unknown): void => broke(error instanceof Error ? error : new Error(String(error)));
    try {
      await client.query(
        `${begin}; SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off; ` +
          `SET LOCAL plan_cache_mode = force_generic_plan; PREPARE ${name} AS ${text}; SAVEPOINT restsmith_cost`,
      );
    } catch (error) {
      await client.query('ROLLBACK').catch(failed);
      throw error;
    }
    try {
      const count = Math.max(0, ...Array.from(text.matchAll(/\$([0-9]+)/g), (match) => Number(match[1])));
      const nulls = Array.from({ length: count }, () => 'NULL').join(', ');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (FORMAT JSON) EXECUTE ${name}${count > 0 ? `(${nulls})` : ''}`,
      );
      const plan = JSON.parse(rows[0]?.['QUERY PLAN'] ?? '[]') as { Plan: PlanNode }[];
      return plan[0] === undefined ? 'scans' : postgresCost(plan[0].Plan);
    } finally {
      await client.query(`ROLLBACK TO SAVEPOINT restsmith_cost; DEALLOCATE ${name}; COMMIT`).catch(failed);
    }
  });
}
