/**
 * New lines between two polls of a "last N lines" endpoint. The later answer is the earlier one
 * shifted by the lines written meanwhile, so the new lines are what follows the longest overlap
 * between the end of the earlier answer and the start of the later one. This keeps working once
 * every answer holds its maximum number of lines (counting lines, as the origin did, goes silent
 * there). Without any overlap (the log was rotated, or more than N lines were written between two
 * polls) the whole later answer is new.
 *
 * Identical lines make the overlap ambiguous; the longest overlap is taken, so a repeated line can
 * be missed but never doubled.
 */
export function newLines(previous: readonly string[], next: readonly string[]): string[] {
  if (previous.length === 0) return [...next];
  for (let overlap = Math.min(previous.length, next.length); overlap > 0; overlap--) {
    if (overlaps(previous, next, overlap)) return next.slice(overlap);
  }
  return [...next];
}

/** Whether the last `length` lines of `previous` are the first `length` of `next`. */
function overlaps(previous: readonly string[], next: readonly string[], length: number): boolean {
  const offset = previous.length - length;
  // The last line of the overlap differs most often: check it first.
  if (previous[previous.length - 1] !== next[length - 1]) return false;
  for (let index = 0; index < length; index++) {
    if (previous[offset + index] !== next[index]) return false;
  }
  return true;
}
