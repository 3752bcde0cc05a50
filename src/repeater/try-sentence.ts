/**
 * "Try a sentence" (console, docs/repeater.md#try): what the repeater would do with a message in a
 * group, and why, with the answers it would weigh. It reads what the reply path reads (controls,
 * cool-down, recent replies, the corpus) and changes nothing: nothing is sent, learned, cached,
 * remembered in the window or counted, and no cool-down starts. The threshold is the highest the
 * draw can give (the strict case), with the lowest beside it.
 */
import { TransientLookupError } from '../common/errors.ts';
import type { GroupConfig } from '../domain/chat-controls.ts';
import type { Context } from '../domain/corpus.ts';
import type { DecisionCause, DecisionReason } from './decision.ts';
import { lookupMissCause } from './decision-causes.ts';
import { describeText, type KeywordExtractor, type MessageText } from './keywords.ts';
import { lookupGate, speakerGate } from './reply-gates.ts';
import type { ReplyRecord } from './reply-records.ts';
import { pickThreshold, selectCandidates, type CandidateInput } from './responder.ts';
import type { RepeaterSettings } from './settings.ts';
import { weighAnswers, type WeighedAnswer } from './weigh.ts';

export interface TriedSentence {
  /** `would-reply`: one of the ready answers would be said (chosen at random, weighted). */
  outcome: 'would-reply' | 'would-skip';
  reason: DecisionReason | 'threshold';
  cause: DecisionCause;
  keywords: string;
  /** The count an answer needs: the strict case, and the lowest the draw can give. */
  threshold: number | null;
  lowestThreshold: number | null;
  answers: WeighedAnswer[];
}

export interface TryDeps {
  settings: RepeaterSettings;
  group: GroupConfig;
  /** The account the group's messages arrive on (its nicknames and cool-down are read). */
  selfId: number;
  enabled: boolean;
  nicknames: readonly string[];
  keywords: KeywordExtractor;
  nowMs: number;
  quietMs: number;
  recent: readonly ReplyRecord[];
  recentRaws: ReadonlySet<string>;
  lookup(keywords: string): Promise<Context | null>;
  candidateInput(text: MessageText, context: Context, threshold: number): CandidateInput;
  bannedEverywhere(answerKeywords: string): boolean;
}

export async function trySentence(
  deps: TryDeps,
  message: { rawMessage: string; plainText: string },
): Promise<TriedSentence> {
  const text = describeText(message.rawMessage, message.plainText, deps.keywords);
  const none = { keywords: text.keywords, threshold: null, lowestThreshold: null, answers: [] };
  const skip = (reason: DecisionReason, cause?: DecisionCause): TriedSentence => ({
    outcome: 'would-skip',
    reason,
    cause: cause ?? { code: reason },
    ...none,
  });
  const { group, settings } = deps;
  if (group.banned) return skip('group-banned');
  if (!deps.enabled) return skip('disabled');
  const gate =
    speakerGate(text, {
      selfId: deps.selfId,
      plainText: message.plainText,
      mentionsSelf: false,
      nicknames: deps.nicknames,
      group,
      nowSec: Math.floor(deps.nowMs / 1000),
      quietMs: deps.quietMs,
    }) ?? lookupGate(text);
  if (gate) return skip(gate.reason as DecisionReason, gate.cause);

  let context: Context | null;
  try {
    context = await deps.lookup(text.keywords);
  } catch (error) {
    if (!(error instanceof TransientLookupError)) throw error;
    return skip(error.reason === 'pressure' ? 'pressure' : error.reason === 'timeout' ? 'timeout' : 'pool-timeout');
  }
  if (!context) return skip('no-context', { code: 'no-context', params: { keywords: text.keywords } });

  const base = group.answerThreshold ?? settings.answerThreshold;
  const weights = settings.answerThresholdWeights;
  // The draw's last weight gives the highest threshold and its first the lowest (pickThreshold).
  const highest = pickThreshold(base, weights, text.tags.length, { next: () => 0.999999 });
  const lowest = pickThreshold(base, weights, text.tags.length, { next: () => 0 });
  const input = deps.candidateInput(text, context, highest);
  const answers = weighAnswers(context, input);
  const thresholds = { keywords: text.keywords, threshold: highest, lowestThreshold: lowest, answers };
  const candidates = selectCandidates(context, input);
  if (candidates.length === 0) {
    const cause = lookupMissCause(context, input, deps.recent, Math.floor(deps.nowMs / 1000), deps.bannedEverywhere);
    return { outcome: 'would-skip', reason: 'no-candidate', cause, ...thresholds };
  }
  const best = [...candidates].sort((a, b) => b.count - a.count)[0];
  const reason = best?.origin === 'group' ? 'threshold' : (best?.origin ?? 'threshold');
  const cause = { code: 'would-reply', params: { ready: candidates.length, threshold: highest } };
  return { outcome: 'would-reply', reason, cause, ...thresholds };
}
