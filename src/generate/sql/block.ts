/** Text inside a template literal: nothing in it can interpolate, and a carriage return (which a template literal
 * reads as a line feed) is written as an escape. */
export const inTemplateLiteral = (text: string): string =>
  text.replace(/[\\`]/g, '\\$&').replaceAll('${', '\\${').replaceAll('\r', '\\r');

/**
 * A statement as a template literal on lines of its own, each indented by `indent`, the closing backtick two spaces
 * less: it reads as SQL beside the code that binds it.
 */
export function sqlBlock(sql: string, indent: string): string {
  const lines = inTemplateLiteral(sql)
    .split('\n')
    .map((line) => indent + line);
  return `\`\n${lines.join('\n')}\n${indent.slice(2)}\``;
}
