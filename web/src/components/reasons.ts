/**
 * The repeater's decision reasons in the console's language: a short label (charts, tags) and the
 * one sentence the Group page shows (`reason.<name>` and `why.<name>` in src/locales).
 */
export interface I18nLike {
  t: (key: string, values?: Record<string, unknown>) => string;
  /** Whether the locale has the key (a reason added later falls back to the server's words). */
  te: (key: string) => boolean;
}

export function reasonLabel({ t, te }: I18nLike, reason: string): string {
  const key = `reason.${reason}`;
  return te(key) ? t(key) : reason;
}

export function reasonSentence(
  { t, te }: I18nLike,
  decision: {
    reason: string;
    keywords: string;
    texts: string[];
    answer_keywords: string | null;
    explanation: string;
    threshold: number | null;
  },
): string {
  const key = `why.${decision.reason}`;
  if (!te(key)) return decision.explanation;
  return t(key, {
    keywords: decision.keywords,
    answer: decision.texts.join(' / ') || decision.answer_keywords || '',
    threshold: decision.threshold ?? '?',
  });
}
