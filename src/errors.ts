/** Errors a user can fix. Anything that is not a UserError is a bug in restsmith. */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'UserError';
  }
}

/** One problem in a definition file, with the position of the value it concerns (1-based). */
export interface Problem {
  file: string;
  line: number;
  column: number;
  /** dotted path into the definition, e.g. `resources.posts.fields.title.type` */
  path: string;
  message: string;
}

export function formatProblem(p: Problem): string {
  return `${p.file}:${p.line}:${p.column}  ${p.path}  ${p.message}`;
}

/** A warning about a valid definition: the same, said to be one. */
export function formatWarning(p: Problem): string {
  return `${p.file}:${p.line}:${p.column}  ${p.path}  warning: ${p.message}`;
}

/** A note about a valid definition: worth knowing, nothing to fix (a listing no index serves). */
export function formatNote(p: Problem): string {
  return `${p.file}:${p.line}:${p.column}  ${p.path}  note: ${p.message}`;
}

/** A definition that cannot be used: carries every problem found, not just the first. */
export class DefinitionError extends UserError {
  constructor(readonly problems: Problem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'DefinitionError';
  }
}
