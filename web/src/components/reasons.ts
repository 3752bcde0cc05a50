/**
 * The repeater's decision reasons in the console's language: a short label (charts, tags) and the
 * one sentence the Group page shows (`reason.<name>` and `why.<name>` in src/locales).
 */
import { cqPlain } from './corpus/cq-plain';

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

/** A ban's `by` as the server records it: a member's QQ number, `recall by <QQ>`, or a console note. */
function bannedBy({ t }: I18nLike, by: string): string {
  if (/^\d+$/.test(by)) return t('cause.byMember', { qq: by });
  const recall = /^recall by (\d+)/.exec(by);
  if (recall) return t('cause.byRecall', { qq: recall[1] });
  return by;
}

/**
 * The one cause of a decision in one sentence (`cause.<code>` in src/locales), its figures filled
 * in: answers as text (faces and images as words), times in the console's clock. A code this
 * console does not know falls back to the reason's sentence.
 */
export function causeSentence(
  i18n: I18nLike,
  decision: Parameters<typeof reasonSentence>[1] & {
    cause: { code: string; params?: Record<string, string | number> };
  },
  formatTime: (ms: number) => string,
): string {
  const { code, params = {} } = decision.cause;
  const key = `cause.${code}`;
  if (!i18n.te(key)) return reasonSentence(i18n, decision);
  const values: Record<string, unknown> = { ...params };
  const answer = typeof params.answer === 'string' ? params.answer : decision.texts.join(' / ');
  values.answer = cqPlain(answer, i18n.t);
  values.keywords = params.keywords ?? decision.keywords;
  if (typeof params.until === 'number') values.until = formatTime(params.until * 1000);
  const by = typeof params.by === 'string' ? bannedBy(i18n, params.by) : null;
  const at = typeof params.at === 'number' ? formatTime(params.at * 1000) : null;
  values.who = by && at ? i18n.t('cause.byAt', { by, at }) : by ? i18n.t('cause.byOnly', { by }) : '';
  return i18n.t(key, values);
}
