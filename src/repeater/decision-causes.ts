/**
 * The figures of a decision's cause, taken when it is decided (docs/repeater.md#why): how long a
 * silence or cool-down still lasts, and for a lookup without a ready answer what held the best-known
 * answer back (weigh.ts). Only the skip paths pay for them, never an answered message.
 */
import type { GroupConfig } from '../domain/chat-controls.ts';
import type { Context } from '../domain/corpus.ts';
import type { DecisionCause } from './decision.ts';
import type { ReplyRecord } from './reply-records.ts';
import type { CandidateInput } from './responder.ts';
import { noCandidateCause } from './weigh.ts';

export function silencedCause(group: GroupConfig): DecisionCause {
  return { code: 'silenced', params: { until: group.silenceUntil } };
}

export function cooldownCause(leftMs: number): DecisionCause {
  return { code: 'cooldown', params: { seconds_left: Math.max(1, Math.ceil(leftMs / 1000)) } };
}

export function lookupMissCause(
  context: Context,
  input: CandidateInput,
  recent: readonly ReplyRecord[],
  nowSec: number,
  bannedEverywhere: (answerKeywords: string) => boolean,
): DecisionCause {
  return noCandidateCause(context, input, {
    nowSec,
    saidAt: (keywords) => recent.find((record) => record.replyKeywords === keywords)?.time ?? null,
    bannedEverywhere,
  });
}

const REMEMBERED_MISSES = 2000;

/**
 * The cause of each recent miss, by group and message, so a miss answered from the bundle cache
 * (`cached-miss`) still says what held it back. Bounded: the oldest is forgotten first.
 */
export class MissCauses {
  readonly #causes = new Map<string, DecisionCause>();

  remember(groupId: number, rawMessage: string, cause: DecisionCause): void {
    const key = `${groupId}|${rawMessage}`;
    this.#causes.delete(key);
    this.#causes.set(key, cause);
    if (this.#causes.size > REMEMBERED_MISSES) {
      const oldest = this.#causes.keys().next();
      if (!oldest.done) this.#causes.delete(oldest.value);
    }
  }

  recall(groupId: number, rawMessage: string): DecisionCause | undefined {
    return this.#causes.get(`${groupId}|${rawMessage}`);
  }
}
