/**
 * Required refs that go round (§5): a ref that must name a record, from a resource back to itself or through other
 * such refs back to it, leaves no way to create the first record of any of them: each needs one of the others to exist
 * already, so every create would be refused.
 */
import { CheckContext } from './check-context.js';

interface Edge {
  holder: string;
  field: string;
  to: string;
}

export function checkRequiredRefCycles(ctx: CheckContext): void {
  const known = new Set(ctx.definition.resources.map((r) => r.name));
  const edges = new Map<string, Edge[]>();
  for (const resource of ctx.definition.resources) {
    const out: Edge[] = [];
    for (const [field, def] of resource.fields.valid) {
      if (def.type !== 'ref' || def.required !== true || def.nullable === true || !known.has(def.to)) continue;
      out.push({ holder: resource.name, field, to: def.to });
    }
    edges.set(resource.name, out);
  }
  for (const out of edges.values()) {
    for (const edge of out) {
      const back = pathBack(edges, edge.to, edge.holder);
      if (back === undefined) continue;
      ctx.report(['resources', edge.holder, 'fields', edge.field], message(edge, back), 'key');
    }
  }
}

/** The shortest chain of required refs from `from` to `to` (empty when they are the same resource). */
function pathBack(edges: ReadonlyMap<string, Edge[]>, from: string, to: string): Edge[] | undefined {
  if (from === to) return [];
  const via = new Map<string, Edge>();
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    for (const edge of edges.get(queue[i]!) ?? []) {
      if (edge.to === from || via.has(edge.to)) continue;
      via.set(edge.to, edge);
      if (edge.to === to) {
        const chain: Edge[] = [];
        for (let at: Edge | undefined = edge; at !== undefined; at = via.get(at.holder)) chain.unshift(at);
        return chain;
      }
      queue.push(edge.to);
    }
  }
  return undefined;
}

function message(edge: Edge, back: readonly Edge[]): string {
  if (back.length === 0) {
    return (
      `${edge.field} is required and refers to ${edge.to} itself: the first record would have no record to refer to, ` +
      'so none could be created. Leave out `required` (or add `nullable: true`): a first record then has none'
    );
  }
  const chain = [edge, ...back].map((e) => `${e.holder}.${e.field}`).join(' → ');
  return (
    `${edge.field} is required, and the required refs it leads to come back (${chain} → ${edge.holder}): none of ` +
    'these resources could have a first record. Leave out `required` on one of them (or add `nullable: true`)'
  );
}
