import { PARTS_HERE, pathEntries, type ResourceParts, type SplitDocument } from '../openapi/document.js';
import type { JsonSchema } from '../contract/json-schemas.js';
import { formattingKey } from './fingerprint.js';
import { prettierJsonOfStringified } from './json-text.js';

/**
 * A chunk of a JSON file's text: the key of what it is printed from (with the restsmith that prints it, as every
 * format cache key: fingerprint.ts), and its text as prettier prints it in the file, made when asked.
 */
export interface JsonChunk {
  key: string;
  /** undefined where this printer does not print what prettier prints (json-text.ts) */
  text: () => string | undefined;
}

/** An entry PARTS_HERE of the frame's text: the comma before it, its indentation (group 1). */
const PLACE = new RegExp(String.raw`,\n( +)"${PARTS_HERE}": \{\}`, 'g');

/**
 * The text of a split OpenAPI document (openapi/document.ts) in chunks that, joined, are the text prettier prints of
 * the whole: the frame's text cut where the resources' entries go (in `paths`, `components.schemas` and
 * `components.parameters`), and there one chunk a resource, its entries each after a comma and a line feed (the
 * frame's entry before them, the health check, the health answer and the Idempotency-Key, ends without one). What
 * prettier changes in JSON.stringify's text, arrays put on one line, depends on a line's own columns only: the entries
 * printed apart, at their indentation in the file, are printed as in the whole. Undefined where the frame is not
 * printed here: the caller prints the whole document.
 */
export function documentChunks(doc: SplitDocument, width: number): JsonChunk[] | undefined {
  const frame = prettierJsonOfStringified(`${JSON.stringify(doc.frame, null, 2)}\n`, width);
  const places = frame === undefined ? [] : [...frame.matchAll(PLACE)];
  const [paths, schemas, parameters] = places;
  if (frame === undefined || paths === undefined || schemas === undefined || parameters === undefined) return undefined;
  if (places.length > 3) return undefined;
  const piece = (text: string): JsonChunk => ({ key: formattingKey(`frame\n${text}`).slice(0, 32), text: () => text });
  // the schemas and the parameters are at the same indentation: a chunk's key says which section it is of
  const section = (place: RegExpExecArray, entries: (parts: ResourceParts) => Entries, of: string): JsonChunk[] =>
    doc.resources.map(({ key, parts }) => ({
      key: formattingKey(`${of}\n${place[1]}\n${key}`).slice(0, 32),
      text: () => prettierJsonOfStringified(entriesText(entries(parts()), place[1] ?? ''), width),
    }));
  const end = (place: RegExpExecArray): number => place.index + place[0].length;
  return [
    piece(frame.slice(0, paths.index)),
    ...section(paths, pathEntries, 'paths'),
    piece(frame.slice(end(paths), schemas.index)),
    ...section(schemas, (parts) => parts.schemas, 'schemas'),
    piece(frame.slice(end(schemas), parameters.index)),
    ...section(parameters, (parts) => parts.parameters, 'parameters'),
    piece(frame.slice(end(parameters))),
  ];
}

type Entries = readonly (readonly [string, JsonSchema])[];

/** Entries of an object at `pad` columns, as JSON.stringify(…, 2) writes them, each after a comma and a line feed. */
const entriesText = (entries: Entries, pad: string): string =>
  entries
    .map(
      ([name, value]) =>
        `,\n${pad}${JSON.stringify(name)}: ${JSON.stringify(value, null, 2).replaceAll('\n', `\n${pad}`)}`,
    )
    .join('');
