/**
 * The steps of a run that has work to do, loaded together once the no-op check has failed (see commands/generate.ts):
 * the YAML parser, zod, the views, handlebars and the migration planner take longer to load than a no-op run takes.
 */
export { compare } from './compare.js';
export { formatAll, startPool } from './format.js';
export { packageStep } from './package-step.js';
export { handlersPath, plan } from './plan.js';
export { definitionOf, definitionWarned } from './read-definition.js';
export { renderOrKnown } from './render.js';
export { scanUserFiles } from './scan-user-files.js';
export { apply } from './write.js';
