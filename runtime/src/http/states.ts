import type { JsonValue } from '../types.js';
import { HttpProblem, problem } from './problem.js';

/**
 * The states in which a record may be written (`update: { access, when }` in the definition): each field holds one
 * of its values. The write's own statement checks it (see the store); this only explains a refusal.
 */
export type States = readonly { field: string; values: readonly JsonValue[] }[];

/** Whether `record`'s field holds one of a condition's values (an absent field is null). */
const holds = (record: object, w: States[number]): boolean =>
  w.values.includes((record as Record<string, JsonValue | undefined>)[w.field] ?? null);

/** Whether `record` is in `when`'s states: each field holds one of its values. */
export const inStates = (record: object, when: States): boolean => when.every((w) => holds(record, w));

const quoted = (values: readonly JsonValue[]): string => values.map((v) => JSON.stringify(v)).join(', ');

/** `status is "booked"`, `status is one of "booked", "waiting"`, joined by `and`. */
const describe = (when: States): string =>
  when.map((w) => `${w.field} is ${w.values.length === 1 ? '' : 'one of '}${quoted(w.values)}`).join(' and ');

/**
 * Why a write whose statement changed nothing, although the record exists at the version asked for, was refused: a
 * 409 naming the states its rule allows and the record's, when it is in none of them; else `otherwise` (an owner
 * given away, see auth/owner.ts); else the record changed between the write and this read (or went): a 409 to try
 * again. The record's state is left out when it is not `shown`: its caller may write it but not read it.
 */
export function whyRefused(
  record: object | undefined,
  options: { when: States; what: string; otherwise?: () => Error },
  shown = true,
): Error {
  const changed = problem(
    'conflict-concurrent',
    'the record changed while it was being written: read it, try again',
  );
  if (record === undefined) return changed;
  const current = record as Record<string, JsonValue | undefined>;
  const outside = options.when.filter((w) => !holds(record, w));
  if (outside.length > 0) {
    const state = outside.map((w) => `${w.field} is ${JSON.stringify(current[w.field] ?? null)}`).join(', ');
    const detail = `${options.what} only while ${describe(options.when)}`;
    return new HttpProblem(409, 'Conflict', shown ? `${detail}; its ${state}` : detail);
  }
  return options.otherwise?.() ?? changed;
}
