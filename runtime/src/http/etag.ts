/** A strong ETag made from a record's version, which every write increments. */
export const etagOf = (version: number): string => `"${version}"`;

/** True when an `If-None-Match` header names `etag` (or is `*`): the client's copy is current. */
export function isFresh(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const candidate = tag.trim();
    return candidate === '*' || candidate === etag || candidate === `W/${etag}`;
  });
}
