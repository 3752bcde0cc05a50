/** CPU time of processes, read from /proc/<pid>/stat (Linux), in seconds. */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's utime and stime: USER_HZ, 100 on every Linux build in use. */
const TICKS_PER_SECOND = 100;

/** User plus system CPU seconds of `pid`, or null if it is gone (or this is not Linux). */
export function processCpuSeconds(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / TICKS_PER_SECOND : null;
}

/** CPU seconds per pid, for the pids still there. */
export function cpuOf(pids: readonly number[]): Map<number, number> {
  const seconds = new Map<number, number>();
  for (const pid of pids) {
    const value = processCpuSeconds(pid);
    if (value !== null) seconds.set(pid, value);
  }
  return seconds;
}

/**
 * CPU seconds spent between two readings: pids in both count their difference, pids new in the
 * second count whole (they started in between). Pids that ended in between are lost, which
 * undercounts; the caller says so where it matters.
 */
export function cpuBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}
