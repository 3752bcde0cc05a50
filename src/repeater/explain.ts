/**
 * One sentence per decision reason, for people: the console's Why page shows the same sentences
 * translated (web/src/locales). Every reason of decision.ts has one; `{keywords}` and `{answer}`
 * are filled in.
 */
import type { Answer } from '../domain/corpus.ts';
import type { RepeaterDecision } from './decision.ts';

const SENTENCES: Readonly<Record<RepeaterDecision['reason'], string>> = {
  self: 'The message was sent by a bot account of this process, so it was ignored.',
  'duplicate-id': 'The same message id arrived twice (two connections of one account); the copy was ignored.',
  'duplicate-event': 'The same event arrived twice; the copy was ignored.',
  'claimed-elsewhere':
    'Another Chorus process on the same database received this message too and took it: it learns and answers it.',
  ban: 'Someone asked to ban an answer, and it was banned in this group.',
  'ban-no-target': 'A ban command named no answer the bot had sent, so nothing was banned.',
  'ignored-user': 'The sender is on the ignored users list: learned from, never answered.',
  disabled: 'The repeater is switched off for this bot account (disabled_plugins).',
  'silence-command': 'A silence command was obeyed: the bot stays quiet here for a while.',
  'silence-refused': 'A silence command came from someone without the right to give it.',
  'learn-command': 'A learning command (别学了 / 学习) was obeyed for this group.',
  'memory-command': 'A member asked the bot to remember (记住我) or forget (忘记我) them; it answered.',
  'learn-refused': 'A learning command came from someone without the right to give it.',
  'group-banned': 'This group is banned in the console: its messages are ignored entirely.',
  'bot-user': 'The sender is marked as another bot: neither learned from nor answered.',
  'user-banned': 'The sender is banned in the console: never learned from, never answered.',
  'blocked-user': 'The sender is blocked in this group: neither learned from nor answered here.',
  'reply-off': 'Replying is switched off for this group in the console (it still learns if learning is on).',
  silenced: 'The bot was silenced in this group and stays quiet until the silence ends.',
  addressed: 'The message addressed the bot by name or @, which the repeater does not answer.',
  cooldown: 'The bot spoke in this group a moment ago and waits for its cool-down.',
  'too-short': 'The message was too short to answer.',
  'repeat-done': 'The bot already joined this repeat.',
  'no-text': 'The message held no text (only images or other codes).',
  'no-keywords': 'No keywords could be drawn from the message.',
  'too-long': 'The message was too long to answer.',
  'skip-rule': 'The message was too short or too odd to be worth a corpus lookup (a few characters of plain text).',
  pressure: 'The database was under pressure, so the lookup was skipped.',
  timeout: 'The corpus lookup took longer than a reply may wait.',
  'pool-timeout': 'No database connection was free in time for the lookup.',
  error: 'The corpus lookup failed.',
  'cached-miss': 'The corpus had no answer for «{keywords}» a moment ago (cached miss).',
  'no-context': 'Nothing is known about «{keywords}» yet.',
  'no-candidate':
    'Answers to «{keywords}» are known, but none is ready: seen fewer than {threshold} times, banned, or said recently.',
  'nothing-new': 'Every ready answer to «{keywords}» was said here recently.',
  repeat: 'Several people said the same thing, and the bot joined the repeat.',
  threshold: 'Answered «{answer}», learned in this group for «{keywords}».',
  group: 'Answered «{answer}», learned in this group for «{keywords}».',
  'cross-group': 'Answered «{answer}», learned in several groups for «{keywords}».',
  community: 'Answered «{answer}», shared by the community for «{keywords}».',
  proactive: 'The group had gone quiet, so the bot said «{answer}», a line the group itself said lately.',
  'proactive-skipped': 'The group had gone quiet, but the bot did not talk first (the cause says why).',
  'agent-chat': 'The corpus had no answer, so the language model answered «{answer}».',
  'agent-chat-skipped': 'The corpus had no answer and the language model did not answer either (the cause says why).',
};

export function explainDecision(
  decision: Pick<RepeaterDecision, 'reason' | 'threshold' | 'keywords' | 'texts' | 'answerKeywords'>,
): string {
  const sentence = SENTENCES[decision.reason] ?? `Decided: ${decision.reason}.`;
  return sentence
    .replace('{threshold}', String(decision.threshold ?? '?'))
    .replace('{keywords}', decision.keywords)
    .replace('{answer}', decision.texts.join(' / ') || (decision.answerKeywords ?? ''));
}

export const DECISION_REASONS = Object.keys(SENTENCES) as RepeaterDecision['reason'][];

/** Why one known answer could or could not be said, judged against the corpus as it stands now. */
export type AnswerVerdict = 'ready' | 'below-threshold' | 'banned' | 'same-as-message' | 'needs-more-groups';

export interface AnswerView {
  readonly answerKeywords: string;
  readonly groupId: number;
  readonly count: number;
  readonly sample: string;
  readonly verdict: AnswerVerdict;
}

export interface AnswerJudgement {
  groupId: number;
  messageKeywords: string;
  threshold: number;
  crossGroupThreshold: number;
  banned: ReadonlySet<string>;
}

/**
 * The answers of a context, most seen first, each with the first rule of the reply filter it
 * fails (src/repeater/responder.ts; the recent-reply and nickname rules depend on the moment and
 * are left out). For the console only: never on the reply path.
 */
export function judgeAnswers(answers: readonly Answer[], judge: AnswerJudgement, limit: number): AnswerView[] {
  const groupsPerAnswer = new Map<string, number>();
  for (const answer of answers) {
    if (answer.groupId !== judge.groupId && answer.groupId !== 0 && answer.count >= judge.threshold) {
      groupsPerAnswer.set(answer.keywords, (groupsPerAnswer.get(answer.keywords) ?? 0) + 1);
    }
  }
  return [...answers]
    .sort((a, b) => b.count - a.count)
    .slice(0, limit)
    .map((answer) => ({
      answerKeywords: answer.keywords,
      groupId: answer.groupId,
      count: answer.count,
      sample: answer.messages[0] ?? '',
      verdict:
        answer.count < judge.threshold
          ? 'below-threshold'
          : judge.banned.has(answer.keywords)
            ? 'banned'
            : answer.keywords === judge.messageKeywords
              ? 'same-as-message'
              : answer.groupId !== judge.groupId &&
                  answer.groupId !== 0 &&
                  (groupsPerAnswer.get(answer.keywords) ?? 0) < judge.crossGroupThreshold
                ? 'needs-more-groups'
                : 'ready',
    }));
}
