/** Chinese first, English second; the choice is kept in localStorage. */
import { createI18n } from 'vue-i18n';
import en from './locales/en';
import zh from './locales/zh';

export type Locale = 'zh' | 'en';
const KEY = 'chorus.locale';

function initial(): Locale {
  const saved = localStorage.getItem(KEY);
  return saved === 'en' || saved === 'zh' ? saved : 'zh';
}

export const i18n = createI18n({
  legacy: false,
  locale: initial(),
  fallbackLocale: 'zh',
  messages: { zh, en },
});

export function setLocale(locale: Locale): void {
  i18n.global.locale.value = locale;
  localStorage.setItem(KEY, locale);
  document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
}
