/**
 * The web console words a coded error in the reader's language (web/src/error-words.ts): a refused
 * field by its settings label or as 「字段 <path>」 with the reason, other codes with their params,
 * and the English detail only for a code without words.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

// The web's i18n reads the saved language at load; Node has no localStorage.
const saved = new Map<string, string>();
(globalThis as { localStorage?: unknown }).localStorage = {
  getItem: (key: string) => saved.get(key) ?? null,
  setItem: (key: string, value: string) => saved.set(key, value),
};
const web = (path: string) => new URL(`../../../web/src/${path}`, import.meta.url).href;
interface I18nModule {
  i18n: { global: { locale: { value: string } } };
  loadLocale(locale: string): Promise<void>;
}
interface WordsModule {
  codedErrorWords(code: string, params: Record<string, string | number>): string | null;
  registerFieldLabels(labeller: (key: string) => string | null): void;
}
const { i18n, loadLocale } = (await import(web('i18n.ts'))) as I18nModule;
const { codedErrorWords, registerFieldLabels } = (await import(web('error-words.ts'))) as WordsModule;
await loadLocale('zh');
await loadLocale('en');

describe('error words', () => {
  it('names a refused field and the reason in Chinese and English', () => {
    i18n.global.locale.value = 'zh';
    const item = { field: 'body.admins.0', reason: 'type' };
    assert.equal(codedErrorWords('invalid_field', item), '字段 body.admins.0 类型不对');
    assert.equal(
      codedErrorWords('invalid_field', { field: 'body.name', reason: 'too_long', limit: 64 }),
      '字段 body.name 太长（最多 64）',
    );
    i18n.global.locale.value = 'en';
    assert.equal(codedErrorWords('invalid_field', item), 'field body.admins.0: wrong type');
  });

  it('names a configuration key by its settings label once the settings words are loaded', () => {
    registerFieldLabels((key) => (key === 'CHORUS_REPEATER_COOLDOWN_SEC' ? '冷却时间' : null));
    i18n.global.locale.value = 'zh';
    const params = { field: 'body.values.cooldown_sec', setting: 'CHORUS_REPEATER_COOLDOWN_SEC', reason: 'range' };
    assert.equal(codedErrorWords('invalid_field', { ...params, limit: 0 }), '「冷却时间」超出允许范围（界限 0）');
    assert.equal(
      codedErrorWords('setting_read_only', params),
      '「冷却时间」在这里只读：请在环境变量、chorus.toml 或 .env 中修改。',
    );
    registerFieldLabels(() => null);
  });

  it('fills other codes with their params, and has no words for an unknown code', () => {
    i18n.global.locale.value = 'zh';
    assert.equal(codedErrorWords('no_backup', { name: 'x.db' }), '没有名为 x.db 的备份。');
    assert.equal(codedErrorWords('no_such_code_anywhere', {}), null);
  });
});
