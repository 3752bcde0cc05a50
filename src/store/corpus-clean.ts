/** What the store does to every value before it is written, and the reply caps of a key. */
import type { Answer, Context, LearnInput } from '../domain/corpus.ts';
import { REPLY_SHORT_KEY_CAPS } from '../common/limits.ts';
import { stripNul } from '../common/text.ts';

/** The performance settings the store reads (config section `performance`). */
export interface ReplySettings {
  replyMessagesCap: number;
  replyAnswersCap: number;
  replySnapshotSec: number;
  replySnapshotMax: number;
  replyQueryTimeoutSec: number;
}


/**
 * Caps for one key: tightened by the character length of the keywords (docs/rules.md#cache-snapshot). Characters
 * are code points, as the origin's `len()` counts them: an emoji is one character, not two.
 */
export function replyCaps(key: string, settings: ReplySettings): { messages: number; answers: number } {
  const length = codePointLength(key, SHORT_KEY_MAX_CHARS + 1);
  for (const rule of REPLY_SHORT_KEY_CAPS) {
    if (length <= rule.maxChars) {
      return {
        messages: Math.min(settings.replyMessagesCap, rule.messages),
        answers: Math.min(settings.replyAnswersCap, rule.answers),
      };
    }
  }
  return { messages: settings.replyMessagesCap, answers: settings.replyAnswersCap };
}

const SHORT_KEY_MAX_CHARS = Math.max(...REPLY_SHORT_KEY_CAPS.map((rule) => rule.maxChars));

/** The number of code points of `text`, counting no further than `limit`. */
function codePointLength(text: string, limit: number): number {
  let count = 0;
  for (const _char of text) if (++count >= limit) break;
  return count;
}

export function positiveInt(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 1) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return Math.floor(value);
}

export function cleanAnswer(answer: Answer): Answer {
  return { ...answer, keywords: stripNul(answer.keywords), messages: answer.messages.map(stripNul) };
}

export function cleanContext(context: Context): Context {
  return {
    ...context,
    keywords: stripNul(context.keywords),
    answers: context.answers.map(cleanAnswer),
    bans: context.bans.map((ban) => ({ ...ban, keywords: stripNul(ban.keywords), reason: stripNul(ban.reason) })),
  };
}

export function cleanLearnInput(input: LearnInput): LearnInput {
  return {
    ...input,
    keywords: stripNul(input.keywords),
    answerKeywords: stripNul(input.answerKeywords),
    message: stripNul(input.message),
  };
}
