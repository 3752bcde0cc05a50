/**
 * Dates and times in the console's language (not the browser's): 24-hour clock, so a Chinese page
 * never shows "4:31:18 AM".
 */
import { i18n } from './i18n';

const tag = () => (i18n.global.locale.value === 'zh' ? 'zh-CN' : 'en-GB');

/** Date and time of a moment given in milliseconds. */
export function dateTime(ms: number): string {
  return new Date(ms).toLocaleString(tag(), { hour12: false });
}

/** Time of day of a moment given in milliseconds. */
export function timeOfDay(ms: number): string {
  return new Date(ms).toLocaleTimeString(tag(), { hour12: false });
}
