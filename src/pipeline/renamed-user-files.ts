import { existsSync, readFileSync } from 'node:fs';
import { UserError } from '../errors.js';
import type { Api, Resource } from '../model.js';
import { names, typeNameOf } from '../naming.js';
import { projectFile } from './paths.js';
import { computedPath, handlersPath } from './plan.js';
import type { Renaming } from './user-files.js';

/** A user-owned file of a renamed resource, carried over to the new name: where from, and its text once edited. */
export interface RenamedFile {
  from: string;
  text: string;
  /** the file at the new path on disk: a run killed between writing it and removing the old one left both */
  existing?: string;
}

/** A user's file of a renamed resource that restsmith cannot carry over, or one whose new path is taken already. */
export class RenameError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'RenameError';
  }
}

/**
 * The user's handlers and computed-field files of each renamed resource (`renamedFrom`), by their new path: moved
 * there from the old one when the new resource has such a file and it does not exist yet, edited to compile under
 * the new names (user-files.ts, carryOver). A file that cannot be, or a new path taken by another file, stops the run
 * with what to do by hand. ts-morph is loaded only when there is such a file.
 */
export async function renamedUserFiles(outDir: string, api: Api): Promise<Map<string, RenamedFile>> {
  const moves = api.resources.flatMap((resource) => movesOf(outDir, resource));
  const renamed = new Map<string, RenamedFile>();
  if (moves.length === 0) return renamed;
  const { carryOver } = await import('./user-files.js');
  for (const move of moves) {
    const text = readFileSync(projectFile(outDir, move.from), 'utf8');
    const carried = carryOver(text, move.renaming);
    if (carried.kind === 'unsafe') {
      const [from, to] = move.renaming.variable;
      throw new RenameError(
        [
          `${move.from} cannot be carried over to ${move.to} (${move.resource.renamedFrom ?? ''} was renamed to ${move.resource.name}): ${carried.reason}.`,
          `Move it by hand: rename it to ${move.to}, its \`${from}\` to \`${to}\`, and its imports of`,
          `${move.renaming.folder[0]}/… to ${move.renaming.folder[1]}/… (${move.renaming.prefixes.map(([a, b]) => `${a}… → ${b}…`).join(', ')}); then run generate again.`,
        ].join('\n'),
      );
    }
    const target = projectFile(outDir, move.to);
    renamed.set(move.to, {
      from: move.from,
      text: carried.text,
      ...(existsSync(target) && { existing: readFileSync(target, 'utf8') }),
    });
  }
  return renamed;
}

/**
 * The files a rename would carry over that are both at the old path and at the new one, the new one other than the
 * old one carried over (and grown, `final`): the user must say which to keep.
 */
export function checkBothKept(renamed: ReadonlyMap<string, RenamedFile>, final: (path: string) => string): void {
  for (const [to, file] of renamed) {
    if (file.existing === undefined || file.existing === final(to)) continue;
    throw new RenameError(
      `both ${file.from} and ${to} exist, and a rename carries the old one over only when the new one does not: ` +
        `move what you need of ${file.from} into ${to} and delete ${file.from} (or delete ${to} to have restsmith ` +
        'carry the old one over), then run generate again.',
    );
  }
}

interface Move {
  resource: Resource;
  from: string;
  to: string;
  renaming: Renaming;
}

function movesOf(outDir: string, resource: Resource): Move[] {
  if (resource.renamedFrom === undefined) return [];
  const old = names(resource.renamedFrom);
  const prefixes = [
    [old.pascal, resource.names.pascal],
    [typeNameOf(resource.renamedFrom), resource.typeName],
    [old.camel, resource.names.camel],
  ] as const;
  const files = [
    ...(resource.actions.some((a) => a.set.length === 0) ? [{ path: handlersPath, variable: 'Handlers' }] : []),
    ...(resource.computed.length > 0 ? [{ path: computedPath, variable: 'Computed' }] : []),
  ];
  return files.flatMap(({ path, variable }): Move[] => {
    const from = path(old.kebab);
    if (!existsSync(projectFile(outDir, from))) return [];
    return [
      {
        resource,
        from,
        to: path(resource.names.kebab),
        renaming: {
          variable: [`${old.camel}${variable}`, `${resource.names.camel}${variable}`],
          folder: [`../resources/${old.kebab}`, `../resources/${resource.names.kebab}`],
          prefixes: [...prefixes].sort((a, b) => b[0].length - a[0].length),
        },
      },
    ];
  });
}
