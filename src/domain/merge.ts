import type { Answer, Context } from './corpus.ts';

export type MergeStrategy = 'local_first' | 'merge_counts';

/**
 * Merge the context from one more source into what was merged so far (docs/rules.md#corpus-merge).
 * `extra` missing: `base` itself. `base` missing: a copy of `extra`. Otherwise a new context:
 * base's answers first, then extra's new ones; for an answer both have (same group and keywords),
 * merge_counts adds the counts, keeps the later time and appends extra's unseen messages, while
 * any other strategy keeps base's answer as it is. Bans come from base only.
 */
export function mergeContexts(base: Context | null, extra: Context | null, strategy: MergeStrategy): Context | null {
  if (!extra) return base;
  if (!base) return copyContext(extra);
  const answers = base.answers.map(copyAnswer);
  const byKey = new Map(answers.map((answer) => [answerKey(answer), answer]));
  for (const incoming of extra.answers) {
    const existing = byKey.get(answerKey(incoming));
    if (!existing) {
      const added = copyAnswer(incoming);
      answers.push(added);
      byKey.set(answerKey(added), added);
      continue;
    }
    if (strategy !== 'merge_counts') continue;
    existing.count += incoming.count;
    existing.time = Math.max(existing.time, incoming.time);
    for (const message of incoming.messages) if (!existing.messages.includes(message)) existing.messages.push(message);
  }
  return {
    keywords: base.keywords,
    time: Math.max(base.time, extra.time),
    triggerCount: base.triggerCount + extra.triggerCount,
    clearTime: Math.max(base.clearTime, extra.clearTime),
    answers,
    bans: base.bans.map((ban) => ({ ...ban })),
  };
}

function answerKey(answer: Answer): string {
  return `${answer.groupId}\u0000${answer.keywords}`;
}

function copyAnswer(answer: Answer): Answer {
  return { ...answer, messages: [...answer.messages] };
}

function copyContext(context: Context): Context {
  return { ...context, answers: context.answers.map(copyAnswer), bans: context.bans.map((ban) => ({ ...ban })) };
}
