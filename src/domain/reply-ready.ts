import type { Context } from './corpus.ts';

/**
 * An answer is reply-ready when its count reaches the answer threshold. A context with answers of
 * which none is reply-ready is a weak hit: the bot has only half learned the key, so the
 * community may still fill it (docs/guide/community.md).
 */
export function hasReplyReadyAnswer(context: Context | null, threshold: number): boolean {
  return context !== null && context.answers.some((answer) => answer.count >= threshold);
}
