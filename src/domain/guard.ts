/**
 * The contamination guard (docs/rules.md#guard): a message containing a
 * polluting phrase is never learned, unless it contains an exempt phrase. The phrases are
 * configuration (LLM_CORPUS_LEARN_GUARD_PHRASES / _EXEMPT); an empty list rejects nothing.
 */
export interface GuardRule {
  enabled: boolean;
  phrases: readonly string[];
  exempt: readonly string[];
}

export function rejectsMessage(rule: GuardRule, message: string): boolean {
  if (!rule.enabled || rule.phrases.length === 0) return false;
  const text = message.trim();
  if (text === '') return false;
  if (rule.exempt.some((phrase) => phrase !== '' && text.includes(phrase))) return false;
  return rule.phrases.some((phrase) => phrase !== '' && text.includes(phrase));
}
