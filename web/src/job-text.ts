/**
 * A job's message as the reader's language says it: the server sends a code with parameters
 * (`text`, e.g. `corpus_file.not_json` with `{line}`) beside its English `message`; the words are in
 * the locales under `jobText`. A message without a code (or with one this console does not know)
 * is shown as sent.
 */
type Translate = (key: string, params?: Record<string, unknown>) => string;
type Exists = (key: string) => boolean;

export interface JobTextData {
  code: string;
  params: Record<string, string | number>;
}

export function jobMessage(t: Translate, te: Exists, message: string, text?: JobTextData | null): string {
  if (!text || !te(`jobText.${text.code}`)) return message;
  const params: Record<string, unknown> = { ...text.params };
  // A field's expected kind is itself a code (corpus_file.bad_field).
  if (typeof params.expected === 'string' && te(`jobText.expected.${params.expected}`))
    params.expected = t(`jobText.expected.${params.expected}`, params);
  let said = t(`jobText.${text.code}`, params);
  // An import that stopped part way says how much of it was kept.
  if (params.kept !== undefined)
    said += `${t('jobText.then')}${t(params.dry_run === 1 ? 'jobText.nothingWritten' : 'jobText.kept', params)}`;
  return said;
}
