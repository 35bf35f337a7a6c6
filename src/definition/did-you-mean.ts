/**
 * "Did you mean" suggestions for misspelled names: a candidate is suggested when it is within a small
 * edit distance of what was written (transpositions count as one edit), or when one is a prefix of the
 * other (`int` → `integer`). Comparison ignores case.
 */

/** Optimal-string-alignment distance: Levenshtein plus adjacent transpositions. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      const row = d[i];
      if (row) row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** Short words tolerate fewer edits, or everything would suggest everything. */
function maxDistance(word: string): number {
  return word.length <= 3 ? 1 : 2;
}

const MIN_PREFIX = 3;

function isPrefixMatch(written: string, candidate: string): boolean {
  const shorter = written.length <= candidate.length ? written : candidate;
  const longer = shorter === written ? candidate : written;
  return shorter.length >= MIN_PREFIX && longer.startsWith(shorter);
}

/** The closest candidate to `written`, or undefined when none is close enough. */
export function closest(written: string, candidates: Iterable<string>): string | undefined {
  const w = written.toLowerCase();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (candidate === written) continue;
    const c = candidate.toLowerCase();
    const distance = editDistance(w, c);
    const score = distance <= maxDistance(w) ? distance : isPrefixMatch(w, c) ? 3 : undefined;
    if (score !== undefined && (best === undefined || score < best.distance)) {
      best = { candidate, distance: score };
    }
  }
  return best?.candidate;
}

/** ` (did you mean "x"?)` or '' — ready to append to a message. */
export function didYouMean(written: string, candidates: Iterable<string>): string {
  const suggestion = closest(written, candidates);
  return suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`;
}
