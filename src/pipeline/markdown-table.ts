/**
 * A markdown table printed in prettier's layout, without prettier: the README's table of requests is one row a route
 * (800 rows at 100 resources), and prettier takes most of a second over it, most of that to align its columns.
 *
 * Prettier prints a table (proseWrap `preserve`) as `| ` + its cells padded to their column's width + ` |`, one row a
 * line, the delimiter row as dashes as wide as the column (three at least), a cell's text as prettier prints inline
 * text. This prints only tables whose cells prettier prints as they are written, so that only the padding is left to
 * do: words of letters, digits and plain punctuation one space apart, and code spans (`` `…` ``) of printable ASCII,
 * `→` and `…` without a backtick, a pipe or a backslash, or space at either end; columns without alignment colons.
 * Anything else — emphasis, links and URLs, escapes, HTML, entities, other characters — is left to prettier
 * (undefined). markdown-table.test.ts holds the result to prettier's own on random tables, format.test.ts on the
 * examples' READMEs.
 */
export function printTable(text: string): string | undefined {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  if (lines.length < 2 || !lines.every((line) => ROW.test(line))) return undefined;
  const rows = lines.map(cellsOf);
  const [header, delimiter] = rows;
  if (header === undefined || delimiter === undefined || !delimiter.every((cell) => DASHES.test(cell)))
    return undefined;
  const body = rows.slice(2);
  if (!body.every((row) => row.length === header.length) || delimiter.length !== header.length) return undefined;
  if (![header, ...body].every((row) => row.every(plain))) return undefined;
  // every character let through is one column wide (printable ASCII, `→`, `…`): a cell's width is its length
  const widths = header.map(() => 3);
  for (const row of [header, ...body])
    row.forEach((cell, column) => (widths[column] = Math.max(widths[column] ?? 3, cell.length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...body.map(line)].join('\n') + '\n';
}

/** a row: between pipes at either end, no backslash (an escaped pipe would not split cells) */
const ROW = /^\|[^\\\n]*\|$/;

/** a delimiter cell without alignment colons */
const DASHES = /^-+$/;

/** the trimmed cells of a row */
const cellsOf = (line: string): string[] =>
  line
    .slice(1, -1)
    .split('|')
    .map((cell) => cell.trim());

/**
 * Text prettier prints as it is: characters it neither escapes nor reads as markup, one space at most between them,
 * and code spans of printable ASCII (`→` and `…` too) with no space at either end inside, none right after another
 * (two in a row are one span to markdown). Each token starts with a character no other token starts with: the match is
 * linear.
 */
const PLAIN =
  /^(?:[A-Za-z0-9.,:;'"(){}/=+?!%^→…-]|`[!-[\]-_a-{}~→…](?:[ !-[\]-_a-{}~→…]*[!-[\]-_a-{}~→…])?`(?!`)| (?! |$))*$/;

/** a URL, which markdown makes a link of, up to a space: a backtick after it is part of it, not a code span */
const URL = /:\/\/|www\./i;

export const plain = (cell: string): boolean => PLAIN.test(cell) && !URL.test(cell);
