/**
 * A strict parser of Prometheus' text exposition format (version 0.0.4), for the tests of GET /metrics: every line is
 * a comment (`# HELP`, `# TYPE`), blank, or a sample `name{label="value",…} value [timestamp]`; anything else throws
 * with its line number, and so does a sample of a family that no `# TYPE` line declared before it.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  samples: Sample[];
  /** each family's type, by name: counter, gauge, histogram, summary, untyped */
  types: Map<string, string>;
  /** the samples of `name` that carry every label of `labels` (others they may carry too) */
  find(name: string, labels?: Record<string, string>): Sample[];
  /** the value of the one sample of `name` with `labels`: undefined when none has them, throws when several do */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const NUMBER = /^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;
const SPECIAL: Record<string, number> = { '+inf': Infinity, inf: Infinity, '-inf': -Infinity, nan: NaN };
const SUFFIXES = ['_bucket', '_count', '_sum', '_total', '_created'];

export function parsePrometheus(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  text.split('\n').forEach((line, index) => {
    const fail = (why: string): never => {
      throw new Error(`line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line === '') return;
    if (line.startsWith('#')) {
      const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*)(?: (.*))?$/.exec(line);
      if (comment === null) return;
      if (comment[1] === 'TYPE') {
        const type = comment[3] ?? '';
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type)) fail('an unknown type');
        if (types.has(comment[2] ?? '')) fail('a second TYPE of one family');
        types.set(comment[2] ?? '', type);
      }
      return;
    }
    const name = NAME.exec(line)?.[0] ?? fail('no metric name');
    const labels: Record<string, string> = {};
    let at = name.length;
    if (line[at] === '{') {
      at += 1;
      while (line[at] !== '}') {
        const label = LABEL.exec(line.slice(at))?.[0] ?? fail(`no label name at ${at}`);
        at += label.length;
        if (line.slice(at, at + 2) !== '="') fail(`no ="… after ${label}`);
        at += 2;
        let value = '';
        for (;;) {
          const c = line[at] ?? fail('an unterminated label value');
          at += 1;
          if (c === '"') break;
          if (c === '\\') {
            const escaped = line[at];
            at += 1;
            if (escaped === 'n') value += '\n';
            else if (escaped === '\\' || escaped === '"') value += escaped;
            else fail(`an unknown escape \\${escaped ?? ''}`);
          } else value += c;
        }
        if (label in labels) fail(`a second label ${label}`);
        labels[label] = value;
        if (line[at] === ',') at += 1;
        else if (line[at] !== '}') fail(`no , or } at ${at}`);
      }
      at += 1;
    }
    const rest = line.slice(at);
    if (!rest.startsWith(' ')) fail('no space before the value');
    const [value = '', timestamp, ...more] = rest.slice(1).split(' ');
    if (more.length > 0 || (timestamp !== undefined && !/^-?[0-9]+$/.test(timestamp)))
      fail('more than a value and a timestamp');
    // as Prometheus reads it (Go's ParseFloat): the special values in any case; prom-client writes `Nan`
    const special = SPECIAL[value.toLowerCase()];
    const parsed = special ?? (NUMBER.test(value) ? Number(value) : fail('not a number'));
    const family = types.has(name)
      ? name
      : SUFFIXES.map((suffix) => (name.endsWith(suffix) ? name.slice(0, -suffix.length) : '')).find((base) =>
          types.has(base),
        );
    if (family === undefined) fail(`a sample of ${name}, whose family has no TYPE before it`);
    samples.push({ name, labels, value: parsed });
  });
  const find = (name: string, labels: Record<string, string> = {}): Sample[] =>
    samples.filter(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  return {
    samples,
    types,
    find,
    value: (name, labels) => {
      const found = find(name, labels);
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} have ${JSON.stringify(labels)}`);
      return found[0]?.value;
    },
  };
}

/** GETs `url` (a /metrics) and parses it; throws unless it answers 200 in the text format. */
export async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text}`);
  if (!/^text\/plain; version=0\.0\.4/.test(response.headers.get('content-type') ?? ''))
    throw new Error(`${url} is not in the text format: ${response.headers.get('content-type')}`);
  return parsePrometheus(text);
}
