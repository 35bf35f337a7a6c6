/**
 * Maps a path into the data of a definition (`['resources', 'posts', 'fields', 'title']`) back to the
 * line and column of the YAML/JSON node it came from.
 */
import { isAlias, isMap, isNode, isScalar, isSeq, type Document, type Node } from 'yaml';

export type PathSeg = string | number;

export interface Position {
  line: number;
  column: number;
}

/** `resources.posts.access.update[1]`; `(root)` for the document itself. */
export function formatPath(path: readonly PathSeg[]): string {
  if (path.length === 0) return '(root)';
  return path.map((seg, i) => (typeof seg === 'number' ? `[${seg}]` : i === 0 ? seg : `.${seg}`)).join('');
}

/** Converts character offsets of a text to 1-based line and column. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '\n') this.starts.push(i + 1);
    }
  }

  position(offset: number): Position {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if ((this.starts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (this.starts[low] ?? 0) + 1 };
  }
}

/** Which node of a map entry a problem points at: the value (default) or its key. */
export type Anchor = 'value' | 'key';

interface Step {
  key?: Node;
  value?: Node;
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}

/** A node whose range is empty, like the value of `key:` with nothing after the colon. */
function isEmpty(node: Node | undefined): boolean {
  return node?.range === undefined || node.range === null || node.range[0] === node.range[1];
}

export class PositionFinder {
  private readonly lines: LineIndex;

  constructor(
    private readonly doc: Document,
    text: string,
  ) {
    this.lines = new LineIndex(text);
  }

  /**
   * The position of the node at `path`. When the path does not exist (a missing key), the deepest
   * node that does exist: for a missing key, the map that should hold it.
   */
  find(path: readonly PathSeg[], anchor: Anchor = 'value'): Position {
    const steps = this.walk(path);
    const last = steps[steps.length - 1] ?? {};
    const complete = steps.length === path.length + 1;
    let target: Node | undefined;
    if (complete && anchor === 'key' && last.key) target = last.key;
    else if (!isEmpty(last.value)) target = last.value;
    else target = last.key ?? last.value;
    const offset = target?.range?.[0] ?? 0;
    return this.lines.position(offset);
  }

  /** The nodes along `path`, starting with the root, as far as they exist. */
  private walk(path: readonly PathSeg[]): Step[] {
    const root = this.resolve(this.doc.contents);
    const steps: Step[] = [{ value: root }];
    let node = root;
    for (const seg of path) {
      const step = this.child(node, seg);
      if (!step) break;
      steps.push(step);
      node = step.value;
    }
    return steps;
  }

  private child(node: Node | undefined, seg: PathSeg): Step | undefined {
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === String(seg));
      if (!pair) return undefined;
      const key = isNode(pair.key) ? pair.key : undefined;
      return { key, value: this.resolve(pair.value) };
    }
    if (isSeq(node) && typeof seg === 'number') {
      const item = this.resolve(node.items[seg]);
      return item ? { value: item } : undefined;
    }
    return undefined;
  }

  private resolve(node: unknown): Node | undefined {
    if (isAlias(node)) return this.resolve(node.resolve(this.doc));
    return isNode(node) ? node : undefined;
  }
}

/** A problem found in the data, before it is given a file position. */
export interface Located {
  path: PathSeg[];
  /** the key of a map entry (unknown keys, bad names) or its value (default) */
  anchor?: Anchor;
  message: string;
}
