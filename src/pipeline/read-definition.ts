import type { Api } from '../model.js';
import { load, parseDefinition } from './load.js';
import { normalise } from './normalise.js';
import { validate } from './validate.js';

/**
 * Reads, checks and normalises a definition file: what every command that takes a definition calls.
 * Throws a UserError for an unreadable file and a DefinitionError listing every problem.
 */
export async function readDefinition(file: string): Promise<Api> {
  return normalise(validate(await load(file)));
}

/** The same as readDefinition, for the text of `file` already read (see definition-text.ts). */
export function definitionOf(file: string, text: string): Api {
  return normalise(validate(parseDefinition(file, text)));
}
