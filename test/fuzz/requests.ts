import fc, { type Arbitrary } from 'fast-check';
import type { Operation, Oracle } from './oracle.js';
import { adversarialValue, valid, type Json, type Schema } from './schema-arbitrary.js';

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FuzzResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
  milliseconds: number;
}

/** Seeded and bounded: FUZZ_SEED and FUZZ_RUNS override. */
export const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
export const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

export async function send(base: string, request: FuzzRequest): Promise<FuzzResponse> {
  const start = performance.now();
  const response = await fetch(base + request.url, {
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined && { body: request.body }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  const milliseconds = Math.round(performance.now() - start);
  return { status: response.status, headers: Object.fromEntries(response.headers), text, json, milliseconds };
}

/** The request and the answer, for a failure message: what to replay by hand. */
export function describeExchange(request: FuzzRequest, response: FuzzResponse): string {
  const body = request.body === undefined ? '' : `\n\n${request.body.slice(0, 2000)}`;
  const headers = Object.entries(request.headers)
    .map(([k, v]) => `\n${k}: ${v}`)
    .join('');
  return (
    `${request.method} ${request.url}${headers}${body}\n` +
    `--> ${response.status} in ${response.milliseconds} ms ${JSON.stringify(response.headers)}\n${response.text.slice(0, 2000)}`
  );
}

/** encodeURIComponent, but a lone surrogate (which it refuses) becomes the bytes UTF-8 would give it, %ED%A0%80. */
export function encode(value: string): string {
  return value
    .split(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/)
    .map(encodeURIComponent)
    .join('%ED%A0%80');
}

type Raw = { raw: string };
const isRaw = (value: unknown): value is Raw =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).join() === 'raw';
const text = (value: Json | Raw): string => (isRaw(value) ? value.raw : JSON.stringify(value));

/** JSON text of an object given as entries, so that it can hold `__proto__`, duplicate keys and raw JSON. */
const objectText = (entries: [string, Json | Raw][]): string =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${text(v)}`).join(',')}}`;

/** A body for `schema`: valid, or valid with one thing wrong, or not an object at all. */
function bodyText(schema: Schema, optional: boolean): Arbitrary<string> {
  const names = Object.keys(schema.properties ?? {});
  const entries = valid(schema, optional).map((v) => Object.entries(v as Record<string, Json>));
  const field = names.length === 0 ? fc.string({ maxLength: 8 }) : fc.constantFrom(...names);
  return fc.oneof(
    { weight: 4, arbitrary: entries.map(objectText) },
    // one field with a wrong or extreme value
    {
      weight: 4,
      arbitrary: fc
        .tuple(entries, field, adversarialValue)
        .map(([e, f, v]) => objectText([...e.filter(([k]) => k !== f), [f, v]])),
    },
    // a required field missing
    { weight: 1, arbitrary: fc.tuple(entries, field).map(([e, f]) => objectText(e.filter(([k]) => k !== f))) },
    // an extra field, the prototype's among them
    {
      weight: 2,
      arbitrary: fc
        .tuple(entries, fc.constantFrom('__proto__', 'constructor', 'prototype', 'notAField', ''), adversarialValue)
        .map(([e, k, v]) => objectText([...e, [k, v]])),
    },
    { weight: 1, arbitrary: adversarialValue.map(text) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', 'not json', '{"a":1}x', '\u0000', '[1,2') },
  );
}

/** Path parameter values: existing ids, and ids no record has or no route accepts. */
function idValue(schema: Schema, existing: () => readonly (string | number)[]): Arbitrary<string> {
  const known = fc.nat().map((n) => {
    const ids = existing();
    return ids.length === 0 ? '1' : String(ids[n % ids.length]);
  });
  const odd = fc.constantFrom(
    '0',
    '-1',
    '1.5',
    '1e3',
    '0x10',
    '9007199254740993',
    '99999999999999999999999',
    'abc',
    '%00',
    '%20',
    '%2e%2e',
    '%ED%A0%80',
    '%F0%9F%98%80',
    'x'.repeat(300),
    '00000000-0000-0000-0000-000000000000',
    '%27%20OR%201%3D1',
  );
  const generated = valid(schema).map((v) => encode(String(v)));
  // other spellings of an existing id, which must not reach its record
  const alias = fc.tuple(known, fc.nat()).map(([id, n]) => {
    const spellings = /^\d+$/.test(id)
      ? [`0${id}`, `+${id}`, `${id}.0`, `${id}e0`, `%20${id}`, `${id}%20`, `0x${Number(id).toString(16)}`, `${id}n`]
      : [id.toUpperCase(), id.replaceAll('-', ''), `{${id}}`, `${id}%20`, `urn:uuid:${id}`];
    return spellings[n % spellings.length]!;
  });
  return fc.oneof(
    { weight: 3, arbitrary: known },
    { weight: 2, arbitrary: odd },
    { weight: 1, arbitrary: generated },
    { weight: 2, arbitrary: alias },
  );
}

/** A query string: documented parameters with valid or odd values, unknown and repeated ones. */
function queryString(operation: Operation): Arbitrary<string> {
  const names = operation.parameters.filter((p) => p.in === 'query');
  if (names.length === 0) return fc.constantFrom('', '?', '?x=1');
  // the paging parameters, which every list has, as often as all the filters together
  const paging = names.filter((p) => ['limit', 'cursor', 'sort'].includes(p.name));
  const parameter =
    paging.length === 0 ? fc.constantFrom(...names) : fc.oneof(fc.constantFrom(...names), fc.constantFrom(...paging));
  const one = parameter.chain((p) =>
    fc
      .oneof(
        valid(p.schema).map((v) => encode(String(v))),
        adversarialValue.map((v) => encode(text(v)).slice(0, 500)),
        fc.constantFrom(
          '',
          '%ED%A0%80',
          '%',
          '%zz',
          ',,,',
          '-',
          '1,2,3',
          `${'id,'.repeat(2000)}x`,
          `${'a'.repeat(5000)}!`,
        ),
        fc.constantFrom(
          '0',
          '-1',
          '1.5',
          '1e999999',
          '-1e999999',
          'NaN',
          'Infinity',
          '0x10',
          '99999999999999999999',
          '1e3',
        ),
        fc.constantFrom('1e999999', '-1e999999', '9'.repeat(400)),
      )
      .map((value) => `${p.name.replace('[', '%5B').replace(']', '%5D')}=${value}`),
  );
  const unknown = fc.constantFrom(
    'notAParam=1',
    '__proto__=1',
    'constructor=x',
    'a[b][c]=1',
    'limit=1&limit=2',
    '=',
    '&&',
  );
  return fc
    .array(fc.oneof({ weight: 5, arbitrary: one }, { weight: 1, arbitrary: unknown }), { maxLength: 4 })
    .map((parts) => (parts.length === 0 ? '' : `?${parts.join('&')}`));
}

export interface Callers {
  /** label → authorization header value (undefined: no header) */
  [label: string]: string | undefined;
}

/** Requests to `operation`: its path with some id, query, headers and a body. */
export function requestTo(
  oracle: Oracle,
  operation: Operation,
  callers: Callers,
  existing: (path: string) => readonly (string | number)[],
): Arbitrary<FuzzRequest> {
  const collection = operation.path.replace(/\/\{id\}.*$/, '');
  const idParameter = operation.parameters.find((p) => p.in === 'path');
  const path =
    idParameter === undefined
      ? fc.constant(operation.path)
      : idValue(idParameter.schema, () => existing(collection)).map((id) => operation.path.replace('{id}', id));
  const contentTypes = operation.body?.contentTypes ?? ['application/json'];
  const headers = fc
    .record(
      {
        // the administrator as often as all the others together: most requests should get past the guards
        authorization: fc.oneof(fc.constant('admin'), fc.constantFrom(...Object.keys(callers))),
        'content-type': fc.constantFrom(
          ...contentTypes,
          'text/plain',
          'application/json; charset=latin1',
          'application/x-www-form-urlencoded',
          '',
        ),
        'if-match': fc.constantFrom('*', '"1"', 'W/"1"', '"x', ''),
        'if-none-match': fc.constantFrom('*', '"1"', '"0", "1"', ''),
        accept: fc.constantFrom('application/xml', '*/*', 'application/json'),
        'x-forwarded-for': fc.constantFrom('::1', 'not-an-ip', '1.2.3.4, 5.6.7.8'),
      },
      { requiredKeys: ['authorization'] },
    )
    .map(({ authorization, ...rest }) => {
      const value = callers[authorization];
      return { ...(value !== undefined && { authorization: value }), ...(rest as Record<string, string>) };
    });
  const patch = operation.method === 'PATCH';
  const body =
    operation.body === undefined
      ? fc.constant(undefined)
      : fc.option(bodyText(oracle.resolve(operation.body.schema), patch), { freq: 10, nil: undefined });
  const query =
    operation.method === 'GET' && idParameter === undefined ? queryString(operation) : fc.constantFrom('', '', '?x=1');
  return fc.record({ path, query, headers, body }).map(({ path: p, query: q, headers: h, body: b }) => {
    const request: FuzzRequest = { method: operation.method, url: p + q, headers: h };
    if (b !== undefined) request.body = b;
    else delete request.headers['content-type'];
    return request;
  });
}
