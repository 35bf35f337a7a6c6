/** Thrown where this printer would not print what prettier prints: the caller formats that file with prettier. */
class NotPrettierShaped extends Error {}

/**
 * JSON text exactly as prettier's `json` parser prints JSON.stringify(value, null, 2) at `width` columns (the
 * tests compare the two on whole generated projects): objects expanded, arrays on one line when they fit and hold
 * no non-empty object, else one item a line. Prettier takes seconds on a multi-megabyte OpenAPI document; this takes
 * milliseconds. Returns undefined where prettier's rules are not these (non-ASCII text near a line's end, long
 * arrays of numbers, which prettier fills): the caller uses prettier then.
 */
export function prettierJson(text: string, width: number): string | undefined {
  // prettier keeps an object on one line when its text was: only the shape of JSON.stringify(…, 2) is printed here
  const stringified = text.trimEnd();
  if (stringified !== JSON.stringify(JSON.parse(text), null, 2)) return undefined;
  return prettierJsonOfStringified(`${stringified}\n`, width);
}

const SCALAR = String.raw`"(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*|true|false|null|\{\}|\[\]`;
const NUMBER = /^-?\d/;

/** A string (left as it is), or the digits of a number before `e+` (group 1). */
const PLUS_EXPONENT = /"(?:[^"\\\n]|\\.)*"|(-?\d[\d.]*)e\+/g;

/**
 * An array JSON.stringify(…, 2) spreads over lines, whose items are each on one line: scalars, empty objects and
 * arrays, or arrays already put on one line (`[1, 2]`). Its items' indentation is group 1, the items group 2.
 */
const SPREAD = new RegExp(String.raw`\[\n( +)((?:${SCALAR}|\[[^\n]*\])(?:,\n\1(?:${SCALAR}|\[[^\n]*\]))*)\n *\]`, 'g');

/**
 * The same for `text` that is JSON.stringify(value, null, 2) (and a newline), without parsing it: JSON.stringify
 * already prints objects as prettier does, so only arrays change. Each array is put on one line where prettier
 * would, the innermost first: an array of arrays is then one of items on one line, seen in the next pass.
 */
export function prettierJsonOfStringified(text: string, width: number): string | undefined {
  // prettier writes a number's exponent without its + (JSON.stringify writes 1e+23): first, for the widths below
  let current = text.includes('e+')
    ? text.replace(PLUS_EXPONENT, (token, digits?: string) => (digits === undefined ? token : `${digits}e`))
    : text;
  try {
    for (let nested = true; nested;) {
      nested = false;
      current = current.replace(SPREAD, (spread: string, pad: string, body: string, at: number, whole: string) => {
        const items = body.split(`,\n${pad}`);
        const lineStart = whole.lastIndexOf('\n', at) + 1;
        const flat = onOneLine(items, at - lineStart + (whole[at + spread.length] === ',' ? 1 : 0), width);
        // an item of an array, now on one line: that array may go on one line in turn
        if (flat !== undefined && whole.slice(lineStart, at).trim() === '') nested = true;
        return flat ?? spread;
      });
    }
  } catch (error) {
    if (error instanceof NotPrettierShaped) return undefined;
    throw error;
  }
  return current;
}

/** An array on one line, or undefined when prettier keeps it spread (`around`: the other columns of its line). */
function onOneLine(items: readonly string[], around: number, width: number): string | undefined {
  // an array of two or more arrays of two or more items each is spread, fitting or not
  if (items.length > 1 && items.every((item) => item.startsWith('[') && itemCount(item) > 1)) return undefined;
  const flat = `[${items.join(', ')}]`;
  if (/[^\x20-\x7e]/.test(flat)) throw new NotPrettierShaped();
  if (around + flat.length <= width) return flat;
  // prettier fills the lines with the numbers of a long array of numbers
  if (items.every((item) => NUMBER.test(item))) throw new NotPrettierShaped();
  return undefined;
}

/** The number of items of an array on one line (`[1, "a, b", [2, 3]]`: 3). */
const itemCount = (flat: string): number => (JSON.parse(flat) as unknown[]).length;
