import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import { generateFresh, typecheckAndBuild, WORK } from './project.js';

/**
 * The project the tests of request ids, logs and traces (SPEC §11) serve: orders, with events and webhooks; its
 * user-owned hooks and routes replaced by ones that fail, log a request the way careless code does, and hold the
 * event loop.
 */
const DEFINITION = `
name: traced
version: 1.0.0
prefix: /api
events:
  webhooks: true
resources:
  orders:
    fields: { note: string }
    access: { list: authenticated, read: authenticated, create: authenticated, update: authenticated, delete: authenticated }
`;

/** src/hooks.ts: `x-fail: hook` makes a hook throw; `x-log-request` makes one log the headers and the request. */
const HOOKS = `import type { FastifyInstance } from 'fastify';

export async function registerHooks(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (request) => {
    if (request.headers['x-fail'] === 'hook') throw new Error('a hook failed');
    if (request.headers['x-log-request'] !== undefined) {
      request.log.info({ headers: request.headers }, 'the headers, as careless code logs them');
      request.log.debug({ req: request }, 'the request, as careless code logs it');
      request.log.warn(\`careless code logs the url: \${request.url}\`);
    }
  });
}
`;

/**
 * src/routes.ts: GET /api/block?ms=N holds the event loop for N ms, in slices of 200 ms (a statement, or any work,
 * that blocks): the event loop's delay is then over 200 ms at every one of its samples.
 */
const ROUTES = `import type { FastifyInstance, RouteDependencies } from './extend.js';

export async function registerRoutes(api: FastifyInstance, _dependencies: RouteDependencies): Promise<void> {
  api.get<{ Querystring: { ms?: string } }>('/block', async (request) => {
    const end = Date.now() + Number(request.query.ms ?? 0);
    while (Date.now() < end) {
      const slice = Math.min(end, Date.now() + 200);
      while (Date.now() < slice) {
        // busy
      }
      await new Promise((next) => setImmediate(next));
    }
    return { blocked: true };
  });
}
`;

/** A check loaded before the server (\`--require\`): at exit, it says how many OpenTelemetry modules were loaded. */
const LOADED_CHECK = `process.on('exit', () => {
  const loaded = Object.keys(require('node:module')._cache).filter((path) => /@opentelemetry|@fastify[\\\\/]otel/.test(path));
  process.stderr.write('opentelemetry modules loaded: ' + loaded.length + '\\n');
});
`;

/** Generates, changes and builds the project into .tmp/`name`; returns its directory. */
export async function tracedProject(name: string): Promise<string> {
  mkdirSync(WORK, { recursive: true });
  const file = join(WORK, `${name}.yaml`);
  writeFileSync(file, DEFINITION);
  const dir = await generateFresh(file, name);
  writeFileSync(join(dir, 'src/hooks.ts'), HOOKS);
  writeFileSync(join(dir, 'src/routes.ts'), ROUTES);
  writeFileSync(join(dir, 'loaded-check.cjs'), LOADED_CHECK);
  await typecheckAndBuild(dir);
  return dir;
}

/** What `npm start` runs before dist/main.js, and the check of what was loaded. */
export const PRELOAD = ['--import', './dist/telemetry/preload.js', '--require', './loaded-check.cjs'];

/** The number of OpenTelemetry modules a server that has exited said it loaded. */
export const openTelemetryModulesLoaded = (output: string): number =>
  Number(/opentelemetry modules loaded: (\d+)/.exec(output)?.[1] ?? NaN);

/** An HTTP server of the test's on 127.0.0.1, and the URL it listens at. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}

/** One request a receiver got. */
export interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver that answers every request `status` and keeps what it got (webhooks, OTLP exports). */
export function receiver(status = 200): { server: Server; received: Received[] } {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ url: request.url ?? '/', headers: request.headers, body });
      response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { server, received };
}

/** A span as OTLP/JSON carries it (the fields the tests read), with its resource's and its scope's names. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status?: { code?: number; message?: string };
  scope: string;
  service: unknown;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

const valueOf = (value: AnyValue): unknown =>
  value.stringValue ??
  (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
  value.boolValue ??
  value.arrayValue?.values.map(valueOf);

const attributesOf = (list: KeyValue[] = []): Record<string, unknown> =>
  Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));

/** The spans of OTLP/JSON export requests (POST /v1/traces). */
export function spansOf(exports: Received[]): ExportedSpan[] {
  return exports
    .filter((r) => r.url === '/v1/traces')
    .flatMap((r) => {
      const body = JSON.parse(r.body) as {
        resourceSpans: {
          resource: { attributes: KeyValue[] };
          scopeSpans: {
            scope: { name: string };
            spans: (Omit<ExportedSpan, 'attributes' | 'scope' | 'service'> & { attributes: KeyValue[] })[];
          }[];
        }[];
      };
      return body.resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => ({
            ...span,
            attributes: attributesOf(span.attributes),
            scope: scope.scope.name,
            service: attributesOf(resource.resource.attributes)['service.name'],
          })),
        ),
      );
    });
}

/** Waits (at most `ms`) until `check` gives a value. */
export async function waitFor<T>(what: string, check: () => T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((wait) => setTimeout(wait, 50));
  }
}
