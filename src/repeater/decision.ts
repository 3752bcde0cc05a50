import type { EnqueueOutcome } from '../corpus/learning-queue.ts';
import type { BundleSource } from './bundle-cache.ts';
import type { CandidateOrigin } from './responder.ts';

export type DecisionOutcome = 'replied' | 'skipped' | 'banned';

export type DecisionReason =
  // gate
  | 'self'
  | 'duplicate-id'
  | 'duplicate-event'
  // another process of the fleet took the message (docs/rules.md#fleet-claims)
  | 'claimed-elsewhere'
  // bans
  | 'ban'
  | 'ban-no-target'
  // learned, not answered
  | 'ignored-user'
  // the account's settings switch the bot off (disabled_plugins)
  | 'disabled'
  // a group command (silence, resume, learning on/off) was obeyed, or refused for want of the right
  | 'silence-command'
  | 'silence-refused'
  | 'learn-command'
  | 'learn-refused'
  // 「记住我」/「忘记我」 was obeyed for the member (agent memory, docs/agent-memory.md)
  | 'memory-command'
  // per-group and per-user controls (group-controls.ts)
  | 'group-banned'
  | 'bot-user'
  | 'user-banned'
  | 'blocked-user'
  | 'reply-off'
  | 'silenced'
  | 'addressed'
  | 'cooldown'
  | 'too-short'
  | 'repeat-done'
  | 'no-text'
  | 'no-keywords'
  | 'too-long'
  | 'skip-rule'
  | 'pressure'
  | 'timeout'
  | 'pool-timeout'
  | 'error'
  | 'cached-miss'
  | 'no-context'
  | 'no-candidate'
  | 'nothing-new'
  // talking first in a quiet group (proactive.ts): said, or the silence passed without a line
  | 'proactive'
  | 'proactive-skipped'
  // a language model answered a message the corpus could not (src/agent/chat), or did not (the cause says why)
  | 'agent-chat'
  | 'agent-chat-skipped'
  // replied
  | 'repeat'
  | CandidateOrigin;

/** Figures of a cause, worded by the console (web/src/locales `cause.<code>`): names and numbers only. */
export type CauseParams = Readonly<Record<string, string | number>>;

/**
 * The one cause that decided a message, recorded when it was decided (the Why page says it in one
 * sentence): a code (a DecisionReason, or for a lookup without a ready answer what held the
 * best-known answer back: `below-threshold`, `banned-here`, `said-recently`...) and its figures.
 */
export interface DecisionCause {
  readonly code: string;
  readonly params?: CauseParams;
}

/** What the repeater did with one message. `threshold` = answered from this group's corpus. */
export interface RepeaterDecision {
  readonly groupId: number;
  readonly selfId: number;
  readonly userId: number;
  readonly messageId: number;
  readonly outcome: DecisionOutcome;
  readonly reason: DecisionReason | 'threshold';
  /** What will be sent, in order (empty unless replied). */
  readonly texts: readonly string[];
  readonly answerKeywords: string | null;
  readonly keywords: string;
  readonly learn: EnqueueOutcome | 'not-offered';
  /** How the bundle cache answered, when a lookup was attempted. */
  readonly cache: BundleSource | null;
  /** The answer count an answer needed this time (drawn per lookup), when a lookup ran. */
  readonly threshold: number | null;
  /** Time to decide (the deliberate send delays not included). */
  readonly latencyMs: number;
  /** The cause with its figures; absent: the reason alone says it. */
  readonly cause?: DecisionCause;
  /** The message as received (CQ-coded) and its sender's group card or nickname. */
  readonly rawMessage: string;
  readonly senderName: string;
}

export type Verdict = Pick<RepeaterDecision, 'outcome' | 'reason'> & Partial<RepeaterDecision>;

export function skipped(reason: DecisionReason, cause?: DecisionCause): Verdict {
  return cause ? { outcome: 'skipped', reason, cause } : { outcome: 'skipped', reason };
}

export function missFor(source: BundleSource, loadReason: DecisionReason): DecisionReason {
  switch (source) {
    case 'negative-hit':
      return 'cached-miss';
    case 'timeout':
      return 'timeout';
    case 'pool-timeout':
      return 'pool-timeout';
    case 'error':
      return 'error';
    default:
      return loadReason;
  }
}
