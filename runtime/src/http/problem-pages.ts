import type { FastifyInstance } from 'fastify';
import { isProblemKind, PROBLEM_KINDS, type ProblemKind } from './problem-kinds.js';
import { notFound, problemType, requestOrigin } from './problem.js';

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text of the table as HTML: escaped, its `code spans` in <code>. */
export const html = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The page of one kind: what it means and what to do, self-contained (no script, no asset). */
export function problemPage(kind: ProblemKind): string {
  const { status, title, means, todo } = PROBLEM_KINDS[kind];
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${kind} (${status} ${title})</title>` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em}</style></head>\n' +
    `<body><h1>${kind}</h1><p><strong>${status} ${title}</strong>: problem documents whose <code>type</code> is ` +
    `<code>${html(problemType(kind))}</code>.</p>\n<h2>What it means</h2><p>${html(means)}</p>\n` +
    `<h2>What to do</h2><p>${html(todo)}</p>\n</body></html>\n`
  );
}

/** Whether a request's Accept asks for JSON rather than a page (a browser's asks for text/html). */
const wantsJson = (accept: string | undefined): boolean =>
  accept !== undefined && accept.includes('json') && !accept.includes('text/html');

/**
 * `GET <prefix>/problems/<kind>`: each kind's page, where a problem document's `type` leads (see problem.ts); JSON
 * (`{ type, kind, status, title, means, todo }`) to a client that asks for it. Another name is a 404. The pages are
 * not in the OpenAPI document: they document its `Problem` schema's types, they are not part of the API.
 */
export function installProblemPages(api: FastifyInstance): void {
  const pages = new Map<string, string>();
  api.get<{ Params: { kind: string } }>('/problems/:kind', async (request, reply) => {
    const { kind } = request.params;
    if (!isProblemKind(kind)) throw notFound('no problem type has this name');
    const vary = reply.getHeader('vary');
    void reply.header('vary', vary === undefined ? 'Accept' : `${String(vary)}, Accept`);
    if (wantsJson(request.headers.accept)) {
      return reply
        .type('application/json')
        .send({ type: problemType(kind, requestOrigin(request)), kind, ...PROBLEM_KINDS[kind] });
    }
    let page = pages.get(kind);
    if (page === undefined) pages.set(kind, (page = problemPage(kind)));
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .header('x-content-type-options', 'nosniff')
      .send(page);
  });
}
