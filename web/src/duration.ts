/**
 * Durations in the console's language, the two largest units: 「7 分 48 秒」 / "7 min 48 s",
 * 「2 天 3 小时」 / "2 d 3 h". The one formatter for uptime, "connected for", "since" and "ago".
 */
import { i18n } from './i18n';

const UNITS = [
  ['d', 86_400],
  ['h', 3_600],
  ['m', 60],
  ['s', 1],
] as const;

export function duration(seconds: number): string {
  const { t } = i18n.global;
  let rest = Math.max(0, Math.floor(seconds));
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || (unit === 's' && parts.length === 0)) parts.push(t(`duration.${unit}`, { n }));
    if (parts.length === 2) break;
  }
  return parts.join(t('duration.join'));
}

/** The time since a moment in Unix ms, worded: 「3 分 5 秒前」 / "3 min 5 s ago". */
export function ago(atMs: number, nowMs = Date.now()): string {
  return i18n.global.t('duration.ago', { duration: duration((nowMs - atMs) / 1000) });
}
