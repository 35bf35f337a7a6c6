import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { SqlValue } from '../db/database.js';
import { badRequest } from './problem.js';

/** How many cursors each listing remembers issuing, and the longest payload it remembers. */
const MAX_REMEMBERED = 256;
const MAX_REMEMBERED_PAYLOAD = 256;
/** The longest sort keys a cursor holds, in characters of JSON: past it, it names its record instead. */
const MAX_HELD_KEYS = 512;

/**
 * Where a page continues: after the record whose sort keys are `values`; or, when they are too long to hold in a
 * URL, after the record whose id is `record`, its sort keys read again (see Listing).
 */
export type Position = { values: readonly SqlValue[] } | { record: SqlValue };

/** The HMAC key of cursors: CURSOR_SECRET, else one derived from JWT_SECRET, else one made for this process. */
export function cursorKey(secret: string | undefined): Buffer {
  return secret === undefined
    ? randomBytes(32)
    : createHmac('sha256', secret).update('restsmith cursor key').digest();
}

/** A cursor as its listing issued it: the sort it continues and the sort keys of the last record of its page. */
interface Issued {
  cursor: string;
  sort: string;
  values: readonly SqlValue[];
  /** its keys in memory: its scope with its payload, and with the whole cursor */
  byPayload: string;
  byCursor: string;
}

/**
 * The cursors of one listing: `base64url(JSON {s: sort, v: values}).signature` (`{s: sort, r: id}` when the values
 * are too long to hold, see encode), the signature an HMAC-SHA256 of the payload (22 base64url characters) keyed
 * with the server's cursor key made this table's own, so that a forged cursor, or one of another collection, is
 * refused.
 *
 * The last MAX_REMEMBERED cursors issued are remembered: a client paging through a listing sends back the cursor it
 * was just given, and many clients reading the same page are given the same cursor, so most cursors are issued again
 * and taken back without an HMAC or a parse. A cursor is taken back from memory only when it is the very text issued:
 * any other is checked in full, so a forged one costs the same time whatever is remembered. Remembered per `scope`:
 * the owner a listing is restricted to, so that whether a cursor is remembered (which shows in the time to answer)
 * says nothing of what another owner's listings gave; on a listing that is not restricted, it can say that someone
 * who may list the same records was given a page ending at the same record lately — what the database's own cache
 * of recently read pages already says. Bounded: at most MAX_REMEMBERED cursors of payloads at most
 * MAX_REMEMBERED_PAYLOAD characters long (longer ones are signed and checked each time), the oldest forgotten first.
 */
export class Cursors {
  readonly #key: KeyObject;
  readonly #byPayload = new Map<string, Issued>();
  readonly #byCursor = new Map<string, Issued>();

  constructor(key: Buffer, table: string) {
    // an HMAC keyed with a Buffer prepares the key again each time: a KeyObject is prepared once
    this.#key = createSecretKey(createHmac('sha256', key).update(`cursors of ${table}`).digest());
  }

  /** How many cursors are remembered (at most MAX_REMEMBERED). */
  get remembered(): number {
    return this.#byCursor.size;
  }

  /**
   * The cursor of the page after a record whose sort keys (in `sort`'s order) are `values` and whose id is `record`,
   * issued within `scope` (the owner the listing is restricted to, or ''; null: not remembered). Sort keys longer
   * than MAX_HELD_KEYS are not held: the cursor names the record (a text of kilobytes would make a URL too long).
   */
  encode(sort: string, values: readonly SqlValue[], scope: string | null, record?: SqlValue): string {
    const json = JSON.stringify({ s: sort, v: values });
    if (record !== undefined && json.length > MAX_HELD_KEYS + sort.length) {
      // the scope signed in (see decode)
      const payload = Buffer.from(JSON.stringify({ s: sort, r: record, o: scope ?? '' })).toString(
        'base64url',
      );
      return `${payload}.${this.#sign(payload)}`;
    }
    const payload = Buffer.from(json).toString('base64url');
    const known = scope === null ? undefined : this.#byPayload.get(`${scope}\0${payload}`);
    if (known !== undefined) return known.cursor;
    const cursor = `${payload}.${this.#sign(payload)}`;
    if (scope !== null && payload.length <= MAX_REMEMBERED_PAYLOAD) {
      this.#remember({
        cursor,
        sort,
        // the values as a cursor taken back gives them (through JSON), not as the caller's row held them
        values: Object.freeze((JSON.parse(json) as { v: SqlValue[] }).v),
        byPayload: `${scope}\0${payload}`,
        byCursor: `${scope}\0${cursor}`,
      });
    }
    return cursor;
  }

  /**
   * Where `cursor` continues: a 400 unless this listing issued it for `sort` (of `keys` keys). `scope`: the owner
   * the listing is restricted to, or '' (see encode).
   */
  decode(cursor: string, sort: string, keys: number, scope: string): Position {
    const known = this.#byCursor.get(`${scope}\0${cursor}`);
    if (known !== undefined) {
      if (known.sort !== sort || known.values.length !== keys) throw anotherSort();
      return { values: known.values };
    }
    const { s, v, r, o } = this.#verify(cursor);
    if (s !== sort) throw anotherSort();
    if (typeof r === 'string' || typeof r === 'number') {
      // a record's keys are read whoever may see it: only the listing of the scope it was issued in takes it back
      if (o !== scope) throw invalidCursor("belongs to another caller's listing: start again without it");
      return { record: r };
    }
    if (!Array.isArray(v) || v.length !== keys) throw anotherSort();
    return { values: v as SqlValue[] };
  }

  #verify(cursor: string): { s: unknown; v: unknown; r: unknown; o: unknown } {
    const [payload = '', signature = '', ...more] = cursor.split('.');
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(signature);
    if (more.length > 0 || given.length !== expected.length || !timingSafeEqual(given, expected))
      throw invalidCursor('is not a cursor this listing issued');
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      s: unknown;
      v: unknown;
      r: unknown;
      o: unknown;
    };
  }

  #remember(issued: Issued): void {
    if (this.#byPayload.size >= MAX_REMEMBERED) {
      const oldest = this.#byPayload.values().next().value;
      if (oldest !== undefined) {
        this.#byPayload.delete(oldest.byPayload);
        this.#byCursor.delete(oldest.byCursor);
      }
    }
    this.#byPayload.set(issued.byPayload, issued);
    this.#byCursor.set(issued.byCursor, issued);
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url').slice(0, 22);
  }
}

/** The 400 of a cursor this listing cannot take. */
export const invalidCursor = (message: string) =>
  badRequest('the cursor is not valid', [{ path: '/cursor', message }]);

const anotherSort = () => invalidCursor('belongs to another sort: start again without it');
