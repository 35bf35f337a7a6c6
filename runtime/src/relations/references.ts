import type { FastifyRequest } from 'fastify';
import type { Authorizer } from '../auth/authorize.js';
import { gaveAway } from '../auth/owner.js';
import type { Caller } from '../auth/verify.js';
import { ConstraintError, type SqlValue } from '../db/database.js';
import { MISSING_REFERENCE, type Reference } from '../http/errors.js';
import { conflict, HttpProblem, problem, type FieldError } from '../http/problem.js';
import type { Embedder } from './embed.js';

/**
 * Writes (create, replace, patch) whose body names other records by ref fields. A ref must name a record the caller
 * may read by that resource's own `read` rule: one they may not read is answered like one that does not exist, a
 * 409 — so a write never tells whether a record the caller cannot see exists, and nobody attaches their records to
 * someone else's. When the write's foreign key still fails (a record deleted meanwhile, an id nobody has), the 409
 * names exactly the fields whose records are missing.
 */
export class References {
  constructor(
    private readonly embedder: Embedder,
    private readonly authorizer: Authorizer,
    private readonly fields: Readonly<Record<string, Reference>>,
  ) {}

  /**
   * Runs `write` when every ref the request's body sends names a record the caller may read, or, for a PUT or PATCH
   * (`before` gives the record as stored), the record the ref names already: sending back a ref as it is changes
   * nothing, even once its caller lost read access to what it names. `before` is, for a create, its body before and
   * after its owner fields were settled (auth/owner.ts), when the route settles them.
   */
  async write<T>(request: FastifyRequest, write: () => Promise<T>, before?: Settled | Stored): Promise<T> {
    const sent = this.#sent(request.body);
    const owners = before !== undefined && 'sent' in before ? before : undefined;
    if (sent.length > 0) {
      const caller = await this.authorizer.verifiedCaller(request);
      let refused: [string, SqlValue][] = [];
      for (const [field, id] of sent) {
        if (await this.embedder.unreadable(this.#reference(field).to, id, caller)) refused.push([field, id]);
      }
      if (refused.length > 0 && before !== undefined && 'stored' in before) {
        const stored = (await before.stored()) as Readonly<Record<string, unknown>> | undefined;
        refused = refused.filter(([field, id]) => !kept(stored?.[field], id));
        // an owner field changed by a caller who may not give records away: the 403 it is, whether or not the
        // record it names exists (a 409 would say that it does not)
        const keeps = before.keeps ?? [];
        if (refused.some(([field]) => keeps.includes(field))) throw gaveAway(keeps);
      }
      if (refused.length > 0) throw this.#missing(refused, caller);
    }
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof ConstraintError) || error.kind !== 'foreignKey') throw error;
      const missing: [string, SqlValue][] = [];
      for (const [field, id] of sent) {
        if (!(await this.embedder.exists(this.#reference(field).to, id))) missing.push([field, id]);
      }
      if (missing.length > 0) throw this.#missing(missing, await this.authorizer.verifiedCaller(request));
      // every ref sent names a record: an owner field the create filled in with the caller's subject may not (a
      // token for someone with no record); else the route's own words, which name no field sent (a ref's default
      // may be the one missing, or a record deleted meanwhile came back)
      const subject = request.scope?.caller?.subject;
      const filled = owners && subject !== undefined ? this.#filledOwner(owners, subject) : undefined;
      if (filled !== undefined && !(await this.embedder.exists(filled.reference.to, filled.value))) {
        throw ownerNotFound(filled);
      }
      throw conflict(
        request.routeOptions.config.constraintMessages?.foreignKey ?? MISSING_REFERENCE,
        'conflict-reference',
      );
    }
  }

  /** The ref fields of the body with a value (null sets no reference). */
  #sent(body: unknown): [string, SqlValue][] {
    if (typeof body !== 'object' || body === null) return [];
    const values = body as Record<string, unknown>;
    const sent: [string, SqlValue][] = [];
    for (const field in this.fields) {
      const value = values[field];
      if (typeof value === 'string' || typeof value === 'number') sent.push([field, value]);
    }
    return sent;
  }

  /** The owner field that is a ref a create left out and took from the caller's token, when it took exactly one. */
  #filledOwner({ sent, written }: Settled, subject: string): FilledOwner | undefined {
    const before = sent as Readonly<Record<string, unknown>>;
    const after = written as Readonly<Record<string, unknown>>;
    const filled = Object.keys(this.fields).filter(
      (key) => before[key] === undefined && after[key] !== undefined,
    );
    const [field] = filled;
    const value = field === undefined ? undefined : after[field];
    if (filled.length !== 1 || field === undefined) return undefined;
    if (typeof value !== 'string' && typeof value !== 'number') return undefined;
    return { field, value, subject, reference: this.#reference(field) };
  }

  #reference(field: string): Reference {
    const reference = this.fields[field];
    if (reference === undefined) throw new Error(`no ref field ${field}`);
    return reference;
  }

  /**
   * The 409 for refs that name no record the caller may read. Its words depend only on the caller and the resource
   * referred to ("you may read" where the caller reads some of its records only), never on the record itself.
   */
  #missing(fields: readonly [string, SqlValue][], caller: Caller | undefined): HttpProblem {
    const errors: FieldError[] = [];
    const sentences: string[] = [];
    for (const [field, id] of fields) {
      const { to, article, noun } = this.#reference(field);
      const all = this.embedder.readsAll(to, caller);
      sentences.push(
        `no ${noun}${all ? '' : ' you may read'} has the id sent as ${field} (${JSON.stringify(id)})`,
      );
      const message = all
        ? `must be the id of an existing ${noun}`
        : `must be the id of ${article} ${noun} you may read`;
      errors.push({ path: `/${field}`, message });
    }
    return problem('conflict-reference', sentences.join('; '), errors);
  }
}

/** Whether a ref sent is the one stored: the same id (integer ids are numbers in both). */
const kept = (stored: unknown, sent: SqlValue): boolean =>
  (typeof stored === 'string' || typeof stored === 'number') && String(stored) === String(sent);

/**
 * A PUT's or PATCH's record as stored (undefined when there is none, for its owner): the refs it holds need no read
 * check. The write's statement does not repeat the comparison: a ref changed meanwhile is written back as it was.
 */
export interface Stored {
  stored: () => Promise<object | undefined>;
  /** the owner fields the caller must keep as stored (see auth/owner.ts's ownersKept) */
  keeps?: readonly string[];
}

/** A create's body as sent (a nested create's with its parent's ref) and as written, its owner fields settled. */
export interface Settled {
  sent: object;
  written: object;
}

/** An owner field that is a ref, left out of a create and filled with the caller's subject (auth/owner.ts). */
interface FilledOwner {
  field: string;
  /** the value written: the caller's subject as a value of the field */
  value: SqlValue;
  subject: string;
  reference: Reference;
}

/** The 409 of a create whose owner field, left out, took a subject that no record it refers to has as its id. */
const ownerNotFound = ({ field, subject, reference }: FilledOwner): HttpProblem =>
  problem(
    'conflict-reference',
    `${field} was left out, so it took your token's subject (${JSON.stringify(subject)}), and no ${reference.noun} has ` +
      `that id: ${field} refers to ${reference.article} ${reference.noun} by its id, so a caller's token subject must be the id of their ` +
      `own ${reference.noun} (staff and the administrator may send ${field} instead)`,
    [{ path: `/${field}`, message: `must be the id of an existing ${reference.noun}` }],
  );
