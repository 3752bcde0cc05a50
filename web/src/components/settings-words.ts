/**
 * The settings page's words for configuration keys, section and group titles, choices and value
 * sources, in the reader's language (web/src/locales/settings-*.ts). The server sends keys and
 * codes (env keys, choice values, `source`); these tables word them. A key without words falls
 * back to its payload name so a new key still shows (and the browser test catches it).
 */
import { computed } from 'vue';
import { registerFieldLabels } from '../error-words';
import { i18n } from '../i18n';
import en from '../locales/settings-en';
import zh from '../locales/settings-zh';

type Words = typeof zh;
const TABLES: Record<string, Words> = { zh, en };

export const settingsWords = computed<Words>(() => TABLES[i18n.global.locale.value] ?? zh);

const lookup = <T>(table: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

// An error naming a configuration key (`body.values.CHORUS_X`) names it by its label from now on.
registerFieldLabels((env) => lookup<{ label: string }>(settingsWords.value.fields, env)?.label ?? null);

export function fieldLabel(env: string, fallback: string): string {
  return lookup<{ label: string }>(settingsWords.value.fields, env)?.label ?? fallback;
}
export function fieldHelp(env: string, fallback: string): string {
  return lookup<{ help: string }>(settingsWords.value.fields, env)?.help ?? fallback;
}
export function sectionTitle(id: string, fallback: string): string {
  return lookup<string>(settingsWords.value.sections, id) ?? fallback;
}
/** `Reply performance` → `reply_performance`, the key of its title. */
export function groupTitle(group: string): string {
  return lookup<string>(settingsWords.value.groups, group.toLowerCase().replace(/[^a-z0-9]+/g, '_')) ?? group;
}
export function choiceWord(choice: string): string {
  return lookup<string>(settingsWords.value.choices, choice) ?? choice;
}
export function sourceWord(source: string): string {
  return lookup<string>(settingsWords.value.sources, source) ?? source;
}
/** The words a search matches a field by, in both languages (an operator may type either). */
export function searchText(env: string, key: string, group: string): string {
  const parts = [env, key, group];
  for (const words of Object.values(TABLES)) {
    const field = lookup<{ label: string; help: string }>(words.fields, env);
    if (field) parts.push(field.label, field.help);
  }
  return parts.join('\n').toLowerCase();
}
