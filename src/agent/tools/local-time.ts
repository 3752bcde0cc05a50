/**
 * Times as the model reads and writes them, in the server's local time zone (the one the console's
 * daily statistics count days in, src/console/local-day.ts; set it with TZ).
 */

const ISO_LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d{1,3})?(Z|[+-]\d{2}:?\d{2})?$/;
const WEEKDAYS = ['星期日', '星期一', '星期二', '星期三', '星期四', '星期五', '星期六'];

/** `2026-05-01 09:30 星期五 (UTC+08:00)`: local time, weekday and offset. */
export function describeLocal(atMs: number): string {
  const date = new Date(atMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  return `${day} ${time} ${WEEKDAYS[date.getDay()] ?? ''} (UTC${utcOffset(date)})`;
}

/** The local offset at that time, like +08:00. */
export function utcOffset(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * A reminder's time from what the model wrote: minutes from now (a number, or digits), or an ISO
 * 8601 date and time (local unless it carries Z or an offset). Null when it is neither, or names
 * a day that does not exist (2026-02-30).
 */
export function parseWhen(when: string | number, nowMs: number): number | null {
  if (typeof when === 'number') return Number.isInteger(when) ? nowMs + when * 60_000 : null;
  const text = when.trim();
  if (/^\d{1,6}$/.test(text)) return nowMs + Number(text) * 60_000;
  const match = ISO_LOCAL.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s, zone] = match;
  const parts = [y, mo, d, h, mi, s ?? '0'].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = parts;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const local = new Date(year, month - 1, day, hour, minute, second);
  // The day must exist: Date rolls 02-30 over into March.
  if (local.getMonth() !== month - 1 || local.getDate() !== day) return null;
  if (zone === undefined) return local.getTime();
  const utc = Date.UTC(year, month - 1, day, hour, minute, second);
  if (zone === 'Z') return utc;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return utc - sign * offsetMinutes * 60_000;
}
