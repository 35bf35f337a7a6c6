import type { onRequestHookHandler } from 'fastify';

/** A deprecated resource or action, as the definition says: dates as YYYY-MM-DD (UTC). */
export interface Deprecation {
  since: string;
  sunset?: string;
  link?: string;
}

/**
 * The headers every response of a deprecated resource or action carries: `Deprecation: @<unix time>` (RFC 9745),
 * `Sunset: <HTTP-date>` (RFC 8594) and `Link: <…>; rel="deprecation"` when the definition gives them.
 */
export function deprecationHeaders({ since, sunset, link }: Deprecation): Record<string, string> {
  const midnight = (date: string): Date => new Date(`${date}T00:00:00Z`);
  return {
    deprecation: `@${Math.floor(midnight(since).getTime() / 1000)}`,
    ...(sunset !== undefined && { sunset: midnight(sunset).toUTCString() }),
    // the URL as `new URL` writes it: percent-encoded, so that no `>` or quote can end the link early
    ...(link !== undefined && { link: `<${new URL(link).href}>; rel="deprecation"; type="text/html"` }),
  };
}

/** A route's onRequest hook that sets them first, so that every answer has them, errors included. */
export function announceDeprecation(deprecation: Deprecation): onRequestHookHandler {
  const headers = deprecationHeaders(deprecation);
  return (_request, reply, done) => {
    void reply.headers(headers);
    done();
  };
}
