/** Calendar days as the daily statistics name them: the server's local day, `YYYY-MM-DD`. */

export const DAY_MS = 86_400_000;

export function localDay(atMs: number): string {
  const date = new Date(atMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The Monday that begins the local week of `atMs` (the week 本周 means). */
export function localWeekStart(atMs: number): string {
  const date = new Date(atMs);
  const sinceMonday = (date.getDay() + 6) % 7;
  date.setDate(date.getDate() - sinceMonday);
  return localDay(date.getTime());
}
