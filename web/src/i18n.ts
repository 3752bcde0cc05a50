/**
 * Chinese first, English second; the choice is kept in localStorage. Only the language in use is
 * loaded with the first screen (main.ts waits for it); the other loads when chosen.
 */
import { createI18n } from 'vue-i18n';
import type zh from './locales/zh';
import { compileMessage } from './message-compiler';

export type Locale = 'zh' | 'en';
const KEY = 'chorus.locale';

export function initialLocale(): Locale {
  const saved = localStorage.getItem(KEY);
  return saved === 'en' || saved === 'zh' ? saved : 'zh';
}

export const i18n = createI18n({
  legacy: false,
  locale: initialLocale(),
  fallbackLocale: 'zh',
  messageCompiler: compileMessage,
  messages: {} as Record<Locale, typeof zh>,
});

const loaded = new Set<Locale>();
export async function loadLocale(locale: Locale): Promise<void> {
  if (loaded.has(locale)) return;
  const messages = locale === 'en' ? (await import('./locales/en')).default : (await import('./locales/zh')).default;
  i18n.global.setLocaleMessage(locale, messages as typeof zh);
  loaded.add(locale);
}

export async function setLocale(locale: Locale): Promise<void> {
  await loadLocale(locale);
  i18n.global.locale.value = locale;
  localStorage.setItem(KEY, locale);
  document.documentElement.lang = locale === 'zh' ? 'zh-CN' : 'en';
}
