import { basename, resolve } from 'node:path';
import { readDefinition } from '../pipeline/read-definition.js';
import { plan } from '../pipeline/plan.js';
import { render } from '../pipeline/render.js';
import { format } from '../pipeline/format.js';
import { apply, compare, type Change } from '../pipeline/write.js';
import { VERSION } from '../version.js';

export interface GenerateOptions {
  out?: string;
  dryRun?: boolean;
}

/** load → validate → normalise → plan → render → format → write. Returns the changes, for printing. */
export async function generate(file: string, options: GenerateOptions): Promise<{ outDir: string; changes: Change[] }> {
  const api = await readDefinition(file);
  const source = basename(file);
  const outDir = resolve(options.out ?? api.name);
  const files = await Promise.all(plan(api, source).map((planned) => format(render(planned, source))));
  const changes = compare(outDir, files);
  if (!options.dryRun) apply(outDir, changes, VERSION);
  return { outDir, changes };
}

export function describeChanges(changes: readonly Change[]): string[] {
  return changes.map(
    (c) => `${c.kind.padEnd(9)} ${c.path}${c.kind === 'keep' ? `  (${c.owner}-owned, left as it is)` : ''}`,
  );
}
