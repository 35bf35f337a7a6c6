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
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i] ?? '';
    if (line === '') {
      // prettier keeps one blank line between statements, none after `{` or before `}`
      if (previous === '' || previous.endsWith('{') || /^\s*[}\])]/.test(lines[i + 1] ?? '')) return false;
    } else if (/\s$/.test(line) || line.includes('\t')) return false;
    // an empty block or type is `{}` to prettier
    else if (previous.endsWith('{') && /^\s*}/.test(line)) return false;
    else if (!isComment(line) && (line.length > PRETTIER_OPTIONS.printWidth || !/^[\x20-\x7e]*$/.test(line)))
      return false;
    previous = line;
  }
  return true;
}

/** A line of a comment: prettier leaves its text as it is, however long */
const isComment = (line: string): boolean => /^\s*(?:\/\/|\/\*\*? |\*\/|\* |\*$)/.test(line);
