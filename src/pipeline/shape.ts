import { PRETTIER_OPTIONS } from '../generate/project-files.js';

/**
 * Templates written in prettier's shape (render.ts, IN_SHAPE): their text is what prettier makes of it as long as
 * every group in it (a type, a parameter list, an object) fits on its line, since prettier prints a group on one line
 * when it fits there, and each is written on one line. So a file of theirs needs no formatting when every line of
 * code fits in the print width, and its values are printed as prettier prints them (literal.ts, generate/typescript.ts
 * for strings). A file with a line too long, or anything else this check does not vouch for, goes to prettier.
 * shape.test.ts holds these templates to prettier on every definition of the repository and on generated names.
 */
export function inPrettierShape(content: string): boolean {
  // a carriage return, even in a comment, is a line break to prettier
  if (content.includes('\r')) return false;
  const lines = content.split('\n');
  if (lines.at(-1) !== '' || lines.at(-2) === '' || lines[0] === '') return false;
  let previous = '';
  let inTemplateLiteral = false;
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i] ?? '';
    // the text of a template literal (a statement's SQL) is prettier's to leave as it is, up to the line it ends on
    if (inTemplateLiteral && !/^\s*`/.test(line)) continue;
    inTemplateLiteral = false;
    if (line === '') {
      // prettier keeps one blank line between statements, none after `{` or before `}`
      if (previous === '' || previous.endsWith('{') || /^\s*[}\])]/.test(lines[i + 1] ?? '')) return false;
    } else if (/\s$/.test(line) || line.includes('\t')) return false;
    // an empty block or type is `{}` to prettier
    else if ((previous.endsWith('{') && /^\s*}/.test(line)) || /\{\s+\}/.test(line)) return false;
    else if (!isComment(line) && !isCode(line)) return false;
    inTemplateLiteral = !isComment(line) && line.endsWith('`') && line.split('`').length % 2 === 0;
    previous = line;
  }
  return true;
}

/**
 * A line of code as prettier leaves it: within the width, in characters whose width prettier measures as one (ASCII,
 * Latin-1, punctuation such as `…` and `—`, arrows), and with no compact JSON in it (a value no printer laid out:
 * prettier puts a space after every comma, and `{"` or `":` is JSON's)
 */
const isCode = (line: string): boolean =>
  line.length <= PRETTIER_OPTIONS.printWidth &&
  /^[\x20-\x7e\u00a0-\u00ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff]*$/.test(line) &&
  !/[[{]"|":|,\S/.test(line);

/** A line of a comment: prettier leaves its text as it is, however long */
const isComment = (line: string): boolean => /^\s*(?:\/\/|\/\*\*? |\*\/|\* |\*$)/.test(line);
