import type { Api } from '../model.js';
// the one table of the kinds, the runtime's own (it imports nothing; test/unit/architecture.test.ts allows it alone)
import { PROBLEM_KINDS, type ProblemKind } from '../../runtime/src/http/problem-kinds.js';

/** A kind of problem as the README and the OpenAPI document list it. */
export interface ProblemKindRow {
  kind: ProblemKind;
  /** the `type` of its documents */
  type: string;
  /** its status, or statuses (`4xx`) */
  status: string;
  means: string;
  todo: string;
}

/** Every kind of problem the generated server answers with, in the table's order. */
export function problemKinds(api: Api): ProblemKindRow[] {
  return Object.entries(PROBLEM_KINDS).map(([kind, info]) => ({
    kind: kind as ProblemKind,
    type: `${api.problemsBase}/${kind}`,
    status: 'statuses' in info ? info.statuses : String(info.status),
    means: info.means,
    todo: info.todo,
  }));
}
