import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type * as Prometheus from 'prom-client';
import { REFUSALS, refusalOf, type Refusal } from '../http/refusals.js';

/** The `route` of a request that no route matched (a 404 of an unknown path): a route's pattern starts with `/`. */
export const UNMATCHED = 'unmatched';

/** Seconds: GET of one record takes well under a millisecond of the server's time, a listing that scans seconds. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The methods a request is counted under by name; any other (Node's parser takes some 30: PROPFIND, MKCOL…, which
 * any client may send to any path) is counted as `other`, so that a client cannot multiply the series by them.
 */
const LABELLED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
export const OTHER_METHOD = 'other';

type Labels = { method: string; route: string; status: string };

/** The requests of one route, method and status: how many, their durations' sum, and how many in each bucket. */
interface Series {
  labels: Labels;
  count: number;
  sum: number;
  /** by bucket, the requests whose duration is at most its bound and above the one before (the last: above all) */
  buckets: number[];
}

type Counted = (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;

/**
 * Counts every request answered, by method, route and status, with its duration (from its arrival to the last byte of
 * its answer, Fastify's `reply.elapsedTime`), and the requests refused, by reason (see http/refusals.ts). `route` is
 * the route's pattern (`/api/books/:id`), never the URL asked: the series stay as few as the routes. Each route gets
 * an onResponse hook of its own when it is added, which knows its pattern and keeps the series of the methods and
 * statuses it answered; a request no route matched is counted by one hook for all (`route="unmatched"`). A refusal
 * is counted in an onError hook, from the reason its error carries: only errors pass there.
 *
 * A request adds to plain numbers (a count, a sum, a bucket), which the scrape reads: prom-client's own `inc` and
 * `observe` validate and hash the labels at every call, about 0.8 µs a request where these take a few nanoseconds.
 */
export function countRequests(
  app: FastifyInstance,
  client: typeof Prometheus,
  registry: Prometheus.Registry,
): void {
  const all: Series[] = [];
  const counting = (route: string): Counted => {
    const byKey = new Map<string, Series>();
    return (request, reply, done) => {
      const status = reply.statusCode;
      const method = LABELLED_METHODS.has(request.method) ? request.method : OTHER_METHOD;
      const key = `${method} ${status}`;
      let series = byKey.get(key);
      if (series === undefined) {
        const labels = { method, route, status: String(status) };
        series = {
          labels,
          count: 0,
          sum: 0,
          buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0),
        };
        byKey.set(key, series);
        all.push(series);
      }
      const seconds = reply.elapsedTime / 1000;
      let bucket = 0;
      while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] ?? Infinity))
        bucket += 1;
      series.count += 1;
      series.sum += seconds;
      series.buckets[bucket] = (series.buckets[bucket] ?? 0) + 1;
      done();
    };
  };
  app.addHook('onRoute', (route) => {
    const hook = counting(route.url);
    route.onResponse = route.onResponse === undefined ? [hook] : [route.onResponse, hook].flat();
  });
  const unmatched = counting(UNMATCHED);
  app.addHook('onResponse', (request, reply, done) =>
    request.is404 ? unmatched(request, reply, done) : done(),
  );
  exposeRequests(registry, all);

  const refusals = Object.fromEntries(REFUSALS.map((reason) => [reason, 0])) as Record<Refusal, number>;
  app.addHook('onError', (_request, _reply, error, done) => {
    const reason = refusalOf(error);
    if (reason !== undefined) refusals[reason] += 1;
    done();
  });
  new client.Counter({
    name: 'restsmith_requests_refused_total',
    help: 'Requests refused before they were served, by reason: the rate limit, the caps on listings that scan, an overloaded event loop, the caps on event streams.',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      // every reason from 0: a rate() over one needs its first value
      for (const reason of REFUSALS) this.inc({ reason }, refusals[reason]);
    },
  });
}

/**
 * The counter and the histogram of `all`, as prom-client's registry reads a metric (`get`, the values of each sample):
 * it writes them in the text format with the others.
 */
function exposeRequests(registry: Prometheus.Registry, all: readonly Series[]): void {
  const family = (
    name: string,
    type: 'counter' | 'histogram',
    help: string,
    values: () => Prometheus.MetricValueWithName<string>[],
  ): void => {
    const metric = { name, help, type, aggregator: 'sum' as const };
    const get = async () => ({ ...metric, values: values() });
    registry.registerMetric({ ...metric, get, reset: () => undefined } as unknown as Prometheus.Metric);
  };
  family('http_requests_total', 'counter', 'Requests answered, by method, route pattern and status.', () =>
    all.map(({ labels, count }) => ({ labels, value: count })),
  );
  const name = 'http_request_duration_seconds';
  family(
    name,
    'histogram',
    'Time from a request’s arrival to the end of its answer, by method, route pattern and status.',
    () =>
      all.flatMap(({ labels, count, sum, buckets }) => {
        let below = 0;
        const bounds = DURATION_BUCKETS.map((le, i) => {
          below += buckets[i] ?? 0;
          return { metricName: `${name}_bucket`, labels: { ...labels, le }, value: below };
        });
        return [
          ...bounds,
          { metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count },
          { metricName: `${name}_sum`, labels, value: sum },
          { metricName: `${name}_count`, labels, value: count },
        ];
      }),
  );
}
