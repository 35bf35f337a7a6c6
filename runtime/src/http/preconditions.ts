import { HttpProblem } from './problem.js';

/** What an `If-Match` header asks: nothing (null), any current version (`*`), or one of some versions. */
export type IfMatch = null | '*' | number[];

/** An entity-tag of RFC 9110: optionally weak, then quoted characters (no quote, no control character). */
const ENTITY_TAG = /^(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/**
 * Parses `If-Match`. ETags are `"<version>"`; weak ones never match (RFC 9110 compares If-Match strongly). A header
 * that is not `*` or a list of entity-tags is a 400: a client bug to fix, not a record that changed.
 */
export function parseIfMatch(header: string | undefined): IfMatch {
  if (header === undefined) return null;
  if (header.trim() === '*') return '*';
  const tags = header.split(',').map((tag) => tag.trim());
  if (!tags.every((tag) => ENTITY_TAG.test(tag))) {
    throw new HttpProblem(
      400,
      'Bad Request',
      'If-Match must be * or ETags as the API sends them, quoted (like "3")',
    );
  }
  return tags.flatMap((tag) => {
    const match = /^"(\d+)"$/.exec(tag);
    const version = Number(match?.[1]);
    // a tag no version can have (not a safe integer) matches nothing: the write gets a 412, not a database error
    return Number.isSafeInteger(version) ? [version] : [];
  });
}

/** Whether a record at `version` is one `If-Match` names (none: any version); a handler's action checks it so. */
export const matchesIfMatch = (ifMatch: IfMatch, version: number): boolean =>
  ifMatch === null || ifMatch === '*' || ifMatch.includes(version);

export const preconditionFailed = (): HttpProblem =>
  new HttpProblem(
    412,
    'Precondition Failed',
    'the record changed since the ETag sent in If-Match: read it again',
  );

/**
 * The version a conditional write must find (null: an unconditional write). One ETag is used as it is; `*` or a
 * list is checked against the current version, and the write is then guarded by that version, so that check
 * and write stay one atomic statement. A record that does not exist gets 0, which no version matches.
 */
export async function expectedVersion(
  ifMatch: IfMatch,
  current: () => Promise<number | undefined>,
): Promise<number | null> {
  if (ifMatch === null) return null;
  if (Array.isArray(ifMatch) && ifMatch.length === 1) return ifMatch[0] ?? 0;
  const version = await current();
  if (version === undefined) return 0;
  if (ifMatch !== '*' && !ifMatch.includes(version)) throw preconditionFailed();
  return version;
}

/**
 * A conditional write: `write` runs with the version `If-Match` asks for; when it changes nothing, the answer is
 * `missing()` if the record does not exist, 412 if it exists at another version than the one asked for, and else
 * what `refused` says: the write's own conditions refused it (a state it may not be written in, an owner it may not
 * give away). `current` reads the record's version.
 */
export async function writeIfMatch<T>(
  header: string | undefined,
  current: () => Promise<number | undefined>,
  write: (expected: number | null) => Promise<T | undefined>,
  missing: () => HttpProblem,
  refused?: () => Error | Promise<Error>,
): Promise<T> {
  const ifMatch = parseIfMatch(header);
  // without If-Match nothing is read first, and nothing is awaited (each await is a promise and a microtask)
  const expected = ifMatch === null ? null : await expectedVersion(ifMatch, current);
  const written = await write(expected);
  if (written !== undefined) return written;
  const version = await current();
  if (version === undefined) throw missing();
  if (expected !== null && version !== expected) throw preconditionFailed();
  if (refused === undefined) throw ifMatch !== null ? preconditionFailed() : missing();
  throw await refused();
}
