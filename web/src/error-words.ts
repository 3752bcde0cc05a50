/**
 * The one place an API error becomes words: `{code, params, detail}` → `errors.<code>` of the
 * locale with its params. A schema error (`invalid_field`, params `{field, reason, limit?}`) names
 * the field in words: a configuration key by its settings label (once the settings page has loaded
 * its words and registered them here), any other field as 「字段 body.x」, and the reason from a
 * closed set (`errors.reason.<reason>`). Without words for the code, the API's English detail shows.
 */
import { i18n } from './i18n';

export type ErrorParams = Record<string, string | number>;

type FieldLabeller = (key: string) => string | null;
let configFieldLabel: FieldLabeller = () => null;

/** Set by the settings words when they load: the label of a configuration key, or null. */
export function registerFieldLabels(labeller: FieldLabeller): void {
  configFieldLabel = labeller;
}

const t = (key: string, params: ErrorParams = {}): string => i18n.global.t(key, params);
const has = (key: string): boolean => i18n.global.te(key);

/**
 * A field in words: the setting's label when the error names its key (`params.setting`, or a key in
 * the path such as `body.values.CHORUS_X`), else 「字段 body.admins.0」.
 */
export function fieldWords(field: string, setting?: string | number): string {
  const label = typeof setting === 'string' ? configFieldLabel(setting) : null;
  if (label !== null) return `「${label}」`;
  const segments = field.split('.');
  for (let index = segments.length - 1; index >= 0; index--) {
    const label = configFieldLabel(segments[index] ?? '');
    if (label !== null) {
      const rest = segments.slice(index + 1).join('.');
      return rest === '' ? `「${label}」` : t('errors.field_item', { label, item: rest });
    }
  }
  return t('errors.field_path', { field });
}

/** The words of a coded error, or null when the locale has none for its code. */
export function codedErrorWords(code: string, params: ErrorParams): string | null {
  if (code === 'invalid_field' || code === 'invalid_setting') {
    const reason = String(params.reason ?? 'invalid');
    const reasonKey = has(`errors.reason.${reason}`) ? `errors.reason.${reason}` : 'errors.reason.invalid';
    const field = fieldWords(String(params.field ?? ''), params.setting);
    return t(`errors.${code}`, { ...params, field, reason: t(reasonKey, params) });
  }
  const key = `errors.${code}`;
  if (!has(key)) return null;
  const worded: ErrorParams = { ...params };
  if (typeof params.field === 'string') worded.field = fieldWords(params.field, params.setting);
  return t(key, worded);
}
