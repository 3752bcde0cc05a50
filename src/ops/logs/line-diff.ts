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
 *
 * The overlap is found in time linear in the lines compared (the prefix function of the later
 * answer, run over the end of the earlier one): trying every overlap length and comparing each
 * from its start is quadratic on a log of mostly identical lines, and froze the event loop.
 */
export function newLines(previous: readonly string[], next: readonly string[]): string[] {
  if (previous.length === 0) return [...next];
  return next.slice(longestOverlap(previous, next));
}

/** The largest k such that the last k lines of `previous` are the first k of `next`. */
function longestOverlap(previous: readonly string[], next: readonly string[]): number {
  const length = Math.min(previous.length, next.length);
  // fallback[i]: the longest proper prefix of next[0..i] that is also a suffix of it.
  const fallback = new Int32Array(length);
  for (let i = 1, k = 0; i < length; i++) {
    while (k > 0 && next[i] !== next[k]) k = fallback[k - 1] as number;
    if (next[i] === next[k]) k++;
    fallback[i] = k;
  }
  // Reading the last `length` lines of `previous`, k is the longest prefix of `next` ending here;
  // it can reach `length` only at the last line, so a full match needs no special case.
  let k = 0;
  for (let i = previous.length - length; i < previous.length; i++) {
    while (k > 0 && previous[i] !== next[k]) k = fallback[k - 1] as number;
    if (previous[i] === next[k]) k++;
  }
  return k;
}
