/**
 * The settings page words every key it shows: each field of every console config page has a
 * Chinese and an English label and description (web/src/locales/settings-*.ts), every section,
 * group, choice and value source has words in both, and the two tables hold the same keys.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONFIG_SOURCES } from '../../../src/config/layer.ts';
import { COMMON_PAGES } from '../../../src/console/config-pages.ts';
import { PLUGINS } from '../../../src/console/plugins.ts';
import en from '../../../web/src/locales/settings-en.ts';
import zh from '../../../web/src/locales/settings-zh.ts';

const pages = [
  ...PLUGINS.filter((plugin) => plugin.page !== null).map((plugin) => ({ id: plugin.name, page: plugin.page! })),
  ...COMMON_PAGES.map((page) => ({ id: page.id, page })),
];
const fields = pages.flatMap(({ page }) => page.fields);
const slug = (group: string) => group.toLowerCase().replace(/[^a-z0-9]+/g, '_');

describe('settings words', () => {
  it('every shown key has a label and a description in both languages', () => {
    for (const table of [zh, en]) {
      const missing = fields.filter((entry) => {
        const words = (table.fields as Record<string, { label?: string; help?: string }>)[entry.field.env];
        return !words?.label || !words.help;
      });
      assert.deepEqual(
        missing.map((entry) => entry.field.env),
        [],
      );
    }
    assert.deepEqual(Object.keys(zh.fields).sort(), Object.keys(en.fields).sort());
  });

  it('sections, groups, choices and sources have words in both languages', () => {
    for (const table of [zh, en]) {
      for (const { id } of pages) assert.ok((table.sections as Record<string, string>)[id], `section ${id}`);
      for (const entry of fields)
        assert.ok((table.groups as Record<string, string>)[slug(entry.field.group)], entry.field.group);
      for (const source of CONFIG_SOURCES) assert.ok((table.sources as Record<string, string>)[source], source);
      for (const entry of fields) {
        const choices = entry.field.kind === 'tristate' ? ['auto', 'true', 'false'] : (entry.field.choices ?? []);
        const shown = entry.view?.choices ?? choices;
        for (const choice of shown)
          assert.ok((table.choices as Record<string, string>)[choice], `${entry.field.env}: ${choice}`);
      }
    }
  });

  it('Chinese words carry no English beyond product, protocol and unit names', () => {
    const allowed =
      /^(OneBot|Milky|NapCat|SnowLuma|WebSocket|LLBot|Lagrange|Lagrange\.Milky|QQ|SQLite|PostgreSQL|JSON|AI|chorus\.toml|env|postgres|http|https|loopback|Chorus|OpenAI|Ollama|DeepSeek)$/i;
    const words = [
      ...Object.values(zh.fields).flatMap((entry) => [entry.label, entry.help]),
      ...Object.values(zh.sections),
      ...Object.values(zh.groups),
      ...Object.values(zh.choices),
    ]
      .join(' ')
      // An example address is what the operator types, not prose.
      .replace(/https?:\/\/\S+/g, '');
    const english = (words.match(/[A-Za-z][A-Za-z.]*/g) ?? []).filter((word) => !allowed.test(word));
    assert.deepEqual([...new Set(english)], []);
  });
});
