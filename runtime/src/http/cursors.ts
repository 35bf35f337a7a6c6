import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { SqlValue } from '../db/database.js';
import { badRequest } from './problem.js';

/** How many cursors each listing remembers issuing, and the longest payload it remembers. */
const MAX_REMEMBERED = 256;
const MAX_REMEMBERED_PAYLOAD = 256;

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
}

/**
 * The cursors of one listing: `base64url(JSON {s: sort, v: values}).signature`, the signature an HMAC-SHA256 of the
 * payload (22 base64url characters) keyed with the server's cursor key made this table's own, so that a forged
 * cursor, or one of another collection, is refused.
 *
 * The last MAX_REMEMBERED cursors issued are remembered: a client paging through a listing sends back the cursor it
 * was just given, and many clients reading the same page are given the same cursor, so most cursors are issued again
 * and taken back without an HMAC or a parse. What is remembered is keyed by the whole cursor when taken back: a cursor
 * whose signature is not the one issued is checked in full, as it would be if nothing were remembered, so its time
 * says nothing of what others were given. Bounded: at most MAX_REMEMBERED cursors of payloads at most
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

  /** The cursor of the page after a record whose sort keys (in `sort`'s order) are `values`. */
  encode(sort: string, values: readonly SqlValue[]): string {
    const json = JSON.stringify({ s: sort, v: values });
    const payload = Buffer.from(json).toString('base64url');
    const known = this.#byPayload.get(payload);
    if (known !== undefined) return known.cursor;
    const cursor = `${payload}.${this.#sign(payload)}`;
    if (payload.length <= MAX_REMEMBERED_PAYLOAD) {
      // the values as a cursor taken back gives them (through JSON), not as the caller's row held them
      this.#remember(
        { cursor, sort, values: Object.freeze((JSON.parse(json) as { v: SqlValue[] }).v) },
        payload,
      );
    }
    return cursor;
  }

  /** The sort keys `cursor` continues after: a 400 unless this listing issued it for `sort` (of `keys` keys). */
  decode(cursor: string, sort: string, keys: number): readonly SqlValue[] {
    const known = this.#byCursor.get(cursor);
    const { s, v } = known === undefined ? this.#verify(cursor) : { s: known.sort, v: known.values };
    if (s !== sort || !Array.isArray(v) || v.length !== keys)
      throw invalidCursor('belongs to another sort: start again without it');
    return v;
  }

  #verify(cursor: string): { s: unknown; v: unknown } {
    const [payload = '', signature = '', ...more] = cursor.split('.');
    const expected = Buffer.from(this.#sign(payload));
    const given = Buffer.from(signature);
    if (more.length > 0 || given.length !== expected.length || !timingSafeEqual(given, expected))
      throw invalidCursor('is not a cursor this listing issued');
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { s: unknown; v: unknown };
  }

  #remember(issued: Issued, payload: string): void {
    if (this.#byPayload.size >= MAX_REMEMBERED) {
      const [oldest, forgotten] = this.#byPayload.entries().next().value ?? [];
      if (oldest !== undefined) this.#byPayload.delete(oldest);
      if (forgotten !== undefined) this.#byCursor.delete(forgotten.cursor);
    }
    this.#byPayload.set(payload, issued);
    this.#byCursor.set(issued.cursor, issued);
  }

  #sign(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url').slice(0, 22);
  }
}

const invalidCursor = (message: string) =>
  badRequest('the cursor is not valid', [{ path: '/cursor', message }]);
